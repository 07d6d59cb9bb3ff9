import type { Locator, Page } from "@playwright/test";
import sharp from "sharp";
import { expectNoAxeViolations, openView } from "./admin-helpers";
import { signInApi } from "../support/sign-in-api";
import { expect, hydrated, isPhone, test } from "./fixtures";

/**
 * Enquiry photos in the inbox, in real Chromium at phone size: an enquiry sent with 3 photos
 * through the contact form shows its thumbnails in the inbox, and the viewer
 * opens full-screen and steps with its buttons, the keyboard and a swipe.
 */

/** Three real JPEGs of different shapes and colours, camera-sized. */
async function photo(width: number, height: number, colour: { r: number; g: number; b: number }): Promise<Buffer> {
  return sharp({ create: { width, height, channels: 3, background: colour } })
    .composite([
      {
        input: Buffer.from(
          `<svg width="${width}" height="${height}"><circle cx="${width / 2}" cy="${height / 2}" r="${Math.min(width, height) / 3}" fill="white"/></svg>`,
        ),
      },
    ])
    .jpeg({ quality: 85 })
    .toBuffer();
}

/**
 * A sideways swipe over `target`: on the phone a finger's, as touch events
 * Chromium turns into pointer events; on the desktop a mouse drag.
 */
async function swipe(page: Page, target: Locator, dx: number, touch: boolean) {
  const box = (await target.boundingBox())!;
  const y = box.y + box.height / 2;
  const startX = box.x + box.width / 2 - dx / 2;
  if (!touch) {
    await page.mouse.move(startX, y);
    await page.mouse.down();
    await page.mouse.move(startX + dx, y, { steps: 5 });
    await page.mouse.up();
    return;
  }
  const cdp = await page.context().newCDPSession(page);
  await cdp.send("Input.dispatchTouchEvent", { type: "touchStart", touchPoints: [{ x: startX, y }] });
  for (let step = 1; step <= 5; step++) {
    await cdp.send("Input.dispatchTouchEvent", {
      type: "touchMove",
      touchPoints: [{ x: startX + (dx * step) / 5, y }],
    });
  }
  await cdp.send("Input.dispatchTouchEvent", { type: "touchEnd", touchPoints: [] });
  await cdp.detach();
}

const loaded = (image: Locator) => image.evaluate((img: HTMLImageElement) => img.complete && img.naturalWidth > 0);

