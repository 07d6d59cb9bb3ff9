import { randomUUID } from "node:crypto";
import fs from "node:fs/promises";
import os from "node:os";
import path from "node:path";
import type { Page } from "@playwright/test";
import { pngBomb } from "../fixtures/image-bombs";
import { makeImage } from "../fixtures/images";
import { expect, hydrated, test } from "./fixtures";

/**
 * Photos of the job with an enquiry, in real Chromium against the real server:
 * with JavaScript (each photo sent as it is chosen) and without (one multipart post to /contact).
 */

const PHOTOS_LABEL = "Photos of the job (optional)";
const field = (page: Page, label: string) => page.getByLabel(label, { exact: true });
const chosen = (page: Page) => page.getByRole("list", { name: "Chosen photos" }).getByRole("listitem");
const TEXT = {
  email: "aroha@example.co.nz",
  phone: "021 123 4567",
  message: "A quote for a basalt retaining wall, photos attached.",
};

let photoDir: string;
test.beforeAll(async () => {
  photoDir = await fs.mkdtemp(path.join(os.tmpdir(), "cornerstone-enquiry-photos-"));
  // Real JPEGs drawn by sharp, one per name.
  for (const name of ["wall", "slope", "garden", "steps", "gate", "path", "fence"]) {
    await fs.writeFile(path.join(photoDir, `${name}.jpg`), await makeImage("jpeg", { width: 1200, height: 900 }));
  }
});
test.afterAll(async () => {
  await fs.rm(photoDir, { recursive: true, force: true });
});
const photoFiles = (...names: string[]) => names.map((name) => path.join(photoDir, `${name}.jpg`));

async function fillText(page: Page, name: string) {
  await field(page, "Name").fill(name);
  await field(page, "Email").fill(TEXT.email);
  await field(page, "Phone (optional)").fill(TEXT.phone);
  await field(page, "Message").fill(TEXT.message);
}

async function expectTextKept(page: Page, name: string) {
  await expect(field(page, "Name")).toHaveValue(name);
  await expect(field(page, "Email")).toHaveValue(TEXT.email);
  await expect(field(page, "Phone (optional)")).toHaveValue(TEXT.phone);
  await expect(field(page, "Message")).toHaveValue(TEXT.message);
}

/** The stored enquiries under this name, each with how many photos it has. */
async function storedWithPhotos(dataDir: string, name: string): Promise<{ message: string; photos: number }[]> {
  const { default: Database } = await import("better-sqlite3");
  const db = new Database(`${dataDir}/site.db`, { readonly: true });
  try {
    return db
      .prepare(
        "select s.message, (select count(*) from enquiry_photos p where p.submission_id = s.id) as photos from contact_submissions s where s.name = ?",
      )
      .all(name) as { message: string; photos: number }[];
  } finally {
    db.close();
  }
}

/** The one temporary folder of visitors' photos, both ways in. */
async function tempFilesLeft(dataDir: string): Promise<string[]> {
  return fs.readdir(path.join(dataDir, "tmp", "enquiry-photos")).catch(() => []);
}

/** Photo uploads wait until the returned function is called. */
async function holdPhotoUploads(page: Page): Promise<() => void> {
  let release!: () => void;
  const held = new Promise<void>((resolve) => (release = resolve));
  await page.route("**/api/enquiry-photos", async (route) => {
    await held;
    await route.continue();
  });
  return release;
}

const toasts = (page: Page) => page.getByRole("region", { name: "Notifications (F8)" });

