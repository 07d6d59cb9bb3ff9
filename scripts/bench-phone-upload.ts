/**
 * The "phone-upload" part of `npm run bench`: on a rural signal, a visitor attaches two camera photos
 * to an enquiry, and the owner uploads three to a gallery. Real Chromium at 390×844, with CDP
 * network throttling (1.6 Mbit/s down, 750 kbit/s up, 150 ms) and a 4× CPU slowdown, against the
 * production build. Per run: the seconds from choosing the photos to both cards reading "Ready", the
 * bytes sent per photo, and the seconds from Send Message to "Message Sent"; for the owner, the
 * seconds from the tap on Upload to "Image uploaded successfully", beside the least the uplink
 * allows for the bytes sent. Figures only: nothing here fails on time.
 */
import fs from "node:fs/promises";
import os from "node:os";
import path from "node:path";
import { chromium, type Page } from "@playwright/test";
import sharp from "sharp";
import { CHROMIUM_FLAGS, CHROMIUM_PATH } from "../tests/support/chromium";
import { kb, median, round, table } from "./lib/bench-report";
import { photoLikeJpeg } from "./lib/photo-like-jpeg";
import { ensureBuild, PRODUCTION_MALLOC_ENV, stopOnInterrupt } from "./lib/production-server";
import { signInApi } from "../tests/support/sign-in-api";
import { startTestServer, type TestServer } from "../tests/support/test-server";

const PHONE_VIEWPORT = { width: 390, height: 844 };
const RURAL_SIGNAL = { offline: false, latency: 150, downloadThroughput: 1_600_000 / 8, uploadThroughput: 750_000 / 8 };
const CPU_SLOWDOWN = 4;
/** The goals for two 4032×3024 camera photos on that signal. */
export const PHONE_UPLOAD_GOALS = { readySeconds: 15, sendSeconds: 3 };
/** Before the browser made photos smaller: two 2.4 MB photos, Send to "Message Sent". */
export const BEFORE_SHRINKING = { sendSeconds: 53, photoBytes: 2.4e6 };
const WAIT_MS = 180_000;

type Photo = { name: string; path: string; bytes: number };

export type PhoneUploadRun = {
  readySeconds: number;
  sendSeconds: number;
  /** Bytes of each photo as the page sent it, in the order of the photos (0: not sent). */
  sentBytes: number[];
};

/**
 * Two photo-like 4032×3024 camera JPEGs with EXIF: one held upright (orientation 6), one landscape
 * with a camera's make and model, as scripts/lib/photo-like-jpeg.ts makes them for the e2e test.
 */
async function cameraPhotos(dir: string): Promise<Photo[]> {
  const wall = await photoLikeJpeg({ width: 4032, height: 3024, portrait: true });
  const slope = await sharp(await photoLikeJpeg({ width: 4032, height: 3024, noise: 48 }))
    .withExif({ IFD0: { Make: "Bench", Model: "Phone camera", Software: "cornerstone bench" } })
    .jpeg({ quality: 98 })
    .toBuffer();
  const photos: Photo[] = [];
  for (const [name, bytes] of [
    ["wall.jpg", wall],
    ["slope.jpg", slope],
  ] as const) {
    const file = path.join(dir, name);
    await fs.writeFile(file, bytes);
    photos.push({ name, path: file, bytes: bytes.length });
  }
  return photos;
}

/**
 * Records each file the page sends in a FormData by XMLHttpRequest (the photo uploads): its name and
 * bytes; and, as `raw`, the bytes of every body sent as it is (the owner's uploads).
 */
async function recordSentFiles(page: Page): Promise<() => Promise<Record<string, number>>> {
  await page.addInitScript(() => {
    const sent: Record<string, number> = {};
    (window as unknown as { sentPhotoBytes: Record<string, number> }).sentPhotoBytes = sent;
    const send = XMLHttpRequest.prototype.send;
    XMLHttpRequest.prototype.send = function (body) {
      if (body instanceof FormData)
        for (const value of body.values()) if (value instanceof File) sent[value.name] = value.size;
      if (body instanceof Blob) sent.raw = (sent.raw ?? 0) + body.size;
      return Reflect.apply(send, this, [body]) as void;
    };
  });
  return () => page.evaluate(() => (window as unknown as { sentPhotoBytes: Record<string, number> }).sentPhotoBytes);
}

