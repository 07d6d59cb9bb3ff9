import type { Page, Route } from "@playwright/test";
import { makeJpegOfSize } from "../fixtures/images";
import { backToDashboard, expectToast, galleryIds, imageCards, openView, uploadInput } from "./admin-helpers";
import { signInApi } from "../support/sign-in-api";
import { expect, isPhone, test } from "./fixtures";

// Uploads that go on in the background and survive a dropped signal (decision 0062): the owner closes the
// upload window and uses the dashboard while a tray shows the photo going up; leaving the admin asks first;
// a connection lost mid-photo resumes from the part in flight when the signal returns.

test.use({ serverSetup: { name: "background-uploads" } });

test.beforeEach(async ({ page }, testInfo) => {
  // The phone the owner uses: 390×844.
  if (isPhone(testInfo)) await page.setViewportSize({ width: 390, height: 844 });
});

const PART_BYTES = 1024 * 1024;
const tray = (page: Page) => page.getByRole("region", { name: "Photo uploads" });

/** A camera-sized photo: 3.5 MB, so four parts of at most 1 MiB through this server. */
async function cameraPhoto(name: string) {
  return { name, mimeType: "image/jpeg", buffer: await makeJpegOfSize(3_500_000) };
}

/** Holds the part requests matching `partNumber` until `release()`; counts every part sent, by number. */
async function partGate(page: Page, partNumber: number) {
  const sent = new Map<number, number>();
  let release!: () => void;
  const released = new Promise<void>((resolve) => (release = resolve));
  let reached!: () => void;
  const reachedGate = new Promise<void>((resolve) => (reached = resolve));
  await page.route(/\/api\/uploads\/resumable\/[^/]+\/parts\/\d+$/, async (route: Route) => {
    if (route.request().method() !== "PUT") return route.fallback();
    const number = Number(/(\d+)$/.exec(route.request().url())![1]);
    sent.set(number, (sent.get(number) ?? 0) + 1);
    if (number === partNumber) {
      reached();
      await released;
    }
    return route.fallback();
  });
  return { sent, reachedGate, release };
}

async function openGallery(page: Page) {
  await signInApi(page.request);
  await page.goto("/admin");
  await openView(page, "Veneer Stonework", "Veneer Stonework Gallery");
}

