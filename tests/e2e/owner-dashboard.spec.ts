// @phone-only: it sets its own phone-sized screen
import fs from "node:fs/promises";
import path from "node:path";
import type { Page } from "@playwright/test";
import { expectNoAxeViolations, expectOneH1AndOrderedHeadings, expectToast, SETTINGS_ROWS } from "./admin-helpers";
import { signInApi } from "../support/sign-in-api";
import { OWNER_PHONE, settled } from "./admin-screens";
import { expect, hydrated, isPhone, test } from "./fixtures";

// The dashboard on the owner's 390 × 844 phone: two screens (the spec's cards, the notices that need
// him, then "Settings and reports"), each row opening its own sub-view, and the notices in plain words.

test.use({ viewport: OWNER_PHONE, isMobile: true, hasTouch: true });

test.beforeEach(({}, testInfo) => {
  test.skip(!isPhone(testInfo), "measured on the owner's phone; the phone project runs it at 390 × 844");
});

/** Where the shared footer starts, from the top of the page, in CSS px. */
const footerTop = (page: Page) =>
  page
    .locator("footer")
    .first()
    .evaluate((footer) => footer.getBoundingClientRect().top + window.scrollY);

test.describe("the generated first password", () => {
  // Nobody configured: the first start generates the password into DATA_DIR/secrets.
  test.use({ serverSetup: { name: "temporary-password", env: { ADMIN_USERNAME: "", ADMIN_PASSWORD: "" } } });

  test("with the banner and the e-mail-off notice, the footer starts within 1,700 px; the banner opens Change Password", async ({
    page,
    server,
  }) => {
    const file = await fs.readFile(path.join(server.dataDir, "secrets", "initial-admin-password"), "utf8");
    const username = /^username: (\S+)$/m.exec(file)![1]!;
    const password = /^password: (\S+)$/m.exec(file)![1]!;

    await page.goto("/admin");
    await hydrated(page);
    await page.getByLabel("Username").fill(username);
    await page.getByLabel("Password").fill(password);
    await page.getByRole("button", { name: "Sign In" }).click();
    await expect(page.getByRole("heading", { level: 1, name: "Website Management" })).toBeVisible();
    await settled(page);

    const banner = page.getByRole("region", { name: "Temporary password" });
    await expect(banner).toHaveText("You are using the temporary password. Change it now.");
    await expect(page.getByRole("region", { name: "E-mail notifications are off" })).toBeVisible();
    // The card of each list the owner edits is measured too (after the spec's three).
    await expect(page.getByRole("region", { name: "Customer Reviews" })).toBeVisible();
    // Measured in a phone's font: phones draw system-ui in Roboto or San Francisco, while this machine's is DejaVu
    // Sans, wide enough to wrap labels that no phone wraps. About two screens: 4,843 px before the dashboard was split.
    await page.addStyleTag({ content: 'body { font-family: Roboto, "Liberation Sans", Arial, sans-serif; }' });
    const top = await footerTop(page);
    test.info().annotations.push({ type: "footer top (px)", description: String(Math.round(top)) });
    expect(top).toBeLessThanOrEqual(1700);
    await expectNoAxeViolations(page, "dashboard with the temporary-password banner and the e-mail notice");

    await banner.getByRole("button", { name: "Change it now." }).tap();
    const dialog = page.getByRole("dialog", { name: "Change Password" });
    await expect(dialog).toBeVisible();
    expect(new URL(page.url()).search).toBe("?view=account");
    await dialog.getByLabel("Current password").fill(password);
    await dialog.getByLabel("New password", { exact: true }).fill("the owner's own long password");
    await dialog.getByLabel("Repeat the new password").fill("the owner's own long password");
    await dialog.getByRole("button", { name: "Change Password" }).click();
    await expectToast(page, "Password Changed");

    // Recorded in the database: gone from the dashboard, also after a reload.
    await page.getByRole("button", { name: "Back to Dashboard" }).tap();
    await expect(banner).toHaveCount(0);
    await page.reload();
    await expect(page.getByRole("heading", { level: 1, name: "Website Management" })).toBeVisible();
    await expect(page.getByRole("link", { name: /^Your account/ })).toHaveAccessibleName(
      "Your account Password, two-step: off",
    );
    await expect(banner).toHaveCount(0);
  });
});

