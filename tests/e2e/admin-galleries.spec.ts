import type { APIRequestContext, Locator, Page, Request } from "@playwright/test";
import { MAX_UPLOAD_BYTES } from "~/galleries/gallery";
import {
  cardIds,
  closeToast,
  expectNoAxeViolations,
  expectOneH1AndOrderedHeadings,
  expectToast,
  expectUnauthorizedToastShown,
  galleryIds,
  galleryImages,
  imageCards,
  jpegFile,
  mouseDrag,
  openView,
  pressUntilAnnounced,
  publicGallerySources,
  recordToasts,
  uploadInput,
} from "./admin-helpers";
import { signInApi } from "../support/sign-in-api";
import { expect, hydrated, test } from "./fixtures";

const CAPTIONS = [
  "Dry-stacked basalt garden wall, Ōakura",
  "Lime-pointed heritage wall repair",
  "Stone entrance pillars, Inglewood",
];

async function openGallery(page: Page, title: string, prepare?: () => Promise<void>) {
  await signInApi(page.request);
  await prepare?.();
  await page.goto("/admin");
  await openView(page, title, `${title} Gallery`);
}

/** Deletes every image of a gallery through the API, so a test starts from an empty one. */
async function emptyGallery(request: APIRequestContext, type: string) {
  for (const id of await galleryIds(request, type)) {
    expect((await request.delete(`/api/admin/gallery-images/${id}`)).status()).toBe(204);
  }
}

/**
 * dnd-kit starts listening for the arrow keys a tick after the pick-up, once it has measured the
 * cards: press the key again only while nothing answered, as a person would.
 */
/** The image name a card's drag handle announces (its caption, or "traditional 2"). */
async function handleName(card: Locator): Promise<string> {
  const label = await card.getByRole("button", { name: /^Drag to reorder/ }).getAttribute("aria-label");
  return label!.replace(/^Drag to reorder /, "");
}

/** The public /stonework gallery shows the same images, in the same order, as the API lists. */
async function expectPublicGalleryMatches(page: Page, type: "traditional" | "veneer") {
  const images = await galleryImages(page.request, type);
  await page.goto("/stonework");
  await hydrated(page);
  if (images.length === 0) {
    await expect(page.locator(`ul[data-gallery="${type}"]`)).toHaveCount(0);
    return images;
  }
  await expect.poll(() => publicGallerySources(page, type)).toEqual(images.map((image) => image.imagePath));
  return images;
}

function kb(bytes: number) {
  return `${(bytes / 1024).toFixed(1)} KB`;
}

