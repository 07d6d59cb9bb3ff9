import AxeBuilder from "@axe-core/playwright";
import type { Page } from "@playwright/test";
import { expect } from "./fixtures";

/** Accessibility checks shared by the public and the admin browser tests. */

/** axe-core with the WCAG 2.x A and AA rules (2.2 included). */
export async function expectNoAxeViolations(page: Page, label: string) {
  const results = await new AxeBuilder({ page })
    .withTags(["wcag2a", "wcag2aa", "wcag21a", "wcag21aa", "wcag22aa", "best-practice"])
    .analyze();
  const summary = results.violations.map(
    (v) => `${v.id} (${v.impact}): ${v.nodes.map((n) => n.target.join(" ")).join(", ")}`,
  );
  expect(summary, label).toEqual([]);
}

/** One h1, first, and no skipped heading levels (visible headings and the footer's). */
export async function expectOneH1AndOrderedHeadings(page: Page, label: string) {
  const levels = await page
    .locator("h1, h2, h3, h4, h5, h6")
    .evaluateAll((els) =>
      els
        .filter((el) => (el as HTMLElement).offsetParent !== null || el.closest("footer"))
        .map((el) => Number(el.tagName[1])),
    );
  expect(
    levels.filter((l) => l === 1),
    `${label}: one h1`,
  ).toHaveLength(1);
  expect(levels[0], `${label}: h1 first`).toBe(1);
  for (let i = 1; i < levels.length; i++) {
    expect(levels[i]! - levels[i - 1]!, `${label}: no skipped heading level`).toBeLessThanOrEqual(1);
  }
}