test.describe("the phone dashboard", () => {
  test.use({ serverSetup: { name: "owner-dashboard" } });

  test.beforeEach(async ({ page }) => {
    await signInApi(page.request);
    await page.goto("/admin");
    await hydrated(page);
    await expect(page.getByRole("heading", { level: 1, name: "Website Management" })).toBeVisible();
  });

  test("the spec's three cards, then Settings and reports; each row opens its sub-view, Back returns, a reload stays", async ({
    page,
  }) => {
    // Five rows, each opened, reloaded and left: 58 s of the default 60 s on a loaded machine.
    test.setTimeout(150_000);
    await expect(page.locator("main").getByRole("heading", { level: 2 })).toHaveText([
      "Edit Website Text",
      "Manage Photo Galleries",
      "Contact Form Submissions",
      "Customer Reviews",
      "Settings and reports",
    ]);
    const rows = page.getByRole("region", { name: "Settings and reports" }).getByRole("link");
    await expect(rows).toHaveCount(5);
    await settled(page);
    expect(await footerTop(page)).toBeLessThanOrEqual(1700);
    await expectOneH1AndOrderedHeadings(page, "phone dashboard");

    for (const [row, heading] of Object.entries(SETTINGS_ROWS)) {
      const link = page.getByRole("link", { name: new RegExp(`^${row}\\b`) });
      const address = (await link.getAttribute("href"))!;
      await link.tap();
      const title = page.getByRole("heading", { level: 1, name: heading, exact: true });
      await expect(title).toBeFocused();
      expect(page.url()).toMatch(new RegExp(`${address.replace("?", "\\?")}$`));
      await expect(page.getByRole("heading", { name: "Website Management" })).toHaveCount(0);
      await expect(page.getByRole("button", { name: "Back to Dashboard" })).toBeVisible();

      // A reload keeps the owner where he was.
      await page.reload();
      await expect(title).toBeVisible();
      await settled(page);
      // The phone's Back returns to the dashboard.
      await page.goBack();
      await expect(page.getByRole("heading", { level: 1, name: "Website Management" })).toBeVisible();
      expect(new URL(page.url()).search).toBe("");
    }
    // And Back to Dashboard does the same.
    await page.getByRole("link", { name: /^Visits/ }).tap();
    await page.getByRole("button", { name: "Back to Dashboard" }).tap();
    await expect(page.getByRole("link", { name: /^Visits/ })).toBeFocused();
  });

  test("any other path under /admin is the 404 page; an unknown view is the dashboard", async ({ page }) => {
    for (const address of ["/admin/email", "/admin/backups", "/admin/view/email"]) {
      const response = await page.goto(address);
      expect(response!.status(), address).toBe(404);
      await expect(page.getByRole("heading", { level: 1, name: "404 Page Not Found" })).toBeVisible();
    }
    await page.goto("/admin?view=settings");
    await expect(page.getByRole("heading", { level: 1, name: "Website Management" })).toBeVisible();
  });

  test("the e-mail notice speaks plainly, with the technical detail under a disclosure", async ({ page }) => {
    const notice = page.getByRole("region", { name: "E-mail notifications are off" });
    await expect(notice.locator("p").first()).toHaveText(
      "Nobody is e-mailed about new enquiries. Check this page for them, or ask whoever runs your website to turn on e-mail.",
    );
    await expect(page.getByRole("link", { name: /^E-mail/ })).toHaveAccessibleName(
      "E-mail Needs attention: Off: enquiries are not e-mailed",
    );
    const detail = notice.getByText("SMTP_URL and MAIL_FROM are not set", { exact: false });
    await expect(detail).toBeHidden();
    await notice.getByText("Details for whoever runs your website", { exact: true }).tap();
    await expect(detail).toBeVisible();
    await expectNoAxeViolations(page, "phone dashboard, e-mail details open");
  });
});
