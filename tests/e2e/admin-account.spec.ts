import { TEST_ADMIN, expect, signIn, test } from "./fixtures";
import { expectNoAxeViolations, expectToast, openSettings } from "./admin-helpers";
import { signInApi } from "../support/sign-in-api";

// The owner's account, opened from the dashboard's "Your account" row, at phone and desktop sizes.

const NEW_PASSWORD = "a new long password for the owner";

test.describe("the Account view", () => {
  test("changes the password: other browsers are signed out, this one stays", async ({ page, browser, baseURL }) => {
    await signIn(page);
    // A second browser (another phone) signed in too, from another address.
    const other = await browser.newContext({ baseURL, extraHTTPHeaders: { "x-forwarded-for": "10.250.0.1" } });
    try {
      expect((await other.request.post("/api/login", { data: TEST_ADMIN })).status()).toBe(200);

      await openSettings(page, "Your account");
      await page.getByRole("button", { name: "Change Password" }).click();
      const dialog = page.getByRole("dialog", { name: "Change Password" });
      await expect(dialog).toBeVisible();
      await expectNoAxeViolations(page, "change password dialog");
      // The dialog's button fits on a phone's screen without scrolling the page sideways.
      const box = (await dialog.getByRole("button", { name: "Change Password" }).boundingBox())!;
      expect(box.x + box.width).toBeLessThanOrEqual(page.viewportSize()!.width);

      await dialog.getByLabel("Current password").fill(TEST_ADMIN.password);
      await dialog.getByLabel("New password", { exact: true }).fill("short");
      await dialog.getByLabel("Repeat the new password").fill("short");
      await dialog.getByRole("button", { name: "Change Password" }).click();
      await expect(dialog.getByText("The new password must be at least 8 characters")).toBeVisible();

      await dialog.getByLabel("New password", { exact: true }).fill(NEW_PASSWORD);
      await dialog.getByLabel("Repeat the new password").fill(NEW_PASSWORD);
      await dialog.getByRole("button", { name: "Change Password" }).click();
      await expectToast(page, "Password Changed", "Every other phone and computer was signed out.");
      await expect(dialog).toHaveCount(0);

      expect((await page.request.get("/api/auth/user")).status()).toBe(200);
      expect((await other.request.get("/api/auth/user")).status()).toBe(401);
      // Still signed in here: a reload keeps the Account view.
      await page.reload();
      await expect(page.getByRole("heading", { level: 1, name: "Your Account" })).toBeVisible();
    } finally {
      await other.close();
      // Back to the test password, so the test can run again on this server (--repeat-each).
      // (A no-op answering 400 when the test failed before the change.)
      await page.request.post("/api/admin/password", {
        data: { currentPassword: NEW_PASSWORD, newPassword: TEST_ADMIN.password, confirmPassword: TEST_ADMIN.password },
      });
    }
  });

  test("a wrong current password is shown on its field and changes nothing", async ({ page }) => {
    await signIn(page);
    await openSettings(page, "Your account");
    await page.getByRole("button", { name: "Change Password" }).click();
    const dialog = page.getByRole("dialog", { name: "Change Password" });
    await dialog.getByLabel("Current password").fill("not the password");
    await dialog.getByLabel("New password", { exact: true }).fill(NEW_PASSWORD);
    await dialog.getByLabel("Repeat the new password").fill(NEW_PASSWORD);
    await dialog.getByRole("button", { name: "Change Password" }).click();
    await expect(dialog.getByLabel("Current password")).toHaveAccessibleDescription(
      "The current password is not right",
    );
    await dialog.getByRole("button", { name: "Cancel" }).click();
    await expect(dialog).toHaveCount(0);
    expect((await page.request.post("/api/login", { data: TEST_ADMIN })).status()).toBe(200);
  });

  test("signs out everywhere, this browser included, after asking", async ({ page, browser, baseURL }) => {
    await signIn(page);
    const other = await browser.newContext({ baseURL, extraHTTPHeaders: { "x-forwarded-for": "10.250.0.2" } });
    try {
      expect((await other.request.post("/api/login", { data: TEST_ADMIN })).status()).toBe(200);
      await openSettings(page, "Your account");
      await page.getByRole("button", { name: "Sign Out Everywhere" }).click();
      const dialog = page.getByRole("dialog", { name: "Sign out everywhere?" });
      await expect(dialog).toContainText("this one included");
      await expectNoAxeViolations(page, "sign out everywhere dialog");
      const reload = page.waitForEvent("load");
      await dialog.getByRole("button", { name: "Sign Out Everywhere" }).click();
      await reload;
      await expect(page.getByRole("heading", { level: 1, name: "Admin Access" })).toBeVisible();
      expect((await page.request.get("/api/auth/user")).status()).toBe(401);
      expect((await other.request.get("/api/auth/user")).status()).toBe(401);
    } finally {
      await other.close();
    }
  });

  test("after failed sign-ins, the next good one shows how many and from how many addresses", async ({ page }) => {
    // A good sign-in first, so only this test's failures are counted.
    await signInApi(page.request);
    for (const address of ["10.251.0.1", "10.251.0.2", "10.251.0.2"]) {
      const res = await page.request.post("/api/login", {
        data: { username: TEST_ADMIN.username, password: "a wrong guess" },
        headers: { "x-forwarded-for": address },
      });
      expect(res.status()).toBe(401);
    }
    await page.request.post("/api/logout");
    await signIn(page);
    const notice = page.getByRole("region", { name: "Failed sign-in attempts" });
    await expect(notice).toContainText("3 failed sign-in attempts from 2 different addresses");
    await expectNoAxeViolations(page, "dashboard with the failed sign-ins notice");
    await expect(page.getByRole("link", { name: /^Activity/ })).toHaveAccessibleName(
      "Activity Needs attention: 3 failed sign-ins since last time",
    );
    // Seen once: the next sign-in starts afresh.
    await page.request.post("/api/logout");
    await signIn(page);
    await expect(page.getByRole("link", { name: /^Activity/ })).toHaveAccessibleName("Activity No failed sign-ins");
    await expect(notice).toHaveCount(0);
  });

  test("a link to /admin from another site (an e-mail, say) still opens the dashboard, despite SameSite=Strict", async ({
    page,
    baseURL,
  }) => {
    await signInApi(page.request);
    await page.route("https://mail.example/**", (route) =>
      route.fulfill({
        contentType: "text/html",
        body: `<!doctype html><title>Mail</title><a href="${baseURL}/admin">Open the admin</a>`,
      }),
    );
    await page.goto("https://mail.example/inbox");
    await page.getByRole("link", { name: "Open the admin" }).click();
    await expect(page.getByRole("heading", { level: 1, name: "Website Management" })).toBeVisible();
  });
});
