import { expect, isPhone, signIn, test } from "./fixtures";
import { expectNoAxeViolations } from "./admin-helpers";

// Issue 19 §9: the security log on the dashboard, in the owner's words, on a phone too.

test("Recent activity shows this sign-in in words, and the security filter, without sideways scrolling", async ({ page }, testInfo) => {
  await signIn(page);
  const browser = isPhone(testInfo) ? "Chrome on Android" : "Chrome on Linux";

  await page.getByRole("navigation", { name: "Dashboard sections" }).getByRole("link", { name: "Activity" }).click();
  const card = page.getByRole("region", { name: "Recent activity" });
  await expect(card.getByRole("heading", { name: "Recent activity" })).toBeFocused();
  const list = card.getByRole("list", { name: "Recent activity, newest first" });
  // This browser's sign-in (other tests may sign in on the same server: look for ours).
  await expect(list.getByRole("listitem").filter({ hasText: "Signed in with password" }).filter({ hasText: browser }).first()).toBeVisible();

  await card.getByRole("checkbox", { name: "Security events only" }).check();
  await expect(list.getByRole("listitem").filter({ hasText: /^Saved the text/ })).toHaveCount(0);
  await expect(list.getByRole("listitem").filter({ hasText: "Signed in with password" }).first()).toBeVisible();

  // Phone-friendly: nothing in the card is wider than the screen.
  const overflow = await page.evaluate(() => document.documentElement.scrollWidth - document.documentElement.clientWidth);
  expect(overflow).toBeLessThanOrEqual(0);
  await expectNoAxeViolations(page, "recent activity");
});
