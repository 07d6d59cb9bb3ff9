// @phone-only: it sets its own phone-sized screen
import type { Page } from "@playwright/test";
import { backToDashboard, editorSection, imageCards, openView } from "./admin-helpers";
import { OWNER_PHONE } from "./admin-screens";
import { signInApi } from "../support/sign-in-api";
import { expect, hydrated, test } from "./fixtures";

// The owner's changes on a dropped signal: each fails at once with the spec's message, and none is
// sent again by itself when the signal returns (spec §8, §9: no retries).

test.use({
  serverSetup: { name: "admin-offline", seed: { galleries: { traditional: 3 } } },
  viewport: OWNER_PHONE,
  isMobile: true,
  hasTouch: true,
});

/** The spec's error toast, within 5 s of the change (the change itself never waits for the signal). */
async function expectSpecError(page: Page, title: string, description: string) {
  const toast = page
    .locator('[data-variant="destructive"]')
    .filter({ hasText: title })
    .filter({ hasText: description });
  await expect(toast).toBeVisible({ timeout: 5_000 });
}

test("offline, every change shows its spec error at once, and nothing is sent once the signal returns", async ({
  page,
  context,
}) => {
  // Many steps, on a 2-core machine shared with other runs: room beyond the default minute.
  test.slow();
  await signInApi(page.request);
  await page.goto("/admin");
  await hydrated(page);
  // Both screens loaded while the signal is good (their data stays: never stale, spec §9).
  await openView(page, "Traditional Stonework", "Traditional Stonework Gallery");
  await expect(imageCards(page)).toHaveCount(3);
  await backToDashboard(page);
  await openView(page, "Footer", "Content Editor");
  const section = editorSection(page, "Footer Description");
  await expect(section.getByLabel("Content")).toBeEnabled();
  await section.getByLabel("Content").fill("Written with no signal");

  const sent: string[] = [];
  page.on("request", (request) => {
    const { pathname } = new URL(request.url());
    if (pathname.startsWith("/api/") || pathname === "/healthz") sent.push(`${request.method()} ${pathname}`);
  });
  await context.setOffline(true);

  await section.getByRole("button", { name: "Save Changes" }).click();
  await expectSpecError(page, "Error", "Failed to update content. Please try again.");
  await expect(section.getByRole("button", { name: "Save Changes" })).toBeEnabled();

  await page.getByRole("button", { name: "Back to Dashboard" }).click();
  await page
    .getByRole("dialog", { name: "Discard unsaved changes?" })
    .getByRole("button", { name: "Discard changes" })
    .click();
  await openView(page, "Traditional Stonework", "Traditional Stonework Gallery");
  const first = imageCards(page).first();

  await first.getByRole("button", { name: /^Edit caption/ }).click();
  await first.getByLabel("Caption").fill("A caption with no signal");
  await first.getByRole("button", { name: "Save" }).click();
  await expectSpecError(page, "Update failed", "Failed to update caption");
  await first.getByRole("button", { name: "Cancel" }).click();

  page.once("dialog", (question) => void question.accept());
  await first.getByRole("button", { name: "Delete image" }).click();
  await expectSpecError(page, "Delete failed", "Failed to delete image");

  const live = page.locator('[id^="DndLiveRegion"]');
  await first.getByRole("button", { name: /^Drag to reorder/ }).focus();
  await page.keyboard.press("Space");
  await expect(live).toContainText("Picked up");
  // dnd-kit listens for the arrows a tick after the pick-up: pressed again only while nothing answered.
  await expect(async () => {
    await page.keyboard.press("ArrowRight");
    await expect(live).toContainText("is over position 2 of 3.", { timeout: 1_000 });
  }).toPass();
  await page.keyboard.press("Space");
  await expectSpecError(page, "Reorder failed", "Failed to reorder images");

  // Each change was tried once, at once.
  expect(sent.filter((line) => !line.startsWith("GET "))).toEqual([
    "PUT /api/admin/content/footer.description",
    "PATCH /api/admin/gallery-images/" + (await first.getAttribute("data-image-id")),
    "DELETE /api/admin/gallery-images/" + (await first.getAttribute("data-image-id")),
    "PUT /api/admin/gallery-images/reorder",
  ]);

  // The signal returns. Whatever the page would send by itself goes when the browser says so ("online"),
  // before a request the test sends after that event: only that one may follow.
  await page.evaluate(() => {
    const seen = new Promise<void>((resolve) =>
      window.addEventListener("online", () => setTimeout(resolve, 0), { once: true }),
    );
    (window as unknown as { backOnline: Promise<void> }).backOnline = seen;
  });
  const before = sent.length;
  await context.setOffline(false);
  await page.evaluate(() => (window as unknown as { backOnline: Promise<void> }).backOnline);
  await page.evaluate(() => fetch("/healthz").then((res) => res.status));
  expect(sent.slice(before)).toEqual(["GET /healthz"]);
});
