import type { Locator, Page } from "@playwright/test";
import { expect, hydrated, test } from "./fixtures";

/** Where the toast rests once it has slid in: measured mid-slide, a drag could start beside it. */
async function restingBox(toast: Locator) {
  await toast.evaluate((element) => Promise.all(element.getAnimations().map((animation) => animation.finished)));
  return (await toast.boundingBox())!;
}

async function sendEnquiry(page: Page, name = "Aroha Smith") {
  // Before hydration the click would post the form without JavaScript (and show no toast).
  await hydrated(page);
  await page.getByLabel("Name", { exact: true }).fill(name);
  await page.getByLabel("Email", { exact: true }).fill("aroha@example.co.nz");
  await page.getByLabel("Message", { exact: true }).fill("Could you quote a basalt garden wall?");
  await page.getByRole("button", { name: "Send Message" }).click();
}

test.describe("toasts", () => {
  test("show one at a time, each closable", async ({ page }) => {
    await page.goto("/contact");
    await sendEnquiry(page, "First Visitor");
    const region = page.getByRole("region", { name: "Notifications (F8)" });
    await expect(region.getByRole("listitem")).toHaveCount(1);
    // Both toasts say the same: mark the first, so the test can tell when the second has taken its place.
    await region.getByRole("listitem").evaluate((toast) => toast.setAttribute("data-first-toast", ""));
    await sendEnquiry(page, "Second Visitor");
    await expect(region.locator("[data-first-toast]")).toHaveCount(0);
    await expect(region.getByText("Message Sent")).toHaveCount(1);
    await expect(region.getByRole("listitem")).toHaveCount(1);

    await region.getByRole("button", { name: "Close notification" }).click();
    await expect(region.getByText("Message Sent")).toHaveCount(0);
  });

  test("disappear after 5000 ms", async ({ page }) => {
    // Time stands still until the test moves it, however slowly the page loads.
    await page.clock.install({ time: new Date("2026-01-01T09:00:00Z") });
    await page.clock.pauseAt(new Date("2026-01-01T09:00:01Z"));
    await page.goto("/contact");
    await sendEnquiry(page);
    const toast = page.getByRole("region", { name: "Notifications (F8)" }).getByText("Message Sent");
    await expect(toast).toBeVisible();
    await page.clock.runFor(4000);
    await expect(toast).toBeVisible();
    await page.clock.runFor(2500);
    await expect(toast).toHaveCount(0);
  });

  test("F8 moves focus to the notification area", async ({ page }) => {
    await page.goto("/contact");
    await sendEnquiry(page);
    await expect(page.getByRole("region", { name: "Notifications (F8)" }).getByText("Message Sent")).toBeVisible();
    await page.keyboard.press("F8");
    const focusedInRegion = await page.evaluate(
      () => document.activeElement?.closest('[role="region"][aria-label="Notifications (F8)"]') !== null,
    );
    expect(focusedInRegion).toBe(true);
  });

  test("swiping right past 50 px closes a toast", async ({ page }) => {
    await page.goto("/contact");
    await sendEnquiry(page);
    const toast = page.locator("[data-variant]").filter({ hasText: "Message Sent" });
    await expect(toast).toBeVisible();
    const box = await restingBox(toast);
    const y = box.y + box.height / 2;
    const x = box.x + 20;
    // Radix reads pointer events; a mouse drag produces them at both sizes.
    await page.mouse.move(x, y);
    await page.mouse.down();
    await page.mouse.move(x + 30, y, { steps: 3 });
    await page.mouse.move(x + 120, y, { steps: 6 });
    await page.mouse.up();
    await expect(toast).toHaveCount(0);
  });

  test("a short swipe (under 50 px) does not close it", async ({ page }) => {
    // The page's clock stands still, so nothing closes the toast but the swipe itself.
    await page.clock.install({ time: new Date("2026-01-01T09:00:00Z") });
    await page.clock.pauseAt(new Date("2026-01-01T09:00:01Z"));
    await page.goto("/contact");
    await sendEnquiry(page);
    const toast = page.locator("[data-variant]").filter({ hasText: "Message Sent" });
    await expect(toast).toHaveAttribute("data-state", "open");
    const box = await restingBox(toast);
    const y = box.y + box.height / 2;
    await page.mouse.move(box.x + 20, y);
    await page.mouse.down();
    await page.mouse.move(box.x + 50, y, { steps: 5 });
    await page.mouse.up();
    // Snapped back, and still open: a closing toast would say data-state="closed" while it fades.
    await expect(toast).toHaveAttribute("data-swipe", "cancel");
    await expect(toast).toHaveAttribute("data-state", "open");
    // A closed toast leaves the page 1 s later; this one is still there and open after that.
    await page.clock.runFor(1_500);
    await expect(toast).toHaveAttribute("data-state", "open");
    await expect(toast).toBeVisible();
  });

  test("errors show in the destructive style", async ({ page }) => {
    await page.route("**/api/contact", (route) => route.fulfill({ status: 500, body: "boom" }));
    await page.goto("/contact");
    await sendEnquiry(page);
    const toast = page.locator("[data-variant]").filter({ hasText: "Error" });
    await expect(toast).toHaveAttribute("data-variant", "destructive");
    await expect(toast).toHaveClass(/bg-red-700/);
    await expect(toast).toContainText("Failed to send message. Please try again or call directly.");
  });
});
