// @phone-only: it sets its own phone-sized screen
import fs from "node:fs/promises";
import os from "node:os";
import path from "node:path";
import { randomUUID } from "node:crypto";
import sharp from "sharp";
import type { Page } from "@playwright/test";
import { photoLikeJpeg } from "../../scripts/lib/photo-like-jpeg";
import { UPRIGHT_BOTTOM_COLOUR, UPRIGHT_TOP_COLOUR, isNear, makeJpegWithExif, pixelAt } from "../fixtures/images";
import { expect, hydrated, test } from "./fixtures";

/**
 * A visitor's photos are made smaller in the browser before they are sent (at most 1600 px on the long
 * side, upright, at most 500 KB, no metadata), say how long they have left, and Send says what it
 * waits for. At a phone's size, in real Chromium, against the real server.
 */

const PHOTOS_LABEL = "Photos of the job (optional)";
const field = (page: Page, label: string) => page.getByLabel(label, { exact: true });
const chosen = (page: Page) => page.getByRole("list", { name: "Chosen photos" }).getByRole("listitem");
const toasts = (page: Page) => page.getByRole("region", { name: "Notifications (F8)" });
/** The limit the issue sets for the copy that is sent (written out, not imported from the code under test). */
const SENT_LONG_SIDE = 1600;
const SENT_MAX_BYTES = 500 * 1024;

test.use({ viewport: { width: 390, height: 844 } });

let photoDir: string;
test.beforeAll(async () => {
  photoDir = await fs.mkdtemp(path.join(os.tmpdir(), "cornerstone-photo-shrink-"));
  // A phone held upright: stored 4032 × 3024 with EXIF orientation 6, GPS, XMP and an ICC profile.
  await fs.writeFile(
    path.join(photoDir, "upright.jpg"),
    await makeJpegWithExif({ width: 4032, height: 3024, orientation: 6 }),
  );
  // Camera-like detail, as large as a real 12 MP photo (the benchmark's fixture).
  await fs.writeFile(
    path.join(photoDir, "wall.jpg"),
    await photoLikeJpeg({ width: 4032, height: 3024, portrait: true }),
  );
  await fs.writeFile(path.join(photoDir, "slope.jpg"), await photoLikeJpeg({ width: 4032, height: 3024, noise: 48 }));
});
test.afterAll(async () => {
  await fs.rm(photoDir, { recursive: true, force: true });
});
const photoFile = (name: string) => path.join(photoDir, name);

/**
 * Every photo the page sends to POST /api/enquiry-photos, as sent: the file of each FormData that an
 * XMLHttpRequest sends (Playwright does not hand over request bodies of a few MB, so they are read in
 * the page). Call before the page loads.
 */
async function captureSentPhotos(
  page: Page,
): Promise<{ count(): Promise<number>; bytes(index: number): Promise<Buffer> }> {
  await page.addInitScript(() => {
    const sent: Blob[] = [];
    (window as unknown as { sentPhotos: Blob[] }).sentPhotos = sent;
    const send = XMLHttpRequest.prototype.send;
    XMLHttpRequest.prototype.send = function (body) {
      if (body instanceof FormData) for (const value of body.values()) if (value instanceof Blob) sent.push(value);
      return Reflect.apply(send, this, [body]) as void;
    };
  });
  return {
    count: () => page.evaluate(() => (window as unknown as { sentPhotos: Blob[] }).sentPhotos.length),
    bytes: async (index) =>
      Buffer.from(
        await page.evaluate(async (i) => {
          const bytes = new Uint8Array(
            await (window as unknown as { sentPhotos: Blob[] }).sentPhotos[i]!.arrayBuffer(),
          );
          let binary = "";
          for (let at = 0; at < bytes.length; at += 0x8000)
            binary += String.fromCharCode(...bytes.subarray(at, at + 0x8000));
          return btoa(binary);
        }, index),
        "base64",
      ),
  };
}

test("a 4032 × 3024 camera JPEG is sent at most 1600 px on the long side, upright, without EXIF, XMP or IPTC", async ({
  page,
}) => {
  const sent = await captureSentPhotos(page);
  await page.goto("/contact");
  await hydrated(page);
  await page.getByLabel(PHOTOS_LABEL).setInputFiles(photoFile("upright.jpg"));
  await expect(chosen(page).filter({ hasText: "upright.jpg" }).getByText("Ready")).toBeVisible({ timeout: 30_000 });
  expect(await sent.count()).toBe(1);
  const photo = await sent.bytes(0);
  const meta = await sharp(photo).metadata();
  expect(meta.format).toBe("jpeg");
  // Upright: the portrait the phone saw, its long side the site's viewing copy's.
  expect([meta.width, meta.height]).toEqual([SENT_LONG_SIDE * (3024 / 4032), SENT_LONG_SIDE]);
  expect(meta.orientation).toBeUndefined();
  expect(meta.exif).toBeUndefined();
  expect(meta.xmp).toBeUndefined();
  expect(meta.iptc).toBeUndefined();
  expect(meta.comments).toBeUndefined();
  // Chromium's encoder tags its own sRGB profile (colours, nothing about the camera or the place).
  expect(meta.space).toBe("srgb");
  expect(isNear(await pixelAt(photo, 600, 100), UPRIGHT_TOP_COLOUR), "red at the top").toBe(true);
  expect(isNear(await pixelAt(photo, 600, 1500), UPRIGHT_BOTTOM_COLOUR), "blue at the bottom").toBe(true);
});

