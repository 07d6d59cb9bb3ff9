import type { APIRequestContext, Page } from "@playwright/test";
import sharp from "sharp";
import { openerIdFor, viewHref, type AdminView } from "~/admin/view";
import { OWNER_LISTS } from "~/content/lists";
import { editorTitleFor, PAGE_GROUPS } from "~/content/sections";
import { GALLERY_TITLES, GALLERY_TYPES } from "~/galleries/gallery";
import { jpegFile, uploadInput } from "./admin-helpers";
import { expect } from "./fixtures";

/**
 * Every screen of the admin on the owner's phone, for the tests that go
 * through all of them (tap targets, toasts, plain words) and for the
 * screenshots under docs/screens/.
 */

/** The owner's phone: the size the dashboard's limits are measured at. */
export const OWNER_PHONE = { width: 390, height: 844 } as const;

export type AdminScreen = {
  /** A file-name-safe name: "dashboard", "content-homepage", "upload-window". */
  name: string;
  /** Opens the screen from wherever the page is, and waits until it has loaded. */
  open(page: Page): Promise<void>;
};

/** Nothing of the admin is still loading: no "Loading…" text, no row still checking. */
export async function settled(page: Page) {
  await expect(page.locator("main").getByText(/^Loading|^Checking…$/)).toHaveCount(0);
}

async function openByAddress(page: Page, view: AdminView, heading: string) {
  await page.goto(viewHref(view));
  await expect(page.getByRole("heading", { level: 1, name: heading, exact: true })).toBeVisible();
  await settled(page);
}

/** A view of the admin: where it is, and its heading. */
export type AdminViewScreen = AdminScreen & { view: AdminView; heading: string };

const viewScreen = (name: string, view: AdminView, heading: string): AdminViewScreen => ({
  name,
  view,
  heading,
  open: (page) => openByAddress(page, view, heading),
});

/** The dashboard and each of its sub-views, opened by address (as a reload shows them). */
export const ADMIN_VIEWS: AdminViewScreen[] = [
  viewScreen("dashboard", { kind: "dashboard" }, "Website Management"),
  viewScreen("email", { kind: "email" }, "E-mail Notifications"),
  viewScreen("account", { kind: "account" }, "Your Account"),
  viewScreen("backups", { kind: "backups" }, "Backups"),
  viewScreen("visits", { kind: "visits" }, "Visits and Enquiries"),
  viewScreen("activity", { kind: "activity" }, "Recent activity"),
  viewScreen("submissions", { kind: "submissions" }, "Contact Form Submissions"),
  ...PAGE_GROUPS.map((group) => viewScreen(`content-${group}`, { kind: "content", group }, editorTitleFor(group))),
  ...GALLERY_TYPES.map((galleryType) =>
    viewScreen(`gallery-${galleryType}`, { kind: "gallery", galleryType }, `${GALLERY_TITLES[galleryType]} Gallery`),
  ),
  ...OWNER_LISTS.map((list) => viewScreen(`list-${list.key}`, { kind: "list", list: list.key }, list.title)),
];

/**
 * Goes to a view as the owner does, by taps: Back to Dashboard, then the
 * view's button or row. The page is not reloaded, so a toast on screen stays.
 */
export async function openInApp(page: Page, screen: AdminViewScreen) {
  const back = page.getByRole("button", { name: "Back to Dashboard" });
  if (await back.count()) {
    await back.first().click();
    await expect(page.getByRole("heading", { level: 1, name: "Website Management" })).toBeVisible();
  }
  const opener = openerIdFor(screen.view);
  if (opener) {
    await page.locator(`#${opener}`).click();
    await expect(page.getByRole("heading", { level: 1, name: screen.heading, exact: true })).toBeVisible();
  }
  await settled(page);
}

/** Opens the upload window in the gallery on screen and chooses one file (so its row and Remove show). */
export async function openUploadWindow(page: Page) {
  await page.getByRole("button", { name: "Upload Images" }).click();
  const dialog = page.getByRole("dialog", { name: "Upload Images" });
  await expect(dialog).toBeVisible();
  await uploadInput(page).setInputFiles([await jpegFile("basalt-wall.jpg", { width: 900, height: 600 })]);
  await expect(dialog.getByRole("list", { name: "Chosen files" }).getByRole("listitem")).toHaveCount(1);
  await dialog.evaluate((element) =>
    Promise.all(element.getAnimations({ subtree: true }).map((animation) => animation.finished)),
  );
}

/** The upload window over a gallery with photos. */
export const UPLOAD_WINDOW: AdminScreen = {
  name: "upload-window",
  async open(page) {
    await openByAddress(page, { kind: "gallery", galleryType: "traditional" }, "Traditional Stonework Gallery");
    await openUploadWindow(page);
  },
};

/** The photo viewer over the inbox, on the first enquiry with a photo. */
export const PHOTO_VIEWER: AdminScreen = {
  name: "photo-viewer",
  async open(page) {
    await openByAddress(page, { kind: "submissions" }, "Contact Form Submissions");
    await page
      .getByRole("button", { name: /^Photo 1 of 1 from / })
      .first()
      .click();
    const viewer = page.getByRole("dialog", { name: /^Photos from / });
    await expect(viewer.getByRole("status")).toHaveText("Photo 1 of 1");
    await expect(viewer.getByTestId("photo-loading")).toHaveCount(0);
  },
};

/** Every screen: the views, then the upload window and the photo viewer. */
export const ALL_ADMIN_SCREENS: AdminScreen[] = [...ADMIN_VIEWS, UPLOAD_WINDOW, PHOTO_VIEWER];

/**
 * An enquiry with a phone number and one photo, as a visitor sends it: the
 * photo first (its token), then the form. Every action of the inbox then shows.
 */
export async function sendEnquiryWithPhoto(request: APIRequestContext, name = "Aroha Visitor") {
  const buffer = await sharp({
    create: { width: 1200, height: 900, channels: 3, background: { r: 120, g: 100, b: 80 } },
  })
    .jpeg()
    .toBuffer();
  const upload = await request.post("/api/enquiry-photos", {
    multipart: { photos: { name: "wall.jpg", mimeType: "image/jpeg", buffer } },
  });
  expect(upload.status(), await upload.text()).toBe(201);
  const { token } = (await upload.json()) as { token: string };
  const sent = await request.post("/api/contact", {
    data: {
      name,
      email: "aroha@example.co.nz",
      phone: "027 555 0184",
      message: "Kia ora, the retaining wall behind the shed is leaning. Photo attached.",
      photoTokens: [token],
    },
  });
  expect(sent.status(), await sent.text()).toBe(201);
}
