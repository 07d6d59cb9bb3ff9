// @phone-only: toasts sit over the site header only on a phone; the desktop has no such placement to check
import type { Page } from "@playwright/test";
import { CONTENT_UPDATED } from "~/admin/texts/section-editor";
import { adminControls, type ControlBox } from "./admin-controls";
import { editorSection, expectToast, jpegFile, toastRegion, uploadInput } from "./admin-helpers";
import { signInApi } from "../support/sign-in-api";
import { ADMIN_VIEWS, openInApp, openUploadWindow, OWNER_PHONE, settled } from "./admin-screens";
import { expect, test } from "./fixtures";

// A toast never covers a control: on the owner's phone, each of the admin's toasts, shown in each admin
// view (at its top and scrolled to its end) and over the upload window, leaves every control uncovered.

test.use({
  serverSetup: { name: "admin-toasts", seed: { galleries: { traditional: 2 } } },
  viewport: OWNER_PHONE,
  isMobile: true,
  hasTouch: true,
});

test.beforeEach(async ({ page }) => {
  await signInApi(page.request);
});

/**
 * Every toast of the admin, as it reads (names and addresses at a usual
 * length). The spec's, then the admin's own.
 */
const ADMIN_TOASTS: [title: string, description: string][] = [
  [CONTENT_UPDATED.title, CONTENT_UPDATED.description],
  ["Error", "Failed to update content. Please try again."],
  ["Unauthorized", "You are logged out. Logging in again..."],
  ["Success", "Image uploaded successfully"],
  ["Success", "Caption updated successfully"],
  ["Success", "Gallery order updated"],
  ["Upload failed", "basalt-wall.jpg: Failed to upload image"],
  ["Delete failed", "Failed to delete image"],
  ["Reorder failed", "Failed to reorder images"],
  ["Login Failed", "Invalid username or password. Please try again."],
  ["Logout failed", "Please try again."],
  ["Password Changed", "Every other phone and computer was signed out."],
  ["Passkey Added", '"Chrome on an Android phone" can now sign in.'],
  ["Passkey Removed", '"Chrome on an Android phone" can no longer sign in.'],
  ["Two-Step Verification On", "Signing in now also needs a code from your app."],
  ["Copy Failed", "Select the codes and copy them by hand."],
  ["Test e-mail sent", "Check the inbox of mark@stonemasonry.co.nz."],
  ["Test e-mail failed", "Ask whoever runs your website to look at it."],
  ["Sending again", "The e-mail about Aroha Te Whare's enquiry is on its way."],
  ["Enquiry deleted", "The enquiry from Aroha Te Whare was deleted."],
  ["Update failed", "Could not mark the enquiry as unread."],
  ["Version Restored", "The website now shows the restored text."],
];

/** The toast on screen (also while a modal hides the notification area from the accessibility tree). */
const theToast = (page: Page) => page.locator("[data-variant]");

/**
 * Radix pauses a toast's 5 s while the window is not focused: the toast stays while the test looks.
 * A tap can resume it (a focus or pointer event that Radix reads as the owner coming back), and a
 * busy machine then eats the rest of its 5 s between two views: the pause is given again every 50 ms.
 */
const holdToast = (page: Page) =>
  page.evaluate(() => {
    const pause = () => window.dispatchEvent(new Event("blur"));
    pause();
    window.setInterval(pause, 50);
  });

/**
 * The screen's controls as far as a toast could cover them. A control's part
 * under the sticky site header is already out of reach (the header covers
 * it), as is a part scrolled out of its window or list: only what shows
 * counts. A modal's controls lie over the header.
 */
async function reachableControls(page: Page): Promise<Omit<ControlBox, "visible">[]> {
  const modalOpen = (await page.getByRole("dialog").count()) > 0;
  const header = (await page.locator("header").first().boundingBox())!;
  const headerBottom = modalOpen ? -Infinity : header.y + header.height;
  return (await adminControls(page))
    .filter((control) => !control.control.includes("Close notification"))
    .flatMap(({ control, visible }) => {
      if (!visible) return [];
      const top = Math.max(visible.y, headerBottom);
      const bottom = visible.y + visible.height;
      return bottom > top ? [{ control, x: visible.x, y: top, width: visible.width, height: bottom - top }] : [];
    });
}

/**
 * Shows each of the admin's toasts in the toast on screen (its own element
 * and styles, with the words replaced), and lists every control a point of
 * it covers.
 */