test.describe("photos with an enquiry, with JavaScript", () => {
  test("three photos show thumbnails, names and progress; one removed; the enquiry is stored with two and the form resets", async ({
    page,
    server,
  }) => {
    const name = `Photo Visitor ${randomUUID().slice(0, 8)}`;
    await page.goto("/contact");
    await hydrated(page);
    await fillText(page, name);

    // Held, so the progress shows while the photos are on their way.
    const release = await holdPhotoUploads(page);
    const input = page.getByLabel(PHOTOS_LABEL);
    await expect(input).toHaveAttribute("accept", "image/*");
    await expect(input).toHaveAttribute("multiple", "");
    await input.setInputFiles(photoFiles("wall", "slope", "garden"));
    await expect(chosen(page)).toHaveCount(3);
    for (const photo of ["wall.jpg", "slope.jpg", "garden.jpg"]) {
      const item = chosen(page).filter({ hasText: photo });
      await expect(item.getByRole("progressbar", { name: `Sending ${photo}` })).toBeVisible();
      await expect
        .poll(() => item.locator("img").evaluate((img: HTMLImageElement) => img.naturalWidth))
        .toBeGreaterThan(0);
    }
    release();
    // Each photo is made smaller in a worker first, one at a time: a loaded machine may take a while.
    await expect(chosen(page).getByText("Ready")).toHaveCount(3, { timeout: 30_000 });

    await page.getByRole("button", { name: "Remove slope.jpg" }).click();
    await expect(chosen(page)).toHaveCount(2);
    await expect(chosen(page).filter({ hasText: "slope.jpg" })).toHaveCount(0);

    await page.getByRole("button", { name: "Send Message" }).click();
    await expect(toasts(page).getByText("Message Sent")).toBeVisible();
    await expect(field(page, "Name")).toHaveValue("");
    await expect(field(page, "Message")).toHaveValue("");
    await expect(page.getByRole("list", { name: "Chosen photos" })).toHaveCount(0);
    expect(await storedWithPhotos(server.dataDir, name)).toEqual([{ message: TEXT.message, photos: 2 }]);
  });

  test("sending waits for a photo still on its way, then stores it with the enquiry", async ({ page, server }) => {
    const name = `Waiting Visitor ${randomUUID().slice(0, 8)}`;
    await page.goto("/contact");
    await hydrated(page);
    await fillText(page, name);
    const release = await holdPhotoUploads(page);
    await page.getByLabel(PHOTOS_LABEL).setInputFiles(photoFiles("wall"));
    await page.getByRole("button", { name: "Send Message" }).click();
    await expect(page.getByRole("button", { name: "Sending..." })).toBeDisabled();
    release();
    await expect(toasts(page).getByText("Message Sent")).toBeVisible();
    expect(await storedWithPhotos(server.dataDir, name)).toEqual([{ message: TEXT.message, photos: 1 }]);
  });

  test("photos chosen before the form's script has loaded are taken up and sent when it loads", async ({
    page,
    server,
  }) => {
    const name = `Early Visitor ${randomUUID().slice(0, 8)}`;
    // The island's React part is held back, so the photo is chosen in the plain, server-rendered form.
    let release!: () => void;
    const held = new Promise<void>((resolve) => (release = resolve));
    await page.route("**/assets/contact-hydrate-*.js", async (route) => {
      await held;
      await route.continue();
    });
    await page.goto("/contact");
    await fillText(page, name);
    await page.getByLabel(PHOTOS_LABEL).setInputFiles(photoFiles("wall"));
    await expect(page.locator("html[data-hydrated]")).toHaveCount(0);
    release();
    await hydrated(page);
    await expect(chosen(page).filter({ hasText: "wall.jpg" }).getByText("Ready")).toBeVisible();
    await page.getByRole("button", { name: "Send Message" }).click();
    await expect(toasts(page).getByText("Message Sent")).toBeVisible();
    expect(await storedWithPhotos(server.dataDir, name)).toEqual([{ message: TEXT.message, photos: 1 }]);
  });

  test("choosing more than five keeps the first five and says so", async ({ page }) => {
    await page.goto("/contact");
    await hydrated(page);
    await page.getByLabel(PHOTOS_LABEL).setInputFiles(photoFiles("wall", "slope", "garden", "steps", "gate", "path"));
    await expect(page.getByRole("alert").filter({ hasText: "Up to 5 photos." })).toHaveText("Up to 5 photos.");
    await expect(chosen(page)).toHaveCount(5);
    await expect(chosen(page).filter({ hasText: "path.jpg" })).toHaveCount(0);
    // Full: one more is refused the same way.
    await page.getByLabel(PHOTOS_LABEL).setInputFiles(photoFiles("fence"));
    await expect(page.getByRole("alert").filter({ hasText: "Up to 5 photos." })).toBeVisible();
    await expect(chosen(page)).toHaveCount(5);
  });

  test("a file that is not a JPEG, PNG, WebP or AVIF photo, or is over 15 MB, is refused in the picker, by name", async ({
    page,
  }) => {
    const sent: string[] = [];
    page.on("request", (request) => {
      if (request.url().endsWith("/api/enquiry-photos")) sent.push(request.url());
    });
    await page.goto("/contact");
    await hydrated(page);
    await page.getByLabel(PHOTOS_LABEL).setInputFiles([
      { name: "notes.txt", mimeType: "text/plain", buffer: Buffer.from("not a photo") },
      { name: "spinner.gif", mimeType: "image/gif", buffer: await makeImage("gif") },
      { name: "huge.jpg", mimeType: "image/jpeg", buffer: Buffer.alloc(15 * 1024 * 1024 + 1) },
    ]);
    const alert = page.getByRole("alert").filter({ hasText: "notes.txt" });
    await expect(alert).toContainText("File notes.txt is not a supported photo. Please use JPEG, PNG, WebP or AVIF.");
    await expect(alert).toContainText("File spinner.gif is not a supported photo. Please use JPEG, PNG, WebP or AVIF.");
    await expect(alert).toContainText("Photo huge.jpg is larger than 15 MB.");
    await expect(page.getByRole("list", { name: "Chosen photos" })).toHaveCount(0);
    expect(sent).toEqual([]);
  });

  test("a photo the server refuses (a decompression bomb) is named, and the text and the other photos stay", async ({
    page,
    server,
  }) => {
    const name = `Bomb Visitor ${randomUUID().slice(0, 8)}`;
    await page.goto("/contact");
    await hydrated(page);
    await fillText(page, name);
    await page.getByLabel(PHOTOS_LABEL).setInputFiles([
      { name: "wall.jpg", mimeType: "image/jpeg", buffer: await fs.readFile(photoFiles("wall")[0]!) },
      { name: "bomb.png", mimeType: "image/png", buffer: pngBomb(20_000, 20_000) },
    ]);
    await expect(page.getByRole("alert")).toHaveText("Photo bomb.png is too large to process.");
    await expect(chosen(page)).toHaveCount(1);
    await expect(chosen(page).filter({ hasText: "wall.jpg" }).getByText("Ready")).toBeVisible();
    await expectTextKept(page, name);

    await page.getByRole("button", { name: "Send Message" }).click();
    await expect(toasts(page).getByText("Message Sent")).toBeVisible();
    expect(await storedWithPhotos(server.dataDir, name)).toEqual([{ message: TEXT.message, photos: 1 }]);
  });
});

