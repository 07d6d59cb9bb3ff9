// @phone-only: it sets its own phone-sized screen
import type { Page } from "@playwright/test";
import { REVIEWS_AND_TOWNS } from "../support/seed";
import { expect, hydrated, test } from "./fixtures";
import { PUBLIC_PAGE_PATHS } from "~/public-pages";

/**
 * Tap targets on the public pages, measured on the page at a phone's size: every link, button and
 * field is at least 24 × 24 CSS px (WCAG 2.2 AA, 2.5.8), and the primary actions at least 44 px tall.
 * The sizes are written out here, not taken from the styles under test.
 */
const MINIMUM = 24;
const PRIMARY = 44;

// With reviews and the towns served showing: their links are measured too.
test.use({ viewport: { width: 390, height: 844 }, serverSetup: { seed: REVIEWS_AND_TOWNS } });

type Target = { label: string; width: number; height: number };

/** Every visible link, button, summary and field on the page, with its box (the open menu's links too). */
async function targets(page: Page): Promise<Target[]> {
  return page.evaluate(() => {
    const found: { label: string; width: number; height: number }[] = [];
    for (const element of document.querySelectorAll<HTMLElement>(
      "a[href], button, summary, input:not([type=hidden]), select, textarea",
    )) {
      const style = getComputedStyle(element);
      if (style.visibility === "hidden" || element.closest("[aria-hidden=true], [hidden]")) continue;
      const box = element.getBoundingClientRect();
      if (box.width === 0 && box.height === 0) continue; // not shown (a closed menu's links, the honeypot's wrapper)
      // Visually hidden until focused (the skip link, measured focused below).
      if (
        style.clip === "rect(0px, 0px, 0px, 0px)" ||
        style.clipPath === "inset(50%)" ||
        box.right <= 0 ||
        box.bottom <= 0
      )
        continue;
      const label = (
        element.getAttribute("aria-label") ||
        element.textContent ||
        element.getAttribute("name") ||
        element.tagName
      )
        .trim()
        .replace(/\s+/g, " ");
      found.push({
        label: `${element.tagName.toLowerCase()} "${label.slice(0, 40)}"`,
        width: Math.round(box.width * 10) / 10,
        height: Math.round(box.height * 10) / 10,
      });
    }
    return found;
  });
}

for (const path of PUBLIC_PAGE_PATHS) {
  test(`${path}: every link, button and field is at least 24 × 24 px`, async ({ page }) => {
    await page.goto(path);
    await hydrated(page);
    const all = await targets(page);
    // The skip link, as it shows once focused by the first Tab.
    await page.keyboard.press("Tab");
    const skip = page.getByRole("link", { name: "Skip to main content" });
    await expect(skip).toBeFocused();
    const skipBox = (await skip.boundingBox())!;
    all.push({ label: "skip link (focused)", width: skipBox.width, height: skipBox.height });
    const small = all.filter((target) => target.width < MINIMUM || target.height < MINIMUM);
    expect(small).toEqual([]);
  });
}

test("the primary actions are at least 44 px tall: Get a Quote, View Portfolio, Send Message, and the call and e-mail links on /contact", async ({
  page,
}) => {
  await page.goto("/");
  const heights: Record<string, number> = {};
  for (const name of ["Get a Quote", "View Portfolio"]) {
    heights[name] = (await page.getByRole("link", { name, exact: true }).first().boundingBox())!.height;
  }
  await page.goto("/contact");
  const card = page.getByRole("region", { name: "Get In Touch" });
  heights["call"] = (await card.locator("a[href^='tel:']").boundingBox())!.height;
  heights["e-mail"] = (await card.locator("a[href^='mailto:']").boundingBox())!.height;
  heights["Send Message"] = (await page.getByRole("button", { name: "Send Message" }).boundingBox())!.height;
  for (const [name, height] of Object.entries(heights)) expect(height, name).toBeGreaterThanOrEqual(PRIMARY);
});