test("two camera-like 4032 × 3024 photos are each sent as a JPEG of at most 500 KB, and the enquiry is stored with both", async ({
  page,
  server,
}) => {
  const name = `Shrunk ${randomUUID().slice(0, 8)}`;
  const originals = await Promise.all(["wall.jpg", "slope.jpg"].map((file) => fs.stat(photoFile(file))));
  for (const original of originals) expect(original.size).toBeGreaterThan(2 * SENT_MAX_BYTES);
  const sent = await captureSentPhotos(page);
  await page.goto("/contact");
  await hydrated(page);
  await page.getByLabel(PHOTOS_LABEL).setInputFiles([photoFile("wall.jpg"), photoFile("slope.jpg")]);
  await expect(chosen(page).getByText("Ready")).toHaveCount(2, { timeout: 30_000 });
  expect(await sent.count()).toBe(2);
  for (const photo of [await sent.bytes(0), await sent.bytes(1)]) {
    expect(photo.length).toBeLessThanOrEqual(SENT_MAX_BYTES);
    const meta = await sharp(photo).metadata();
    expect(meta.format).toBe("jpeg");
    expect(Math.max(meta.width ?? 0, meta.height ?? 0)).toBeLessThanOrEqual(SENT_LONG_SIDE);
    expect(meta.exif).toBeUndefined();
  }
  await field(page, "Name").fill(name);
  await field(page, "Email").fill("aroha@example.co.nz");
  await field(page, "Message").fill("Two photos of the wall, made smaller by the phone.");
  await page.getByRole("button", { name: "Send Message" }).click();
  await expect(toasts(page).getByText("Message Sent")).toBeVisible();
  const { default: Database } = await import("better-sqlite3");
  const db = new Database(`${server.dataDir}/site.db`, { readonly: true });
  try {
    const row = db
      .prepare(
        "select (select count(*) from enquiry_photos p where p.submission_id = s.id) as photos from contact_submissions s where s.name = ?",
      )
      .get(name) as { photos: number };
    expect(row.photos).toBe(2);
  } finally {
    db.close();
  }
});

test("on a slow upload each photo says the time it has left in words, and Send says it waits for them", async ({
  page,
}) => {
  await page.goto("/contact");
  await hydrated(page);
  const cdp = await page.context().newCDPSession(page);
  await cdp.send("Network.enable");
  // A rural signal: 1.6 Mbit/s down, 750 kbit/s up, 150 ms.
  await cdp.send("Network.emulateNetworkConditions", {
    offline: false,
    latency: 150,
    downloadThroughput: 1_600_000 / 8,
    uploadThroughput: 750_000 / 8,
  });
  await field(page, "Name").fill(`Slow ${randomUUID().slice(0, 8)}`);
  await field(page, "Email").fill("aroha@example.co.nz");
  await field(page, "Message").fill("Two photos on a slow rural signal.");
  await page.getByLabel(PHOTOS_LABEL).setInputFiles([photoFile("wall.jpg"), photoFile("slope.jpg")]);
  await page.getByRole("button", { name: "Send Message" }).click();
  await expect(page.getByRole("button", { name: "Sending..." })).toBeDisabled();
  await expect(page.getByRole("status").filter({ hasText: "Waiting for 2 photos" })).toBeVisible();
  await expect(
    chosen(page)
      .getByText(/^(a few seconds|about \d+ seconds|about a minute|about \d+ minutes) left$/)
      .first(),
  ).toBeVisible({ timeout: 30_000 });
  await expect(chosen(page).first().getByRole("progressbar")).toHaveAttribute(
    "aria-valuetext",
    /left|Sending|Processing/,
  );
  await expect(toasts(page).getByText("Message Sent")).toBeVisible({ timeout: 45_000 });
  await cdp.detach();
});

test("the field is the site's own 'Add photos' button, at least 44 px tall, with no 'No file chosen'; the shrinker loads only once a photo is chosen", async ({
  page,
}) => {
  const scripts: string[] = [];
  page.on("request", (request) => scripts.push(new URL(request.url()).pathname));
  await page.goto("/contact");
  await hydrated(page);
  const button = page.getByRole("button", { name: "Add photos" });
  await expect(button).toBeVisible();
  expect((await button.boundingBox())!.height).toBeGreaterThanOrEqual(44);
  // The browser's own input (and its "No file chosen") is out of sight.
  await expect(page.locator("input[type=file]")).toBeHidden();
  await expect(page.getByText("No file chosen")).toHaveCount(0);
  expect(scripts.filter((script) => /photo-shrink/.test(script))).toEqual([]);

  const [chooser] = await Promise.all([page.waitForEvent("filechooser"), button.click()]);
  expect(chooser.isMultiple()).toBe(true);
  await chooser.setFiles(photoFile("upright.jpg"));
  await expect(chosen(page).getByText("Ready")).toHaveCount(1, { timeout: 30_000 });
  expect(scripts.filter((script) => /photo-shrink/.test(script)).length).toBeGreaterThan(0);
});
