import type { APIRequestContext, Locator, Page } from "@playwright/test";
import { makeImage } from "../fixtures/images";
import { expect, hydrated as hydratedPage } from "./fixtures";

/** Shared steps of the admin browser tests. */

export const toastRegion = (page: Page) => page.getByRole("region", { name: "Notifications (F8)" });

/** The toast on screen (only one shows at a time) with this title and description. */
export async function expectToast(
  page: Page,
  title: string,
  description?: string | RegExp,
  variant?: "default" | "destructive",
) {
  // One locator with every condition, checked at once: some toasts only show for 500 ms before a redirect.
  let toast = page
    .locator(variant ? `[data-variant="${variant}"]` : "[data-variant]")
    .filter({ has: page.getByText(title, { exact: true }) });
  if (description !== undefined) toast = toast.filter({ hasText: description });
  await expect(toast).toBeVisible();
  return toast;
}

/**
 * Records every toast the page shows as "variant: text", even one that a
 * redirect removes 500 ms later (too briefly to be sure to catch it by polling).
 */
export async function recordToasts(page: Page): Promise<string[]> {
  const seen: string[] = [];
  await page.exposeFunction("reportToastForTest", (text: string) => void seen.push(text));
  await page.evaluate(() => {
    const report = (window as unknown as { reportToastForTest: (text: string) => void }).reportToastForTest;
    new MutationObserver(() => {
      for (const toast of document.querySelectorAll("[data-variant]")) {
        report(`${toast.getAttribute("data-variant")}: ${toast.textContent ?? ""}`);
      }
    }).observe(document.body, { childList: true, subtree: true, characterData: true });
  });
  return seen;
}

/** The spec's 401 toast was shown (recorded with `recordToasts`). */
export async function expectUnauthorizedToastShown(seen: string[]) {
  await expect
    .poll(() =>
      seen.some(
        (t) =>
          t.startsWith("destructive: ") &&
          t.includes("Unauthorized") &&
          t.includes("You are logged out. Logging in again..."),
      ),
    )
    .toBe(true);
}

/** Closes the toast on screen, so the next one can be told apart. */
export async function closeToast(page: Page) {
  const close = toastRegion(page).getByRole("button", { name: "Close notification" });
  if (await close.count()) await close.first().click();
  await expect(toastRegion(page).getByRole("listitem")).toHaveCount(0);
}

export { hydrated } from "./fixtures";

/** Sends an enquiry through the contact page, as a visitor does, and waits for its toast. */
export async function sendEnquiry(
  page: Page,
  values: { name: string; email: string; phone?: string; message: string },
) {
  await page.goto("/contact");
  await hydratedPage(page);
  await page.getByLabel("Name", { exact: true }).fill(values.name);
  await page.getByLabel("Email", { exact: true }).fill(values.email);
  if (values.phone) await page.getByLabel("Phone (optional)", { exact: true }).fill(values.phone);
  await page.getByLabel("Message", { exact: true }).fill(values.message);
  await page.getByRole("button", { name: "Send Message" }).click();
  await expectToast(page, "Message Sent");
}

/** Opens a dashboard button's view and waits for its heading. */
export async function openView(page: Page, button: string, heading: string) {
  // The dashboard's notices push its buttons down as they arrive: tap once it is no longer busy.
  await expect(page.locator('[aria-busy="true"]')).toHaveCount(0);
  await page.getByRole("button", { name: button, exact: true }).click();
  await expect(page.getByRole("heading", { level: 1, name: heading })).toBeVisible();
}

/** The dashboard's "Settings and reports" rows, and the heading of the view each opens. */
export const SETTINGS_ROWS = {
  "E-mail": "E-mail Notifications",
  "Your account": "Your Account",
  Backups: "Backups",
  Visits: "Visits and Enquiries",
  Activity: "Recent activity",
} as const;

