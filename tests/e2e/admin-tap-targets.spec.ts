// @phone-only: it sets its own phone-sized screen
import { signInApi } from "../support/sign-in-api";
import { adminControls, controlsTooSmallToTap } from "./admin-controls";
import { ALL_ADMIN_SCREENS, OWNER_PHONE, sendEnquiryWithPhoto } from "./admin-screens";
import { expect, test } from "./fixtures";

// Nothing too small to tap: every control of every admin screen, on the owner's 390 × 844 phone, is at
// least 44 × 44 CSS px (Apple's guidelines; WCAG 2.5.5).

test.use({
  serverSetup: { name: "tap-targets", seed: { galleries: { traditional: 2 } } },
  viewport: OWNER_PHONE,
  isMobile: true,
  hasTouch: true,
});

test.beforeEach(async ({ page }) => {
  await signInApi(page.request);
  const inbox = (await (await page.request.get("/api/admin/contact-submissions/summary")).json()) as { total: number };
  // An enquiry with a phone number and a photo: Reply, Call, the photo and its viewer all show.
  if (inbox.total === 0) await sendEnquiryWithPhoto(page.request);
});

for (const screen of ALL_ADMIN_SCREENS) {
  test(`every control of ${screen.name} is at least 44 × 44 CSS px`, async ({ page }) => {
    await screen.open(page);
    // The measure finds the screen's controls (so an empty list below means something)…
    expect((await adminControls(page)).length).toBeGreaterThan(0);
    // …and none is too small.
    expect(await controlsTooSmallToTap(page)).toEqual([]);
  });
}

test("every control of the sign-in page is at least 44 × 44 CSS px", async ({ page }) => {
  await page.context().clearCookies();
  await page.goto("/admin");
  await expect(page.getByRole("heading", { level: 1, name: "Admin Access" })).toBeVisible();
  expect((await adminControls(page)).length).toBeGreaterThan(0);
  expect(await controlsTooSmallToTap(page)).toEqual([]);
});