test.describe("uploading to an empty gallery", () => {
  test.use({ serverSetup: { name: "upload" } });

  test("uploads two images through the modal with real progress, then shows them here and on the public page", async ({
    page,
  }) => {
    // The page's timers run as usual, but the test can move them on.
    await page.clock.install();
    await openGallery(page, "Veneer Stonework", () => emptyGallery(page.request, "veneer"));
    await expect(page.getByText("No images yet")).toBeVisible();
    await expect(page.getByText("Upload your first image to get started")).toBeVisible();
    const before = (await galleryIds(page.request, "veneer")).length;

    await page.getByRole("button", { name: "Upload Images" }).click();
    const dialog = page.getByRole("dialog", { name: "Upload Images" });
    await expect(dialog).toBeVisible();
    await expect(dialog.getByText("Maximum 10 files, up to 20 MB each")).toBeVisible();
    await expect(dialog.getByRole("button", { name: "Choose Files" })).toBeVisible();

    const small = await jpegFile("small-wall.jpg", { width: 200, height: 150 });
    const large = await jpegFile("large-wall.jpg", { width: 1200, height: 900 });
    await uploadInput(page).setInputFiles([small, large]);
    const files = dialog.getByRole("list", { name: "Chosen files" }).getByRole("listitem");
    await expect(files).toHaveCount(2);
    await expect(files.nth(0)).toContainText("small-wall.jpg");
    await expect(files.nth(0)).toContainText(kb(small.buffer.length));
    await expect(files.nth(1)).toContainText("large-wall.jpg");
    await expect(files.nth(1)).toContainText(kb(large.buffer.length));
    await expect(dialog.getByRole("button", { name: "Add More" })).toBeVisible();
    await expect(dialog.getByRole("button", { name: "Choose Files" })).toHaveCount(0);

    // Nothing starts by itself.
    const uploads: Request[] = [];
    const registrations: unknown[] = [];
    page.on("request", (request) => {
      const { pathname } = new URL(request.url());
      if (request.method() === "PUT" && pathname.startsWith("/api/uploads/")) uploads.push(request);
      if (request.method() === "PUT" && pathname === "/api/admin/gallery-images")
        registrations.push(request.postDataJSON());
    });
    await page.clock.runFor(5_000);
    await expect(dialog.getByRole("button", { name: "Upload 2 Image(s)" })).toBeEnabled();
    expect(uploads).toHaveLength(0);

    // Hold the first file's registration: the progress then shows the first file's share of the bytes.
    let release!: () => void;
    const held = new Promise<void>((resolve) => (release = resolve));
    let registrationsSeen = 0;
    await page.route("**/api/admin/gallery-images", async (route) => {
      registrationsSeen += 1;
      if (registrationsSeen === 1) await held;
      await route.continue();
    });

    await dialog.getByRole("button", { name: "Upload 2 Image(s)" }).click();
    const share = Math.round((small.buffer.length / (small.buffer.length + large.buffer.length)) * 100);
    await expect(dialog.getByRole("button", { name: `Uploading... ${share}%` })).toBeVisible();
    await expect(dialog.getByRole("button", { name: `Uploading... ${share}%` })).toBeDisabled();
    await expect(dialog.getByRole("progressbar", { name: "Upload progress" })).toHaveAttribute(
      "aria-valuenow",
      String(share),
    );
    release();

    await expectToast(page, "Success", "Image uploaded successfully", "default");
    await expect(dialog).toHaveCount(0);
    await expect(imageCards(page)).toHaveCount(2);
    await expect(page.getByText("No images yet")).toHaveCount(0);

    // Each file went up raw (no multipart), in parts to this site's part route (one part each: they are small;
    // decision 0062), then was registered in order.
    expect(uploads).toHaveLength(2);
    for (const upload of uploads) {
      expect(new URL(upload.url()).pathname).toMatch(/^\/api\/uploads\/resumable\/[0-9a-f-]{36}\/parts\/1$/);
      expect(upload.postDataBuffer()?.subarray(0, 3)).toEqual(Buffer.from([0xff, 0xd8, 0xff]));
    }
    expect(registrations).toEqual([
      {
        imageURL: expect.stringMatching(/^\/api\/uploads\//),
        galleryType: "veneer",
        caption: "",
        sortOrder: String(before),
      },
      {
        imageURL: expect.stringMatching(/^\/api\/uploads\//),
        galleryType: "veneer",
        caption: "",
        sortOrder: String(before + 1),
      },
    ]);

    const ids = await galleryIds(page.request, "veneer");
    expect(ids).toHaveLength(before + 2);
    expect(await cardIds(page)).toEqual(ids);
    await expect(imageCards(page).first().getByRole("button", { name: "Click to add caption" })).toBeVisible();
    await expectPublicGalleryMatches(page, "veneer");

    // A new upload starts from an empty list.
    await page.goto("/admin?view=gallery:veneer");
    await page.getByRole("button", { name: "Upload Images" }).click();
    await expect(
      page.getByRole("dialog", { name: "Upload Images" }).getByRole("button", { name: "Choose Files" }),
    ).toBeVisible();
  });

  test("the picker alerts about non-images and files over 20 MB, and keeps at most 10 files", async ({ page }) => {
    await openGallery(page, "Traditional Stonework");
    const alerts: string[] = [];
    page.on("dialog", async (dialog) => {
      alerts.push(`${dialog.type()}: ${dialog.message()}`);
      await dialog.accept();
    });
    await page.getByRole("button", { name: "Upload Images" }).click();
    const dialog = page.getByRole("dialog", { name: "Upload Images" });
    await uploadInput(page).setInputFiles([
      { name: "notes.txt", mimeType: "text/plain", buffer: Buffer.from("not a picture") },
      { name: "huge.jpg", mimeType: "image/jpeg", buffer: Buffer.alloc(MAX_UPLOAD_BYTES + 1) },
      await jpegFile("keeper.jpg"),
    ]);
    await expect
      .poll(() => alerts)
      .toEqual(["alert: File notes.txt is not an image", "alert: File huge.jpg is too large. Maximum size is 20MB"]);
    const files = dialog.getByRole("list", { name: "Chosen files" }).getByRole("listitem");
    await expect(files).toHaveCount(1);
    await expect(files).toContainText("keeper.jpg");

    const twelve = await Promise.all(
      Array.from({ length: 12 }, (_, i) => jpegFile(`photo-${i + 1}.jpg`, { width: 40, height: 30 })),
    );
    await uploadInput(page).setInputFiles(twelve);
    await expect(files).toHaveCount(10);
    await expect(files.first()).toContainText("keeper.jpg");
    await expect(files.last()).toContainText("photo-9.jpg");
    await expect(dialog.getByRole("button", { name: "Upload 10 Image(s)" })).toBeVisible();

    await dialog.getByRole("button", { name: "Remove photo-3.jpg" }).click();
    await expect(files).toHaveCount(9);
    await expect(dialog.getByText("photo-3.jpg")).toHaveCount(0);
    await expect(dialog.getByRole("button", { name: "Upload 9 Image(s)" })).toBeVisible();
    await expectNoAxeViolations(page, "upload modal with files");

    // Cancel uploads nothing and forgets the list.
    await dialog.getByRole("button", { name: "Cancel" }).click();
    await expect(dialog).toHaveCount(0);
    expect(await galleryIds(page.request, "traditional")).toEqual([]);
    await page.getByRole("button", { name: "Upload Images" }).click();
    await expect(
      page.getByRole("dialog", { name: "Upload Images" }).getByRole("button", { name: "Choose Files" }),
    ).toBeVisible();
    await page.keyboard.press("Escape");
    await expect(page.getByRole("dialog")).toHaveCount(0);
    await expect(page.getByRole("button", { name: "Upload Images" })).toBeFocused();
    expect(alerts).toHaveLength(2);
  });

  test("a refused file is reported as 'Upload failed' while the others still upload", async ({ page }) => {
    await openGallery(page, "Hard Landscaping");
    const before = await galleryIds(page.request, "landscaping");
    await page.getByRole("button", { name: "Upload Images" }).click();
    const dialog = page.getByRole("dialog", { name: "Upload Images" });
    await uploadInput(page).setInputFiles([
      {
        name: "fake.jpg",
        mimeType: "image/jpeg",
        buffer: Buffer.from("\xff\xd8\xff but the rest is not a JPEG at all", "latin1"),
      },
      await jpegFile("real.jpg"),
    ]);
    await dialog.getByRole("button", { name: "Upload 2 Image(s)" }).click();
    await expectToast(
      page,
      "Upload failed",
      /1 of 2 images uploaded\. fake\.jpg: The image could not be read/,
      "destructive",
    );
    await expect(dialog.getByText(/^Failed: The image could not be read/)).toBeVisible();
    await dialog.getByRole("button", { name: "Cancel" }).click();
    await expect(imageCards(page)).toHaveCount(before.length + 1);
    expect(await galleryIds(page.request, "landscaping")).toHaveLength(before.length + 1);
  });

  test("a server failure shows 'Upload failed' with its message", async ({ page }) => {
    await openGallery(page, "Homepage Hero Images");
    // Whichever way the photo would go up: in parts (decision 0062), or in one PUT.
    for (const start of ["**/api/objects/upload", "**/api/uploads/resumable"]) {
      await page.route(start, (route) =>
        route.request().method() === "POST"
          ? route.fulfill({
              status: 500,
              contentType: "application/json",
              body: '{"message":"Failed to upload image"}',
            })
          : route.fallback(),
      );
    }
    await page.getByRole("button", { name: "Upload Images" }).click();
    await uploadInput(page).setInputFiles([await jpegFile("hero.jpg")]);
    await page.getByRole("button", { name: "Upload 1 Image(s)" }).click();
    await expectToast(page, "Upload failed", "Failed to upload image", "destructive");
    await expect(page.getByText("No images yet")).toBeVisible();
    expect(await galleryIds(page.request, "homepage")).toEqual([]);
  });

  test("a lost session during an upload shows 'Unauthorized' and the login page", async ({ page, context }) => {
    await openGallery(page, "Homepage Hero Images");
    await page.getByRole("button", { name: "Upload Images" }).click();
    await uploadInput(page).setInputFiles([await jpegFile("hero.jpg")]);
    await context.clearCookies();
    const toasts = await recordToasts(page);
    await page.getByRole("button", { name: "Upload 1 Image(s)" }).click();
    await expectUnauthorizedToastShown(toasts);
    await expect(page.getByRole("heading", { level: 1, name: "Admin Access" })).toBeVisible();
  });
});

test.describe("captions", () => {
  test.use({ serverSetup: { name: "captions", seed: { galleries: { traditional: 4 } } } });

  test("click to add a caption; Cancel discards it, Save stores it and the public page shows it", async ({ page }) => {
    // The fourth image starts without a caption, whatever an earlier run stored.
    await openGallery(page, "Traditional Stonework", async () => {
      const fourth = (await galleryImages(page.request, "traditional"))[3]!;
      expect(
        (await page.request.patch(`/api/admin/gallery-images/${fourth.id}`, { data: { caption: "" } })).status(),
      ).toBe(200);
    });
    await expect(imageCards(page)).toHaveCount(4);
    const last = imageCards(page).nth(3);
    await expect(last.getByRole("img")).toHaveAttribute("alt", "traditional 4");
    await expect(last.getByRole("img")).toHaveAttribute("loading", "lazy");

    await last.getByRole("button", { name: "Click to add caption" }).click();
    const field = last.getByLabel("Caption");
    await expect(field).toBeFocused();
    await field.fill("A draft to throw away");
    await last.getByRole("button", { name: "Cancel" }).click();
    await expect(last.getByLabel("Caption")).toHaveCount(0);
    await expect(last.getByRole("button", { name: "Click to add caption" })).toBeVisible();
    await last.getByRole("button", { name: "Click to add caption" }).click();
    await expect(last.getByLabel("Caption")).toHaveValue("");

    await last.getByLabel("Caption").fill("Basalt steps, Ōakura");
    await last.getByRole("button", { name: "Save" }).click();
    await expectToast(page, "Success", "Caption updated successfully", "default");
    await expect(last.getByLabel("Caption")).toHaveCount(0);
    await expect(last.getByRole("button", { name: "Edit caption: Basalt steps, Ōakura" })).toBeVisible();
    await expect(last.getByRole("img")).toHaveAttribute("alt", "Basalt steps, Ōakura");

    const images = await expectPublicGalleryMatches(page, "traditional");
    expect(images[3]!.caption).toBe("Basalt steps, Ōakura");
    await expect(
      page.locator('ul[data-gallery="traditional"] figcaption').filter({ hasText: "Basalt steps, Ōakura" }),
    ).toBeVisible();
  });

  test("an existing caption opens with its text, and a failed save says 'Update failed'", async ({ page }) => {
    await openGallery(page, "Traditional Stonework");
    const first = imageCards(page).first();
    await first.getByRole("button", { name: `Edit caption: ${CAPTIONS[0]}` }).click();
    await expect(first.getByLabel("Caption")).toHaveValue(CAPTIONS[0]!);
    await page.route("**/api/admin/gallery-images/*", (route) =>
      route.request().method() === "PATCH"
        ? route.fulfill({ status: 500, contentType: "application/json", body: '{"message":"boom"}' })
        : route.fallback(),
    );
    await first.getByLabel("Caption").fill("Will not stick");
    await first.getByRole("button", { name: "Save" }).click();
    await expectToast(page, "Update failed", "Failed to update caption", "destructive");
    await expect(first.getByLabel("Caption")).toHaveValue("Will not stick");
    expect((await galleryImages(page.request, "traditional"))[0]!.caption).toBe(CAPTIONS[0]);
  });
});

test.describe("reordering by keyboard", () => {
  test.use({ serverSetup: { name: "reorder-keyboard", seed: { galleries: { traditional: 3 } } } });

  test("Space picks an image up, an arrow moves it, Space drops it; the order is saved and shown", async ({ page }) => {
    await openGallery(page, "Traditional Stonework");
    const [a, b, c] = await galleryIds(page.request, "traditional");
    await expect(imageCards(page)).toHaveCount(3);
    expect(await cardIds(page)).toEqual([a, b, c]);
    const liveRegion = page.locator('[id^="DndLiveRegion"]');
    const first = await handleName(imageCards(page).first());

    await page.getByRole("button", { name: `Drag to reorder ${first}`, exact: true }).focus();
    await page.keyboard.press("Space");
    await expect(liveRegion).toHaveText(`Picked up ${first}, position 1 of 3.`);
    await pressUntilAnnounced(page, "ArrowRight", liveRegion, "is over position 2 of 3.");
    await expect(imageCards(page).nth(1)).toHaveAttribute("data-drop-target", "true");
    await page.keyboard.press("Space");
    await expect(liveRegion).toContainText("was dropped at position 2 of 3.");

    await expectToast(page, "Success", "Gallery order updated", "default");
    await expect.poll(() => cardIds(page)).toEqual([b, a, c]);
    await expect(imageCards(page).nth(1)).not.toHaveAttribute("data-drop-target", "true");
    expect(await galleryIds(page.request, "traditional")).toEqual([b, a, c]);
    await expectPublicGalleryMatches(page, "traditional");
  });

  test("Escape cancels a keyboard move", async ({ page }) => {
    await openGallery(page, "Traditional Stonework");
    const before = await galleryIds(page.request, "traditional");
    let reorders = 0;
    page.on("request", (request) => {
      if (request.url().endsWith("/api/admin/gallery-images/reorder")) reorders += 1;
    });
    await imageCards(page)
      .first()
      .getByRole("button", { name: /^Drag to reorder/ })
      .focus();
    await page.keyboard.press("Space");
    await expect(page.locator('[id^="DndLiveRegion"]')).toContainText("Picked up");
    await pressUntilAnnounced(page, "ArrowRight", page.locator('[id^="DndLiveRegion"]'), "is over position 2 of 3.");
    await page.keyboard.press("Escape");
    await expect(page.locator('[id^="DndLiveRegion"]')).toContainText("Moving was cancelled.");
    expect(await cardIds(page)).toEqual(before);
    expect(reorders).toBe(0);
  });
});

test.describe("reordering with the mouse", () => {
  test.use({ serverSetup: { name: "reorder-mouse", seed: { galleries: { traditional: 3 } } } });

  test("dragging a card over another highlights it; dropping moves the image there", async ({ page }) => {
    await openGallery(page, "Traditional Stonework");
    const [a, b, c] = await galleryIds(page.request, "traditional");
    await expect(imageCards(page)).toHaveCount(3);
    expect(await cardIds(page)).toEqual([a, b, c]);
    const handle = imageCards(page)
      .nth(2)
      .getByRole("button", { name: /^Drag to reorder/ });
    const target = imageCards(page).first();
    await mouseDrag(page, handle, imageCards(page).nth(2), target, async () => {
      await expect(target).toHaveAttribute("data-drop-target", "true");
      await expect(page.locator('[data-drop-target="true"]')).toHaveCount(1);
    });
    await expectToast(page, "Success", "Gallery order updated", "default");
    await expect.poll(() => cardIds(page)).toEqual([c, a, b]);
    await expect(page.locator("[data-drop-target]")).toHaveCount(0);
    expect(await galleryIds(page.request, "traditional")).toEqual([c, a, b]);
    await expectPublicGalleryMatches(page, "traditional");
  });

  test("a failed reorder says 'Reorder failed' and puts the old order back", async ({ page }) => {
    await openGallery(page, "Traditional Stonework");
    const before = await galleryIds(page.request, "traditional");
    await expect(imageCards(page)).toHaveCount(3);
    await page.route("**/api/admin/gallery-images/reorder", (route) =>
      route.fulfill({ status: 500, contentType: "application/json", body: '{"message":"boom"}' }),
    );
    const first = imageCards(page).nth(0);
    await mouseDrag(page, first.getByRole("button", { name: /^Drag to reorder/ }), first, imageCards(page).nth(2));
    await expectToast(page, "Reorder failed", "Failed to reorder images", "destructive");
    await expect.poll(() => cardIds(page)).toEqual(before);
    expect(await galleryIds(page.request, "traditional")).toEqual(before);
  });
});

test.describe("reordering by touch", () => {
  test.use({ hasTouch: true, serverSetup: { name: "reorder-touch", seed: { galleries: { traditional: 3 } } } });

  test("pressing and holding a handle, then sliding, moves the image", async ({ page }) => {
    await page.clock.install();
    await openGallery(page, "Traditional Stonework");
    const [a, b, c] = await galleryIds(page.request, "traditional");
    await expect(imageCards(page)).toHaveCount(3);
    await page.getByRole("list", { name: /images$/ }).evaluate((el) => el.scrollIntoView({ block: "center" }));
    const handle = (await imageCards(page)
      .nth(0)
      .getByRole("button", { name: /^Drag to reorder/ })
      .boundingBox())!;
    const from = (await imageCards(page).nth(0).boundingBox())!;
    const to = (await imageCards(page).nth(1).boundingBox())!;
    const start = { x: handle.x + handle.width / 2, y: handle.y + handle.height / 2 };
    const dx = to.x + to.width / 2 - (from.x + from.width / 2);
    const dy = to.y + to.height / 2 - (from.y + from.height / 2);

    const cdp = await page.context().newCDPSession(page);
    const touch = (type: "touchStart" | "touchMove" | "touchEnd", x: number, y: number) =>
      cdp.send("Input.dispatchTouchEvent", { type, touchPoints: type === "touchEnd" ? [] : [{ x, y }] });
    await touch("touchStart", start.x, start.y);
    // A long press (over 200 ms) picks the image up; a quick swipe would not. The page's clock is moved on, not waited for.
    await page.clock.runFor(350);
    for (let i = 1; i <= 12; i++) await touch("touchMove", start.x + (dx * i) / 12, start.y + (dy * i) / 12);
    await expect(imageCards(page).nth(1)).toHaveAttribute("data-drop-target", "true");
    await touch("touchEnd", start.x + dx, start.y + dy);

    await expectToast(page, "Success", "Gallery order updated", "default");
    await expect.poll(() => cardIds(page)).toEqual([b, a, c]);
    expect(await galleryIds(page.request, "traditional")).toEqual([b, a, c]);
  });
});

test.describe("deleting", () => {
  test.use({ serverSetup: { name: "delete", seed: { galleries: { traditional: 3 } } } });

  test("asks first; only a confirmed delete removes the image, here and on the public page", async ({ page }) => {
    await openGallery(page, "Traditional Stonework");
    const images = await galleryImages(page.request, "traditional");
    expect(images.length).toBeGreaterThanOrEqual(2);
    const ids = images.map((image) => image.id);
    const second = images[1]!;
    const remaining = ids.filter((id) => id !== second.id);
    await expect(imageCards(page)).toHaveCount(images.length);
    expect((await page.request.get(second.imagePath)).status()).toBe(200);
    const questions: string[] = [];
    let answer = false;
    page.on("dialog", async (dialog) => {
      questions.push(`${dialog.type()}: ${dialog.message()}`);
      if (answer) await dialog.accept();
      else await dialog.dismiss();
    });

    const secondCard = imageCards(page).nth(1);
    await secondCard.hover();
    await secondCard.getByRole("button", { name: "Delete image" }).click();
    await expect.poll(() => questions).toEqual(["confirm: Are you sure you want to delete this image?"]);
    await expect(imageCards(page)).toHaveCount(images.length);
    expect(await galleryIds(page.request, "traditional")).toEqual(ids);

    answer = true;
    await secondCard.getByRole("button", { name: "Delete image" }).click();
    await expectToast(page, "Success", "Image deleted successfully", "default");
    await expect(imageCards(page)).toHaveCount(images.length - 1);
    expect(await cardIds(page)).toEqual(remaining);
    expect(await galleryIds(page.request, "traditional")).toEqual(remaining);
    expect(questions).toHaveLength(2);
    await expectPublicGalleryMatches(page, "traditional");
    // Its files are gone too.
    expect((await page.request.get(second.imagePath)).status()).toBe(404);
  });

  test("a failed delete says 'Delete failed' and keeps the image", async ({ page }) => {
    await openGallery(page, "Traditional Stonework");
    const before = await galleryIds(page.request, "traditional");
    page.on("dialog", (dialog) => dialog.accept());
    await page.route("**/api/admin/gallery-images/*", (route) =>
      route.request().method() === "DELETE"
        ? route.fulfill({ status: 500, contentType: "application/json", body: '{"message":"boom"}' })
        : route.fallback(),
    );
    await imageCards(page).first().getByRole("button", { name: "Delete image" }).click();
    await expectToast(page, "Delete failed", "Failed to delete image", "destructive");
    await expect(imageCards(page)).toHaveCount(before.length);
    expect(await galleryIds(page.request, "traditional")).toEqual(before);
  });

  test("the manager with images has the tip, a logical outline and no axe violations", async ({ page }) => {
    await openGallery(page, "Traditional Stonework");
    await expect(imageCards(page).first()).toBeVisible();
    await expect(page.getByText(/^Tip: /).filter({ visible: true })).toHaveCount(1);
    const grid = page.getByRole("list", { name: "Traditional Stonework images" });
    await expect(grid).toHaveClass(/grid-cols-2/);
    await expect(grid).toHaveClass(/md:grid-cols-3/);
    await expect(grid).toHaveClass(/lg:grid-cols-4/);
    await closeToast(page);
    await expectOneH1AndOrderedHeadings(page, "gallery manager");
    await expectNoAxeViolations(page, "gallery manager");
    await imageCards(page)
      .first()
      .getByRole("button", { name: `Edit caption: ${CAPTIONS[0]}` })
      .click();
    await expectNoAxeViolations(page, "caption editing");
  });
});
