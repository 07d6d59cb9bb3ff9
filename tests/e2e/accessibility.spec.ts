import AxeBuilder from "@axe-core/playwright";
import type { Page } from "@playwright/test";
import { expect, test, hydrated } from "./fixtures";

/** axe-core with the WCAG 2.x A and AA rules (2.2 included). */
export async function expectNoAxeViolations(page: Page, label: string) {
  const results = await new AxeBuilder({ page })
    .withTags(["wcag2a", "wcag2aa", "wcag21a", "wcag21aa", "wcag22aa", "best-practice"])
    .analyze();
  const summary = results.violations.map((v) => `${v.id} (${v.impact}): ${v.nodes.map((n) => n.target.join(" ")).join(", ")}`);
  expect(summary, label).toEqual([]);
}

const PAGES = ["/", "/stonework", "/landscaping", "/contact", "/no-such-page"];

async function expectOneH1AndOrderedHeadings(page: Page, path: string) {
  const levels = await page.locator("h1, h2, h3, h4, h5, h6").evaluateAll((els) =>
    els.filter((el) => (el as HTMLElement).offsetParent !== null || el.closest("footer")).map((el) => Number(el.tagName[1])),
  );
  expect(levels.filter((l) => l === 1), `${path}: one h1`).toHaveLength(1);
  expect(levels[0], `${path}: h1 first`).toBe(1);
  for (let i = 1; i < levels.length; i++) {
    expect(levels[i]! - levels[i - 1]!, `${path}: no skipped heading level`).toBeLessThanOrEqual(1);
  }
}

for (const setup of [{ name: "empty" }, { name: "populated", seed: { galleries: { homepage: 2, traditional: 3, veneer: 2, landscaping: 2 } } }]) {
  test.describe(`accessibility (${setup.name} galleries)`, () => {
    test.use({ serverSetup: setup });

    for (const path of PAGES) {
      test(`${path} has no axe violations, landmarks and a logical heading order`, async ({ page }) => {
        await page.goto(path);
        await hydrated(page);
        await expect(page.getByRole("banner")).toHaveCount(1);
        await expect(page.getByRole("main")).toHaveCount(1);
        await expect(page.getByRole("contentinfo")).toHaveCount(1);
        await expectOneH1AndOrderedHeadings(page, path);
        await expectNoAxeViolations(page, path);
      });
    }
  });
}

test.describe("accessibility of states", () => {
  test("the open mobile menu and the contact form with errors have no violations", async ({ page }) => {
    await page.goto("/contact");
    await hydrated(page);
    const menu = page.getByRole("button", { name: "Open menu" });
    if (await menu.isVisible()) {
      await menu.click();
      await expectNoAxeViolations(page, "open menu");
      await page.getByRole("button", { name: "Close menu" }).click();
    }
    await page.getByRole("button", { name: "Send Message" }).click();
    await expect(page.getByText("Name is required")).toBeVisible();
    await expectNoAxeViolations(page, "form errors");
  });

  test("a toast has no violations", async ({ page }) => {
    await page.route("**/api/contact", (route) => route.fulfill({ status: 500, body: "no" }));
    await page.goto("/contact");
    await page.getByLabel("Name", { exact: true }).fill("A Person");
    await page.getByLabel("Email", { exact: true }).fill("a@example.nz");
    await page.getByLabel("Message", { exact: true }).fill("A message long enough.");
    await page.getByRole("button", { name: "Send Message" }).click();
    await expect(page.getByRole("region", { name: "Notifications (F8)" }).getByText("Error", { exact: true })).toBeVisible();
    await expectNoAxeViolations(page, "toast");
  });

  test("everything interactive shows a visible focus ring", async ({ page }) => {
    await page.goto("/");
    await hydrated(page);
    for (let i = 0; i < 12; i++) {
      await page.keyboard.press("Tab");
      const outline = await page.evaluate(() => {
        const el = document.activeElement as HTMLElement;
        const style = getComputedStyle(el);
        return { tag: el.tagName, style: style.outlineStyle, width: parseFloat(style.outlineWidth) };
      });
      expect(outline.style, `${outline.tag} #${i}`).not.toBe("none");
      expect(outline.width, `${outline.tag} #${i}`).toBeGreaterThanOrEqual(2);
    }
  });
});
