import { expect, isPhone, signIn, test } from "./fixtures";
import { expectNoAxeViolations, openSettings } from "./admin-helpers";

// The security log in the Activity view, in the owner's words, on a phone too.

test("Recent activity shows this sign-in in words, and the security filter, without sideways scrolling", async ({
  page,
}, testInfo) => {
  await signIn(page);
  const browser = isPhone(testInfo) ? "Chrome on an Android phone" : "Chrome on a Linux computer";

  await openSettings(page, "Activity");
  const card = page.getByRole("region", { name: "Recent activity" });
  await expect(page.getByRole("heading", { level: 1, name: "Recent activity" })).toBeFocused();
  const list = card.getByRole("list", { name: "Recent activity, newest first" });
  // This browser's sign-in (other tests may sign in on the same server: look for ours), from a place in words.
  const ours = list
    .getByRole("listitem")
    .filter({ hasText: "Signed in with password" })
    .filter({ hasText: browser })
    .first();
  await expect(ours).toBeVisible();
  await expect(ours).toContainText(/ · from a (new|usual) place · /);
  // The network is for whoever runs the website: only under the details.
  await expect(list).not.toContainText(/\d+\.\d+\.\d+\.\d+|\/24|\/48/);
  await card.getByText("Details for whoever runs your website").click();
  await expect(card.getByRole("list", { name: "Networks, newest first" })).toContainText(/\d+\.\d+\.\d+\.0\/24/);

  await card.getByRole("checkbox", { name: "Security events only" }).check();
  await expect(list.getByRole("listitem").filter({ hasText: /^Saved the text/ })).toHaveCount(0);
  await expect(list.getByRole("listitem").filter({ hasText: "Signed in with password" }).first()).toBeVisible();

  // Phone-friendly: nothing in the card is wider than the screen.
  const overflow = await page.evaluate(
    () => document.documentElement.scrollWidth - document.documentElement.clientWidth,
  );
  expect(overflow).toBeLessThanOrEqual(0);
  await expectNoAxeViolations(page, "recent activity");
});