/** A phone on the rural signal: Chromium at 390×844, its page throttled from before it loads. */
async function withPhone<T>(server: TestServer, run: (page: Page) => Promise<T>): Promise<T> {
  const browser = await chromium.launch({ executablePath: CHROMIUM_PATH, args: CHROMIUM_FLAGS });
  try {
    const context = await browser.newContext({
      viewport: PHONE_VIEWPORT,
      isMobile: true,
      hasTouch: true,
      deviceScaleFactor: 3,
      baseURL: server.url,
    });
    const page = await context.newPage();
    const cdp = await context.newCDPSession(page);
    await cdp.send("Network.enable");
    await cdp.send("Network.emulateNetworkConditions", RURAL_SIGNAL);
    await cdp.send("Emulation.setCPUThrottlingRate", { rate: CPU_SLOWDOWN });
    return await run(page);
  } finally {
    await browser.close();
  }
}

function oneRun(server: TestServer, photos: Photo[], run: number): Promise<PhoneUploadRun> {
  return withPhone(server, async (page) => {
    const sentFiles = await recordSentFiles(page);
    await page.goto(`${server.url}/contact`, { timeout: WAIT_MS });
    // The contact island hydrates when the form comes near the screen (docs/decisions/0055).
    await page.locator("#contact-island").scrollIntoViewIfNeeded();
    await page.locator("html[data-hydrated]").waitFor({ state: "attached", timeout: WAIT_MS });

    const chosen = page.getByRole("list", { name: "Chosen photos" }).getByRole("listitem");
    const choseAt = performance.now();
    await page.getByLabel("Photos of the job (optional)").setInputFiles(photos.map((photo) => photo.path));
    await chosen
      .getByText("Ready", { exact: true })
      .nth(photos.length - 1)
      .waitFor({ timeout: WAIT_MS });
    const readySeconds = (performance.now() - choseAt) / 1000;

    await page.getByLabel("Name", { exact: true }).fill(`Bench visitor ${run} ${Date.now()}`);
    await page.getByLabel("Email", { exact: true }).fill("aroha@example.co.nz");
    await page.getByLabel("Message", { exact: true }).fill("Two photos of the retaining wall, sent from the paddock.");
    const sendAt = performance.now();
    await page.getByRole("button", { name: "Send Message" }).click();
    await page
      .getByRole("region", { name: "Notifications (F8)" })
      .getByText("Message Sent")
      .waitFor({ timeout: WAIT_MS });
    const sendSeconds = (performance.now() - sendAt) / 1000;

    const sent = await sentFiles();
    const sentBytes = photos.map((photo) => sent[photo.name] ?? 0);
    return { readySeconds: round(readySeconds, 1), sendSeconds: round(sendSeconds, 1), sentBytes };
  });
}

/** The owner's three photo-like camera JPEGs of about 3 MB: the demo galleries' grain, noise 4, 6 and 8; `wall.jpg` upright. */
async function galleryPhotos(dir: string): Promise<Photo[]> {
  const camera = { width: 4032, height: 3024, texture: 30, quality: 90 };
  return Promise.all(
    ["wall.jpg", "steps.jpg", "paving.jpg"].map(async (name, i) => {
      const bytes = await photoLikeJpeg({ ...camera, noise: 4 + 2 * i, portrait: i === 0 });
      await fs.writeFile(path.join(dir, name), bytes);
      return { name, path: path.join(dir, name), bytes: bytes.length };
    }),
  );
}

/** Seconds from the tap on Upload to the last toast and to the last byte's answer (the rest is processing). */
export type GalleryUploadRun = {
  uploadSeconds: number;
  lastByteSeconds: number;
  sentBytes: number;
  limitSeconds: number;
};

/** The owner uploads the photos to a gallery: from the tap on Upload to "Image uploaded successfully". */
function galleryRun(server: TestServer, photos: Photo[]): Promise<GalleryUploadRun> {
  return withPhone(server, async (page) => {
    await signInApi(page.request);
    const sentFiles = await recordSentFiles(page);
    await page.goto("/admin?view=gallery:veneer", { timeout: WAIT_MS });
    await page.getByRole("button", { name: "Upload Images" }).click({ timeout: WAIT_MS });
    const dialog = page.getByRole("dialog", { name: "Upload Images" });
    await dialog.locator('input[type="file"]').setInputFiles(photos.map((photo) => photo.path));
    const upload = dialog.getByRole("button", { name: `Upload ${photos.length} Image(s)` });
    await upload.waitFor({ timeout: WAIT_MS });
    let lastByteAt = 0;
    page.on("requestfinished", (request) => {
      if (request.method() === "PUT" && new URL(request.url()).pathname.startsWith("/api/uploads/"))
        lastByteAt = performance.now();
    });
    const tapAt = performance.now();
    await upload.click();
    await page.getByText("Image uploaded successfully", { exact: true }).waitFor({ timeout: 4 * WAIT_MS });
    const sentBytes = (await sentFiles()).raw ?? 0;
    return {
      uploadSeconds: round((performance.now() - tapAt) / 1000, 1),
      lastByteSeconds: round((lastByteAt - tapAt) / 1000, 1),
      sentBytes,
      // The throttle's uploadThroughput is in bytes a second.
      limitSeconds: round(sentBytes / RURAL_SIGNAL.uploadThroughput, 1),
    };
  });
}