test("a photo keeps going up while the owner closes the window and uses the dashboard; the tray shows it; leaving asks first", async ({
  page,
}) => {
  // Many steps, on a 2-core machine shared with other runs: room beyond the default minute.
  test.slow();
  await openGallery(page);
  const before = (await galleryIds(page.request, "veneer")).length;
  const gate = await partGate(page, 3);

  await page.getByRole("button", { name: "Upload Images" }).click();
  const dialog = page.getByRole("dialog", { name: "Upload Images" });
  await uploadInput(page).setInputFiles([await cameraPhoto("after-the-job.jpg")]);
  await dialog.getByRole("button", { name: "Upload 1 Image(s)" }).click();
  await gate.reachedGate;

  // The window may be closed mid-upload, and says so.
  await expect(dialog.getByText("You can close this window: the photos keep uploading")).toBeVisible();
  await dialog.getByRole("button", { name: "Continue in background" }).click();
  await expect(dialog).toHaveCount(0);

  // The tray: the photo, its gallery, how far it is.
  await expect(tray(page)).toBeVisible();
  await expect(tray(page).getByRole("button", { name: "Uploading 1 photo" })).toBeVisible();
  const line = tray(page).getByRole("listitem").filter({ hasText: "after-the-job.jpg" });
  await expect(line).toContainText("Veneer Stonework");
  await expect(line).toContainText(/Uploading \d+%/);
  const percent = Number(await line.getByRole("progressbar").getAttribute("aria-valuenow"));
  expect(percent).toBeGreaterThanOrEqual(Math.floor(((2 * PART_BYTES) / 3_500_000) * 100));
  // On the phone it fits the screen, and leaves room for the page above it.
  const box = (await tray(page).boundingBox())!;
  const viewport = page.viewportSize()!;
  expect(box.x).toBeGreaterThanOrEqual(0);
  expect(box.x + box.width).toBeLessThanOrEqual(viewport.width);
  expect(box.y + box.height).toBeLessThanOrEqual(viewport.height);
  expect(box.height).toBeLessThan(viewport.height / 2);

  // The owner goes on with the dashboard: the tray follows.
  await backToDashboard(page);
  await expect(page.getByRole("heading", { name: "Manage Photo Galleries" })).toBeVisible();
  await expect(tray(page).getByRole("listitem").filter({ hasText: "after-the-job.jpg" })).toBeVisible();

  // Leaving the admin area while the photo goes up: the browser asks first, and staying keeps it going.
  const asked: string[] = [];
  page.once("dialog", async (question) => {
    asked.push(question.type());
    await question.dismiss();
  });
  await page.getByRole("link", { name: "View Website" }).click();
  await expect.poll(() => asked).toEqual(["beforeunload"]);
  await expect(page).toHaveURL(/\/admin/);
  // So does Logout, in the page's own words.
  await page.getByRole("button", { name: "Logout" }).click();
  const question = page.getByRole("dialog", { name: "Photos are still uploading" });
  await question.getByRole("button", { name: "Keep uploading" }).click();
  await expect(question).toHaveCount(0);
  await expect(page).toHaveURL(/\/admin/);

  gate.release();
  await expectToast(page, "Success", "Image uploaded successfully", "default");
  await expect(tray(page)).toHaveCount(0);
  // Every part went once, and the photo is in its gallery.
  expect([...gate.sent.entries()].sort(([a], [b]) => a - b)).toEqual([
    [1, 1],
    [2, 1],
    [3, 1],
    [4, 1],
  ]);
  await openView(page, "Veneer Stonework", "Veneer Stonework Gallery");
  await expect(imageCards(page)).toHaveCount(before + 1);
});

test("a signal lost mid-photo: the tray says so, and the photo resumes from the part in flight when it returns", async ({
  page,
  context,
}) => {
  await openGallery(page);
  const before = (await galleryIds(page.request, "veneer")).length;
  const sent = new Map<number, number>();
  let dropped = false;
  let offline = false;
  await page.route(/\/api\/uploads\/resumable\/[^/]+\/parts\/\d+$/, async (route: Route) => {
    if (route.request().method() !== "PUT") return route.fallback();
    // Without a signal nothing leaves the phone.
    if (offline) return route.abort("internetdisconnected");
    const number = Number(/(\d+)$/.exec(route.request().url())![1]);
    sent.set(number, (sent.get(number) ?? 0) + 1);
    // Part 3 is on its way when the phone loses its signal.
    if (number === 3 && !dropped) {
      dropped = true;
      offline = true;
      await context.setOffline(true);
      return route.abort("internetdisconnected");
    }
    return route.fallback();
  });

  await page.getByRole("button", { name: "Upload Images" }).click();
  const dialog = page.getByRole("dialog", { name: "Upload Images" });
  await uploadInput(page).setInputFiles([await cameraPhoto("dropped-signal.jpg")]);
  await dialog.getByRole("button", { name: "Upload 1 Image(s)" }).click();
  await dialog.getByRole("button", { name: "Continue in background" }).click();

  const line = tray(page).getByRole("listitem").filter({ hasText: "dropped-signal.jpg" });
  await expect(line).toContainText(/Waiting for the connection \(\d+% sent\)/);
  await expect(line.getByRole("progressbar")).toHaveAttribute(
    "aria-valuenow",
    String(Math.round(((2 * PART_BYTES) / 3_500_000) * 100)),
  );

  // The signal returns: the photo goes on by itself, from part 3.
  offline = false;
  await context.setOffline(false);
  await expectToast(page, "Success", "Image uploaded successfully", "default");
  await expect(tray(page)).toHaveCount(0);
  expect([...sent.entries()].sort(([a], [b]) => a - b)).toEqual([
    [1, 1],
    [2, 1],
    [3, 2],
    [4, 1],
  ]);
  await expect(imageCards(page)).toHaveCount(before + 1);
});
