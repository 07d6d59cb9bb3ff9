import type { Page } from "@playwright/test";
import { MAGIC } from "../../app/admin/test-files";
import {
  expectNoAxeViolations,
  expectToast,
  galleryImages,
  imageCards,
  jpegFile,
  openView,
  uploadInput,
} from "./admin-helpers";
import { signInApi } from "../support/sign-in-api";
import { expect, hydrated, isPhone, test } from "./fixtures";

// The upload modal shows what is going up; unsupported files are refused in the picker; a tip a
// touch screen can follow. At phone and desktop sizes.

test.use({ serverSetup: { name: "upload-modal", seed: { galleries: { traditional: 2 } } } });

async function openGallery(page: Page, title: string) {
  await signInApi(page.request);
  await page.goto("/admin");
  await openView(page, title, `${title} Gallery`);
}

/** Whether an image still loads from this (object) URL. */
const loadsFrom = (page: Page, src: string) =>
  page.evaluate(
    (url) =>
      new Promise<string>((resolve) => {
        const img = new Image();
        img.onload = () => resolve("alive");
        img.onerror = () => resolve("revoked");
        img.src = url;
      }),
    src,
  );

const fileItem = (page: Page, name: string) =>
  page
    .getByRole("dialog", { name: "Upload Images" })
    .getByRole("list", { name: "Chosen files" })
    .getByRole("listitem")
    .filter({ hasText: name });

test("two photos with captions; one fails, is retried on a new upload URL, and both captions reach the public page", async ({
  page,
}, testInfo) => {
  // Captions unique to this run, so the test can repeat on the same server.
  const run = `${testInfo.project.name} ${testInfo.repeatEachIndex} ${Date.now() % 100_000}`;
  const captions = { first: `Basalt wall, Ōakura (${run})`, second: `Schist steps (${run})` };
  const before = (await galleryImages(page.request, "veneer")).length;
  await openGallery(page, "Veneer Stonework");
  await page.getByRole("button", { name: "Upload Images" }).click();
  const dialog = page.getByRole("dialog", { name: "Upload Images" });

  const first = await jpegFile("first-wall.jpg", { width: 900, height: 600 });
  const second = await jpegFile("second-steps.jpg", { width: 600, height: 900 });
  await uploadInput(page).setInputFiles([first, second]);
  await expect(dialog.getByRole("list", { name: "Chosen files" }).getByRole("listitem")).toHaveCount(2);

  // Each file as a thumbnail (an object URL of the file itself), with its name and size.
  const thumbnail = fileItem(page, "first-wall.jpg").locator("img");
  await expect(thumbnail).toHaveAttribute("src", /^blob:/);
  await expect.poll(() => thumbnail.evaluate((img: HTMLImageElement) => img.complete && img.naturalWidth)).toBe(900);
  const thumbnailUrls = await dialog
    .locator("img")
    .evaluateAll((imgs) => imgs.map((img) => img.getAttribute("src") ?? ""));
  expect(thumbnailUrls).toHaveLength(2);
  expect(await loadsFrom(page, thumbnailUrls[1]!)).toBe("alive");
  await expect(fileItem(page, "first-wall.jpg")).toContainText(`${(first.buffer.length / 1024).toFixed(1)} KB`);

  // Captions typed as on a phone: the field is big enough not to zoom, and Enter closes the keyboard.
  const firstCaption = dialog.getByLabel("Caption for first-wall.jpg (optional)");
  expect(await firstCaption.evaluate((input) => parseFloat(getComputedStyle(input).fontSize))).toBeGreaterThanOrEqual(
    16,
  );
  await expect(firstCaption).toHaveAttribute("enterkeyhint", "done");
  await firstCaption.fill(captions.first);
  await firstCaption.press("Enter");
  await expect(firstCaption).not.toBeFocused();
  await dialog.getByLabel("Caption for second-steps.jpg (optional)").fill(captions.second);
  await expectNoAxeViolations(page, "upload modal with thumbnails and captions");

  // The second file's PUT fails once with a server error (a 503 would be tried again by itself: decision 0062);
  // everything else goes through.
  const puts: string[] = [];
  await page.route("**/api/uploads/**", async (route) => {
    if (route.request().method() !== "PUT") return route.fallback();
    puts.push(new URL(route.request().url()).pathname);
    if (puts.length === 2) {
      return route.fulfill({
        status: 500,
        contentType: "application/json",
        body: '{"message":"The server had a problem. Please try again."}',
      });
    }
    return route.fallback();
  });
  // Hold the first registration, to see that file's "Processing..." state.
  let release!: () => void;
  const held = new Promise<void>((resolve) => (release = resolve));
  let registrations = 0;
  const registered: { caption: string }[] = [];
  await page.route("**/api/admin/gallery-images", async (route) => {
    registrations += 1;
    registered.push(route.request().postDataJSON() as { caption: string });
    if (registrations === 1) await held;
    await route.fallback();
  });

  await dialog.getByRole("button", { name: "Upload 2 Image(s)" }).click();
  await expect(fileItem(page, "first-wall.jpg")).toContainText("Processing...");
  // The next photo is sent while the first is processed: its refused upload has failed by now.
  await expect(fileItem(page, "second-steps.jpg")).toContainText("Failed: The server had a problem.");
  await expect(dialog.getByRole("button", { name: /^Uploading\.\.\. \d+%$/ })).toBeDisabled();
  await expect(dialog.getByRole("progressbar", { name: "Upload progress" })).toBeVisible();
  await expect(dialog.getByRole("status")).toHaveText(
    "second-steps.jpg: Failed: The server had a problem. Please try again.",
  );
  release();

  await expectToast(
    page,
    "Upload failed",
    /1 of 2 images uploaded\. second-steps\.jpg: The server had a problem\. Please try again\./,
    "destructive",
  );
  await expect(dialog).toBeVisible();
  await expect(fileItem(page, "first-wall.jpg")).toContainText("Done");
  await expect(fileItem(page, "second-steps.jpg")).toContainText("Failed: The server had a problem. Please try again.");
  await expect(dialog.getByLabel("Caption for second-steps.jpg (optional)")).toHaveValue(captions.second);
  // The first finished last: the status says so; the second's failure stays on its row.
  await expect(dialog.getByRole("status")).toContainText("first-wall.jpg: Done");

  // Retry without choosing the file again: a new upload URL, then the dialog closes and resets.
  await dialog.getByRole("button", { name: "Retry second-steps.jpg" }).click();
  await expectToast(page, "Success", "Image uploaded successfully", "default");
  await expect(dialog).toHaveCount(0);
  expect(puts).toHaveLength(3);
  expect(new Set(puts).size).toBe(3);
  expect(registered.map((r) => r.caption)).toEqual([captions.first, captions.second]);

  // Every thumbnail's object URL was let go.
  for (const url of thumbnailUrls) expect(await loadsFrom(page, url)).toBe("revoked");
  await expect(imageCards(page)).toHaveCount(before + 2);
  await page.getByRole("button", { name: "Upload Images" }).click();
  await expect(
    page.getByRole("dialog", { name: "Upload Images" }).getByRole("button", { name: "Choose Files" }),
  ).toBeVisible();

  // Both captions on the public page, in upload order.
  const stored = (await galleryImages(page.request, "veneer")).slice(before).map((image) => image.caption);
  expect(stored).toEqual([captions.first, captions.second]);
  await page.goto("/stonework");
  await hydrated(page);
  for (const caption of Object.values(captions)) {
    await expect(page.locator('ul[data-gallery="veneer"] figcaption').filter({ hasText: caption })).toBeVisible();
  }
});

