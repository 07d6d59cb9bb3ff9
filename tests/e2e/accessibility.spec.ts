import { expectNoAxeViolations, expectOneH1AndOrderedHeadings } from "./a11y";
import { REVIEWS_AND_TOWNS } from "../support/seed";
import { expect, test, hydrated, menuButton } from "./fixtures";
import { PUBLIC_PAGE_PATHS } from "~/public-pages";

const PAGES = [...PUBLIC_PAGE_PATHS, "/no-such-page"];

for (const setup of [
  { name: "empty" },
  // With what the owner adds too: reviews on / and /contact, and the towns served.
  {
    name: "populated",
    seed: { galleries: { homepage: 2, traditional: 3, veneer: 2, landscaping: 2 }, ...REVIEWS_AND_TOWNS },
  },
]) {
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
  // The menu button exists below Tailwind's md breakpoint (768 px): checked at each size, on both projects.
  for (const width of [375, 767]) {
    test(`at ${width} px the mobile menu opens, has no violations, and closes`, async ({ page }) => {
      await page.setViewportSize({ width, height: 800 });
      await page.goto("/contact");
      await hydrated(page);
      const menu = menuButton(page);
      await expect(menu).toBeVisible();
      await expect(menu).toHaveAccessibleName("Open menu");
      await menu.click();
      const opened = page.locator("#mobile-menu");
      await expect(opened).toBeVisible();
      await expect(opened.getByRole("link")).toHaveCount(4);
      await expect(menu).toHaveAccessibleName("Close menu");
      await expectNoAxeViolations(page, `open menu at ${width} px`);
      await menu.click();
      await expect(opened).toBeHidden();
      await expect(menu).toHaveAccessibleName("Open menu");
    });
  }

  test("from 768 px there is no menu button: the navigation shows as it is", async ({ page }) => {
    await page.setViewportSize({ width: 768, height: 800 });
    await page.goto("/contact");
    await hydrated(page);
    await expect(menuButton(page)).toBeHidden();
    await expect(page.getByRole("banner").getByRole("navigation", { name: "Main" }).getByRole("link")).toHaveCount(4);
  });

  test("the contact form with errors has no violations", async ({ page }) => {
    await page.goto("/contact");
    await hydrated(page);
    await page.getByRole("button", { name: "Send Message" }).click();
    await expect(page.getByText("Name is required")).toBeVisible();
    await expectNoAxeViolations(page, "form errors");
  });

  test("a toast has no violations", async ({ page }) => {
    await page.route("**/api/contact", (route) => route.fulfill({ status: 500, body: "no" }));
    await page.goto("/contact");
    // Toasts are the island's: before it is there the form posts without JavaScript (decision 0055).
    await hydrated(page);
    await page.getByLabel("Name", { exact: true }).fill("A Person");
    await page.getByLabel("Email", { exact: true }).fill("a@example.nz");
    await page.getByLabel("Message", { exact: true }).fill("A message long enough.");
    await page.getByRole("button", { name: "Send Message" }).click();
    await expect(
      page.getByRole("region", { name: "Notifications (F8)" }).getByText("Error", { exact: true }),
    ).toBeVisible();
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