/** Opens a "Settings and reports" row from the dashboard on screen, and waits for its view. */
export async function openSettings(page: Page, row: keyof typeof SETTINGS_ROWS) {
  await page
    .getByRole("region", { name: "Settings and reports" })
    .getByRole("link", { name: new RegExp(`^${row}\\b`) })
    .click();
  await expect(page.getByRole("heading", { level: 1, name: SETTINGS_ROWS[row], exact: true })).toBeVisible();
}

export async function backToDashboard(page: Page) {
  await page.getByRole("button", { name: "Back to Dashboard" }).click();
  await expect(page.getByRole("heading", { level: 1, name: "Website Management" })).toBeVisible();
}

/** A section of the content editor, by its title. */
export const editorSection = (page: Page, title: string) => page.getByRole("region", { name: title, exact: true });

/** A JPEG as setInputFiles takes it. */
export async function jpegFile(name: string, size: { width: number; height: number } = { width: 320, height: 240 }) {
  return { name, mimeType: "image/jpeg", buffer: await makeImage("jpeg", size) };
}

export const uploadInput = (page: Page) =>
  page.getByRole("dialog", { name: "Upload Images" }).locator('input[type="file"]');

/** The gallery manager's cards, in display order. */
export const imageCards = (page: Page) => page.getByRole("list", { name: /images$/ }).getByRole("listitem");

/** The image ids of a gallery as the API lists them. */
export async function galleryIds(request: APIRequestContext, type: string): Promise<string[]> {
  const res = await request.get(`/api/galleries/${type}`);
  expect(res.status()).toBe(200);
  return ((await res.json()) as { id: string }[]).map((image) => image.id);
}

export async function galleryImages(request: APIRequestContext, type: string) {
  const res = await request.get(`/api/galleries/${type}`);
  expect(res.status()).toBe(200);
  return (await res.json()) as { id: string; imagePath: string; caption: string }[];
}

/** The image files a public gallery shows, in order (streamed markup not yet placed is skipped). */
export async function publicGallerySources(page: Page, type: string): Promise<string[]> {
  return page
    .locator(`main ul[data-gallery="${type}"] img`)
    .evaluateAll((imgs) => imgs.filter((img) => !img.closest("[hidden]")).map((img) => img.getAttribute("src") ?? ""));
}

/** The ids of the manager's cards, in display order. */
export async function cardIds(page: Page): Promise<string[]> {
  return imageCards(page).evaluateAll((cards) => cards.map((card) => card.getAttribute("data-image-id") ?? ""));
}

/**
 * Drags a card by its handle with the mouse, in small steps (dnd-kit starts
 * after a few pixels), so that the card's centre ends on the target's centre.
 * The grid is centred in the window first, away from the edges where
 * dragging scrolls the page.
 */
export async function mouseDrag(
  page: Page,
  handle: Locator,
  card: Locator,
  target: Locator,
  onOver?: () => Promise<void>,
) {
  await page.getByRole("list", { name: /images$/ }).evaluate((el) => el.scrollIntoView({ block: "center" }));
  const h = (await handle.boundingBox())!;
  const from = (await card.boundingBox())!;
  const to = (await target.boundingBox())!;
  const start = { x: h.x + h.width / 2, y: h.y + h.height / 2 };
  const end = {
    x: start.x + (to.x + to.width / 2 - (from.x + from.width / 2)),
    y: start.y + (to.y + to.height / 2 - (from.y + from.height / 2)),
  };
  await page.mouse.move(start.x, start.y);
  await page.mouse.down();
  await page.mouse.move(start.x + 8, start.y + 8, { steps: 4 });
  await page.mouse.move(end.x, end.y, { steps: 15 });
  await onOver?.();
  await page.mouse.up();
}

export { expectNoAxeViolations, expectOneH1AndOrderedHeadings } from "./a11y";

/** Presses `key` until dnd-kit's live region announces the move: it listens for the arrows a tick after a pick-up. */
export async function pressUntilAnnounced(page: Page, key: string, liveRegion: Locator, announcement: string) {
  await expect(async () => {
    await page.keyboard.press(key);
    await expect(liveRegion).toContainText(announcement, { timeout: 1_000 });
  }).toPass({ timeout: 10_000 });
}