test("the picker refuses an iPhone HEIC photo by its bytes, before uploading anything", async ({ page }) => {
  await openGallery(page, "Hard Landscaping");
  const alerts: string[] = [];
  page.on("dialog", async (dialog) => {
    alerts.push(`${dialog.type()}: ${dialog.message()}`);
    await dialog.accept();
  });
  let uploads = 0;
  page.on("request", (request) => {
    // Anything that starts an upload or sends bytes (the upload window asks, by GET, whether uploads resume).
    if (request.method() === "GET") return;
    if (new URL(request.url()).pathname.startsWith("/api/uploads/") || request.url().endsWith("/api/objects/upload"))
      uploads += 1;
  });
  await page.getByRole("button", { name: "Upload Images" }).click();
  const dialog = page.getByRole("dialog", { name: "Upload Images" });
  const heic = Buffer.concat([Buffer.from(MAGIC.heic), Buffer.alloc(4096, 1)]);
  await uploadInput(page).setInputFiles([
    { name: "IMG_0412.HEIC", mimeType: "image/heic", buffer: heic },
    { name: "renamed.jpg", mimeType: "image/jpeg", buffer: heic },
    { name: "notes.txt", mimeType: "text/plain", buffer: Buffer.from("not a picture") },
    await jpegFile("keeper.jpg"),
  ]);
  await expect
    .poll(() => alerts)
    .toEqual([
      "alert: File IMG_0412.HEIC is not a supported image. Please use JPEG, PNG, WebP, AVIF or GIF.",
      "alert: File renamed.jpg is not a supported image. Please use JPEG, PNG, WebP, AVIF or GIF.",
      "alert: File notes.txt is not an image",
    ]);
  const files = dialog.getByRole("list", { name: "Chosen files" }).getByRole("listitem");
  await expect(files).toHaveCount(1);
  await expect(files).toContainText("keeper.jpg");
  expect(uploads).toBe(0);
});

test("the gallery tip fits the screen: press and hold on a touch screen, hover with a mouse", async ({
  page,
}, testInfo) => {
  await openGallery(page, "Traditional Stonework");
  await expect(imageCards(page).first()).toBeVisible();
  const tip = page.getByText(/^Tip: /).filter({ visible: true });
  await expect(tip).toHaveText(
    isPhone(testInfo)
      ? "Tip: Press and hold the handle to drag, tap a caption to edit."
      : "Tip: Drag images to reorder them, click captions to edit, hover for options.",
  );
});
