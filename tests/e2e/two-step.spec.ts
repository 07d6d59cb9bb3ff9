// @phone-only: the owner's flow on the phone; its checks never look at the layout
import fs from "node:fs/promises";
import { Secret, TOTP } from "otpauth";
import { backToDashboard, expectNoAxeViolations, expectToast, openSettings } from "./admin-helpers";
import { TEST_ADMIN, expect, signIn, test } from "./fixtures";

// Two-step verification through the dashboard and the login page, in the browser.

test("turn on two-step verification, sign in with a recovery code, turn it off", async ({ page }) => {
  await signIn(page);
  await openSettings(page, "Your account");
  const account = page.getByRole("region", { name: "Your Account" });
  await account.getByRole("button", { name: "Turn on two-step verification" }).click();
  const dialog = page.getByRole("dialog", { name: "Turn on two-step verification" });
  await dialog.getByLabel("Current password").fill(TEST_ADMIN.password);
  await dialog.getByRole("button", { name: "Continue" }).click();
  await expect(dialog.getByRole("img", { name: "QR code for your authenticator app" }).locator("svg")).toBeVisible();
  await expectNoAxeViolations(page, "two-step enrolment: the QR code");
  const secret = (await dialog.locator("code").textContent())!.trim();
  await dialog.getByLabel("6-digit code").fill(new TOTP({ secret: Secret.fromBase32(secret) }).generate());
  await dialog.getByRole("button", { name: "Turn On" }).click();

  const codes = dialog.getByRole("list", { name: "Recovery codes" }).getByRole("listitem");
  await expect(codes).toHaveCount(10);
  const recoveryCodes = await codes.allTextContents();
  await expectNoAxeViolations(page, "two-step enrolment: the recovery codes");
  const downloading = page.waitForEvent("download");
  await dialog.getByRole("button", { name: "Download (.txt)" }).click();
  const download = await downloading;
  expect(download.suggestedFilename()).toBe("recovery-codes.txt");
  expect(await fs.readFile((await download.path())!, "utf8")).toContain(recoveryCodes[9]!);
  await dialog.getByRole("button", { name: "Done" }).click();
  await expect(account).toContainText("10 of 10 recovery codes left");

  // Signing in now takes a second step.
  await backToDashboard(page);
  await expect(page.getByRole("link", { name: /^Your account/ })).toHaveAccessibleName(
    "Your account Password, two-step: on",
  );
  await page.getByRole("button", { name: "Logout" }).click();
  await page.waitForURL("/");
  await page.goto("/admin");
  await page.getByLabel("Username").fill(TEST_ADMIN.username);
  await page.getByLabel("Password").fill(TEST_ADMIN.password);
  await page.getByRole("button", { name: "Sign In", exact: true }).click();
  const code = page.getByLabel("Authentication code");
  await expectNoAxeViolations(page, "the authentication code step");
  await code.fill("000000");
  await page.getByRole("button", { name: "Verify" }).click();
  await expect(code).toHaveAccessibleDescription("Invalid authentication code");
  await code.fill(recoveryCodes[0]!);
  await page.getByRole("button", { name: "Verify" }).click();
  await expect(page.getByRole("heading", { name: "Website Management" })).toBeVisible();
  await openSettings(page, "Your account");
  await expect(account).toContainText("9 of 10 recovery codes left");
  await expectNoAxeViolations(page, "the Account card with two-step on");

  // Off again, with the password (and so the file can run again on this server).
  await account.getByRole("button", { name: "Turn off two-step verification" }).click();
  const off = page.getByRole("dialog", { name: "Turn off two-step verification" });
  await off.getByLabel("Current password").fill(TEST_ADMIN.password);
  await off.getByRole("button", { name: "Turn Off" }).click();
  await expectToast(page, "Two-Step Verification Off");
  await expect(account.getByRole("button", { name: "Turn on two-step verification" })).toBeVisible();
});