/**
 * Runs the scenario `runs` times, one Chromium at a time, against the production build on an empty
 * site (/contact needs no galleries), and prints each run and the medians.
 */
export async function phoneUploadPart(runs: number) {
  ensureBuild();
  const dir = await fs.mkdtemp(path.join(os.tmpdir(), "cornerstone-bench-phone-upload-"));
  const server = await startTestServer({ env: { ...PRODUCTION_MALLOC_ENV } });
  stopOnInterrupt(server.stop);
  try {
    const photos = await cameraPhotos(dir);
    const results: PhoneUploadRun[] = [];
    for (let run = 1; run <= runs; run++) {
      console.error(`phone-upload: run ${run} of ${runs}…`);
      results.push(await oneRun(server, photos, run));
    }
    const readySeconds = round(median(results.map((r) => r.readySeconds)), 1);
    const sendSeconds = round(median(results.map((r) => r.sendSeconds)), 1);
    const sentBytesPerPhoto = photos.map((_, i) => Math.round(median(results.map((r) => r.sentBytes[i] ?? 0))));

    console.log(
      `\n== A visitor's photos on a rural signal (390×844, 1.6 Mbit/s down, 750 kbit/s up, 150 ms, CPU ×${CPU_SLOWDOWN}; ${runs} run${runs === 1 ? "" : "s"})`,
    );
    console.log(`chosen: ${photos.map((photo) => `${photo.name} ${kb(photo.bytes)}`).join(", ")}`);
    console.log(
      table(
        ["run", "choose → all Ready", `sent (${photos.map((photo) => photo.name).join(" + ")})`, "Send → Message Sent"],
        results.map((r, i) => [
          String(i + 1),
          `${r.readySeconds} s`,
          r.sentBytes.map(kb).join(" + "),
          `${r.sendSeconds} s`,
        ]),
      ),
    );
    console.log(
      `sent per photo (median): ${photos.map((photo, i) => `${photo.name} ${kb(sentBytesPerPhoto[i]!)}`).join(", ")}`,
    );
    console.log(
      `median: ${readySeconds} s to Ready (goal ≤ ${PHONE_UPLOAD_GOALS.readySeconds} s), ${sendSeconds} s after Send (goal ≤ ${PHONE_UPLOAD_GOALS.sendSeconds} s; before: ${BEFORE_SHRINKING.sendSeconds} s)`,
    );

    const owners = await galleryPhotos(dir);
    const gallery: GalleryUploadRun[] = [];
    for (let run = 1; run <= runs; run++) gallery.push(await galleryRun(server, owners));
    const uploadSeconds = round(median(gallery.map((r) => r.uploadSeconds)), 1);
    const limitSeconds = round(median(gallery.map((r) => r.limitSeconds)), 1);
    console.log(`\n== The owner's photos to a gallery: ${owners.map((p) => `${p.name} ${kb(p.bytes)}`).join(", ")}`);
    for (const [i, r] of gallery.entries())
      console.log(
        `run ${i + 1}: ${r.uploadSeconds} s (last byte ${r.lastByteSeconds} s), ${kb(r.sentBytes)} sent: ${r.limitSeconds} s at 750 kbit/s`,
      );
    console.log(
      `median: ${uploadSeconds} s, ${round(uploadSeconds / limitSeconds, 2)} × the uplink's least (goal ≤ 1.3 ×; e9cdb10: 176 s)`,
    );
    return {
      conditions: { viewport: PHONE_VIEWPORT, ...RURAL_SIGNAL, cpuSlowdown: CPU_SLOWDOWN },
      photos: photos.map(({ name, bytes }) => ({ name, bytes })),
      runs: results,
      median: { readySeconds, sendSeconds, sentBytesPerPhoto },
      goals: PHONE_UPLOAD_GOALS,
      before: BEFORE_SHRINKING,
      gallery: {
        photos: owners.map(({ name, bytes }) => ({ name, bytes })),
        runs: gallery,
        uploadSeconds,
        limitSeconds,
      },
    };
  } finally {
    await server.stop();
    await fs.rm(dir, { recursive: true, force: true });
  }
}