test.describe("photos past the daily cap", () => {
  // One photo a day; each test has a server of its own, so neither depends on the other's photos.
  test.use({ serverSetup: { env: { ENQUIRY_PHOTOS_PER_DAY: "1" }, name: "photo-cap-js" } });

  test("the enquiry is stored without them and the form says to e-mail them", async ({ page, server }) => {
    const name = `Capped Visitor ${randomUUID().slice(0, 8)}`;
    await page.goto("/contact");
    await hydrated(page);
    await fillText(page, name);
    await page.getByLabel(PHOTOS_LABEL).setInputFiles(photoFiles("wall", "slope"));
    await expect(chosen(page).getByText("Ready")).toHaveCount(2, { timeout: 30_000 });
    await page.getByRole("button", { name: "Send Message" }).click();
    await expect(toasts(page).getByText("Message Sent")).toBeVisible();
    await expect(
      page.getByText(
        "Your message was sent, but we could not take photos today. Please e-mail them to mark@cornerstonestonemasonry.co.nz.",
        { exact: true },
      ),
    ).toBeVisible();
    // The first photo of the day was taken; the second was not.
    expect(await storedWithPhotos(server.dataDir, name)).toEqual([{ message: TEXT.message, photos: 1 }]);
  });

  test.describe("without JavaScript", () => {
    test.use({
      javaScriptEnabled: false,
      serverSetup: { env: { ENQUIRY_PHOTOS_PER_DAY: "1" }, name: "photo-cap-no-js" },
    });

    test("the enquiry is stored without them and the page says to e-mail them", async ({ page, server }) => {
      const name = `No-JS Capped ${randomUUID().slice(0, 8)}`;
      await page.goto("/contact");
      await fillText(page, name);
      await page.getByLabel(PHOTOS_LABEL).setInputFiles(photoFiles("garden", "steps"));
      await page.getByRole("button", { name: "Send Message" }).click();
      await expect(page.getByRole("status").filter({ hasText: "Message Sent" })).toBeVisible();
      await expect(
        page.getByText(
          "Your message was sent, but we could not take photos today. Please e-mail them to mark@cornerstonestonemasonry.co.nz.",
          { exact: true },
        ),
      ).toBeVisible();
      // The first photo of the day was taken; the second was not.
      expect(await storedWithPhotos(server.dataDir, name)).toEqual([{ message: TEXT.message, photos: 1 }]);
    });
  });
});

