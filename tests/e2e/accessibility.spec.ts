import { expectNoAxeViolations, expectOneH1AndOrderedHeadings } from "./a11y";
import { expect, test, hydrated } from "./fixtures";

const PAGES = ["/", "/stonework", "/landscaping", "/contact", "/no-such-page"];

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