async function coveredByEachToast(page: Page, where: string, toasts = ADMIN_TOASTS): Promise<string[]> {
  const toast = theToast(page);
  await toast.evaluate((element) => Promise.all(element.getAnimations().map((animation) => animation.finished)));
  const controls = await reachableControls(page);
  return toast.evaluate(
    (element, { toasts, controls, where }) => {
      const [titleElement, descriptionElement] = element.firstElementChild!.querySelectorAll(":scope > *");
      const covered: string[] = [];
      for (const [title, description] of toasts) {
        titleElement!.textContent = title;
        descriptionElement!.textContent = description;
        const box = element.getBoundingClientRect();
        for (const c of controls) {
          if (c.x < box.right && box.left < c.x + c.width && c.y < box.bottom && box.top < c.y + c.height) {
            covered.push(
              `${where}, "${title}: ${description}" (${box.top.toFixed(0)}–${box.bottom.toFixed(0)} px) covers ${c.control} (${c.y.toFixed(0)}–${(c.y + c.height).toFixed(0)} px)`,
            );
          }
        }
      }
      return covered;
    },
    { toasts, controls, where },
  );
}

/** How tall the tallest of the admin's toasts is on this screen. */
const tallestToast = (page: Page) =>
  theToast(page).evaluate((element, toasts) => {
    const [titleElement, descriptionElement] = element.firstElementChild!.querySelectorAll(":scope > *");
    return Math.max(
      ...toasts.map(([title, description]) => {
        titleElement!.textContent = title;
        descriptionElement!.textContent = description;
        return element.getBoundingClientRect().bottom;
      }),
    );
  }, ADMIN_TOASTS);

test("each toast, in each admin view at its top and at its end, covers no control", async ({ page }) => {
  test.setTimeout(240_000);
  await page.goto("/admin");
  await settled(page);
  // A real toast to start with: Logout fails.
  await page.route("**/api/logout", (route) => route.fulfill({ status: 500, body: "{}" }));
  await page.getByRole("button", { name: "Logout" }).click();
  await expectToast(page, "Logout failed", "Please try again.");
  await holdToast(page);
  // The close button is a full 44 px to tap.
  const close = (await toastRegion(page).getByRole("button", { name: "Close notification" }).boundingBox())!;
  expect(Math.min(close.width, close.height)).toBeGreaterThanOrEqual(44);

  // Every toast stays within the site header's band at the top of the screen.
  const header = (await page.locator("header").first().boundingBox())!;
  expect(await tallestToast(page)).toBeLessThanOrEqual(header.y + header.height);

  const covered: string[] = [];
  for (const view of ADMIN_VIEWS) {
    await openInApp(page, view);
    await expect(theToast(page)).toHaveCount(1);
    covered.push(...(await coveredByEachToast(page, `${view.name}, top`)));
    await page.evaluate(() => window.scrollTo({ top: document.documentElement.scrollHeight }));
    covered.push(...(await coveredByEachToast(page, `${view.name}, end`)));
  }
  expect(covered).toEqual([]);
});

test("each toast over the upload window covers none of its controls", async ({ page }) => {
  await page.goto("/admin");
  await openInApp(
    page,
    ADMIN_VIEWS.find((view) => view.name === "gallery-traditional")!,
  );
  await openUploadWindow(page);
  // A real toast over the window: the upload fails. A 500 is not retried (a 503 would be, for about 15 s).
  await page.route("**/api/uploads/**", (route) =>
    route.fulfill({ status: 500, contentType: "application/json", body: '{"message":"Failed to upload image"}' }),
  );
  await page
    .getByRole("dialog", { name: "Upload Images" })
    .getByRole("button", { name: /^Upload 1 Image/ })
    .click();
  await expect(theToast(page)).toHaveCount(1);
  await holdToast(page);
  expect(await coveredByEachToast(page, "upload window")).toEqual([]);
  // And with more files, the window's list scrolled to its end.
  await uploadInput(page).setInputFiles(
    await Promise.all(["a", "b", "c", "d", "e"].map((name) => jpegFile(`${name}.jpg`))),
  );
  await page
    .getByRole("dialog", { name: "Upload Images" })
    .evaluate((dialog) => dialog.scrollTo({ top: dialog.scrollHeight }));
  expect(await coveredByEachToast(page, "upload window, scrolled")).toEqual([]);
});

test("a real toast, where it happens: Content Updated after saving a section half-way down the editor", async ({
  page,
}) => {
  await page.goto("/admin?view=content:homepage");
  await settled(page);
  const section = editorSection(page, "About Snippet Text");
  await section.getByRole("textbox").fill("Twenty years of stonework in Taranaki.");
  await section.getByRole("button", { name: "Save Changes" }).click();
  await expectToast(page, CONTENT_UPDATED.title, CONTENT_UPDATED.description);
  await holdToast(page);
  expect(await page.evaluate(() => window.scrollY)).toBeGreaterThan(0);
  expect(
    await coveredByEachToast(page, "content editor, saved half-way down", [
      [CONTENT_UPDATED.title, CONTENT_UPDATED.description],
    ]),
  ).toEqual([]);
});