test.describe("photos with an enquiry, without JavaScript", () => {
  test.use({ javaScriptEnabled: false });

  test("the form posts the photos as multipart and the enquiry is stored with them", async ({ page, server }) => {
    const name = `No-JS Photos ${randomUUID().slice(0, 8)}`;
    await page.goto("/contact");
    await expect(page.locator("form[action='/contact#contact-result']")).toHaveAttribute(
      "enctype",
      "multipart/form-data",
    );
    await fillText(page, name);
    await page.getByLabel(PHOTOS_LABEL).setInputFiles(photoFiles("wall", "slope"));
    await page.getByRole("button", { name: "Send Message" }).click();
    await expect(page.getByRole("status").filter({ hasText: "Message Sent" })).toBeVisible();
    expect(await storedWithPhotos(server.dataDir, name)).toEqual([{ message: TEXT.message, photos: 2 }]);
    expect(await tempFilesLeft(server.dataDir)).toEqual([]);
  });

  test("a refused photo comes back with its reason and the text kept; nothing is stored", async ({ page, server }) => {
    const name = `No-JS Bomb ${randomUUID().slice(0, 8)}`;
    await page.goto("/contact");
    await fillText(page, name);
    await page.getByLabel(PHOTOS_LABEL).setInputFiles([
      { name: "wall.jpg", mimeType: "image/jpeg", buffer: await fs.readFile(photoFiles("wall")[0]!) },
      { name: "bomb.png", mimeType: "image/png", buffer: pngBomb(20_000, 20_000) },
    ]);
    const [answer] = await Promise.all([
      page.waitForResponse((r) => r.url().endsWith("/contact") && r.request().method() === "POST"),
      page.getByRole("button", { name: "Send Message" }).click(),
    ]);
    expect(answer.status()).toBeGreaterThanOrEqual(400);
    const alert = page.getByRole("alert").filter({ hasText: "bomb.png" });
    await expect(alert).toContainText("Photo bomb.png is too large to process.");
    await expect(alert).toContainText("Your message is kept. Please choose the photos again.");
    await expectTextKept(page, name);
    expect(await storedWithPhotos(server.dataDir, name)).toEqual([]);
    expect(await tempFilesLeft(server.dataDir)).toEqual([]);
  });

  test("more than five photos, or one over 15 MB, are refused after the whole post is read, with the text kept", async ({
    page,
    server,
  }) => {
    const name = `No-JS Many ${randomUUID().slice(0, 8)}`;
    await page.goto("/contact");
    await fillText(page, name);
    await page.getByLabel(PHOTOS_LABEL).setInputFiles(photoFiles("wall", "slope", "garden", "steps", "gate", "path"));
    await page.getByRole("button", { name: "Send Message" }).click();
    await expect(page.getByRole("alert").filter({ hasText: "Up to 5 photos." })).toBeVisible();
    await expectTextKept(page, name);

    await page
      .getByLabel(PHOTOS_LABEL)
      .setInputFiles([{ name: "huge.jpg", mimeType: "image/jpeg", buffer: Buffer.alloc(15 * 1024 * 1024 + 1) }]);
    await page.getByRole("button", { name: "Send Message" }).click();
    await expect(page.getByRole("alert").filter({ hasText: "Photo huge.jpg is larger than 15 MB." })).toBeVisible();
    await expectTextKept(page, name);
    expect(await storedWithPhotos(server.dataDir, name)).toEqual([]);
    expect(await tempFilesLeft(server.dataDir)).toEqual([]);
  });
});