test("an enquiry's 3 photos show as thumbnails in the inbox and open in a full-screen viewer that steps by button, key and swipe", async ({
  page,
}, testInfo) => {
  const name = `Aroha ${testInfo.project.name} ${Math.random().toString(36).slice(2, 7)}`;
  const touch = isPhone(testInfo);
  const press = (control: Locator) => (touch ? control.tap() : control.click());
  const photos = [
    await photo(2400, 1800, { r: 120, g: 90, b: 60 }),
    await photo(1200, 1600, { r: 60, g: 120, b: 90 }),
    await photo(1600, 900, { r: 90, g: 60, b: 120 }),
  ];

  // The visitor's side, through the contact form on the same phone: three photos chosen, each sent as
  // it is chosen, then the enquiry.
  await page.goto("/contact");
  await hydrated(page);
  await page.getByLabel("Name", { exact: true }).fill(name);
  await page.getByLabel("Email", { exact: true }).fill("aroha@example.co.nz");
  await page.getByLabel("Message", { exact: true }).fill("Kia ora, the retaining wall is leaning. Photos attached.");
  await page
    .getByLabel("Photos of the job (optional)")
    .setInputFiles(photos.map((buffer, i) => ({ name: `wall-${i + 1}.jpg`, mimeType: "image/jpeg", buffer })));
  const chosen = page.getByRole("list", { name: "Chosen photos" }).getByRole("listitem");
  await expect(chosen.getByText("Ready")).toHaveCount(3);
  await press(page.getByRole("button", { name: "Send Message" }));
  await expect(page.getByRole("region", { name: "Notifications (F8)" }).getByText("Message Sent")).toBeVisible();

  await signInApi(page.request);
  await page.goto("/admin");
  await openView(page, "View Submissions", "Contact Form Submissions");
  const entry = page.getByRole("listitem").filter({ has: page.getByRole("heading", { level: 2, name }) });
  const thumbnails = entry.getByRole("list", { name: `Photos from ${name}` }).getByRole("img");
  await expect(thumbnails).toHaveCount(3);
  for (const [i, thumbnail] of (await thumbnails.all()).entries()) {
    await expect(thumbnail).toHaveAccessibleName(`Photo ${i + 1} of 3 from ${name}`);
    await thumbnail.scrollIntoViewIfNeeded();
    await expect.poll(() => loaded(thumbnail)).toBe(true);
  }
  await expectNoAxeViolations(page, "inbox with photos");

  // A tap on the first opens its viewing copy full-screen.
  await press(entry.getByRole("button", { name: `Photo 1 of 3 from ${name}` }));
  const viewer = page.getByRole("dialog", { name: `Photos from ${name}` });
  const position = viewer.getByRole("status");
  const shown = viewer.getByRole("img");
  await expect(position).toHaveText("Photo 1 of 3");
  await expect(shown).toHaveAttribute("src", /\/photos\/1\?size=view$/);
  await expect.poll(() => loaded(shown)).toBe(true);
  await expectNoAxeViolations(page, "photo viewer");

  // Each photo, landscape or portrait, fits the screen and fills it one way.
  const viewport = page.viewportSize()!;
  const expectPhotoFits = async () => {
    await expect.poll(() => loaded(shown)).toBe(true);
    await expect(viewer.getByTestId("photo-loading")).toHaveCount(0);
    const photoBox = (await shown.boundingBox())!;
    expect(photoBox.x).toBeGreaterThanOrEqual(0);
    expect(photoBox.y).toBeGreaterThanOrEqual(0);
    expect(photoBox.x + photoBox.width).toBeLessThanOrEqual(viewport.width);
    expect(photoBox.y + photoBox.height).toBeLessThanOrEqual(viewport.height);
    expect(Math.max(photoBox.width / viewport.width, photoBox.height / viewport.height)).toBeGreaterThan(0.6);
  };
  await expectPhotoFits();
  // Every control is at least 44 px square (a phone's finger) and on the screen.
  for (const control of ["Previous photo", "Next photo", "Close"]) {
    const box = (await viewer.getByRole("button", { name: control }).boundingBox())!;
    expect(Math.min(box.width, box.height), control).toBeGreaterThanOrEqual(44);
    expect(box.x + box.width, control).toBeLessThanOrEqual(viewport.width);
    expect(box.y + box.height, control).toBeLessThanOrEqual(viewport.height);
  }

  // Buttons.
  await press(viewer.getByRole("button", { name: "Next photo" }));
  await expect(position).toHaveText("Photo 2 of 3");
  await expect(shown).toHaveAttribute("src", /\/photos\/2\?size=view$/);
  await expectPhotoFits();
  await press(viewer.getByRole("button", { name: "Previous photo" }));
  await expect(position).toHaveText("Photo 1 of 3");

  // Keyboard.
  await page.keyboard.press("ArrowRight");
  await expect(position).toHaveText("Photo 2 of 3");
  await page.keyboard.press("ArrowRight");
  await expect(position).toHaveText("Photo 3 of 3");
  await expectPhotoFits();
  await page.keyboard.press("ArrowLeft");
  await expect(position).toHaveText("Photo 2 of 3");

  // Swipes: leftwards to the next, rightwards to the previous; a short drag is not a swipe.
  await swipe(page, shown, -120, touch);
  await expect(position).toHaveText("Photo 3 of 3");
  await expect.poll(() => loaded(shown)).toBe(true);
  await swipe(page, shown, 30, touch);
  await expect(position).toHaveText("Photo 3 of 3");
  await swipe(page, shown, 120, touch);
  await expect(position).toHaveText("Photo 2 of 3");

  // Escape closes it, back on the thumbnail of the photo last seen.
  await page.keyboard.press("Escape");
  await expect(viewer).toHaveCount(0);
  await expect(entry.getByRole("button", { name: `Photo 2 of 3 from ${name}` })).toBeFocused();
});
