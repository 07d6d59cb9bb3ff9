import type { Page } from "@playwright/test";
import { expect, hydrated, isPhone, menuButton, test } from "./fixtures";

const field = (page: Page, label: string) => page.getByLabel(label, { exact: true });

async function fillValid(page: Page) {
  await field(page, "Name").fill("Aroha Smith");
  await field(page, "Email").fill("aroha@example.co.nz");
  await field(page, "Phone (optional)").fill("021 123 4567");
  await field(page, "Message").fill("We would like a quote for a 12 m basalt retaining wall.");
}

test.describe("contact form", () => {
  test("React loads only when the form comes near the screen (decision 0055)", async ({ page }) => {
    await page.setViewportSize({ width: 390, height: 700 });
    const scripts: string[] = [];
    page.on("request", (request) => {
      if (request.resourceType() === "script") scripts.push(new URL(request.url()).pathname);
    });
    await page.goto("/contact");
    await page.waitForLoadState("load");
    await expect(page.locator("html")).toHaveAttribute("data-islands-mounted", "menu");
    expect(scripts.some((script) => /\/client-/.test(script))).toBe(false);
    await hydrated(page);
    expect(scripts.some((script) => /\/client-/.test(script))).toBe(true);
  });

  test("has its fields, a 4-row message box and the send button", async ({ page }) => {
    await page.goto("/contact");
    await hydrated(page);
    await expect(field(page, "Name")).toBeVisible();
    await expect(field(page, "Email")).toHaveAttribute("type", "email");
    await expect(field(page, "Phone (optional)")).not.toHaveAttribute("required", "");
    await expect(field(page, "Message")).toHaveAttribute("rows", "4");
    await expect(page.getByRole("button", { name: "Send Message" })).toBeEnabled();
  });

  test("shows each validation message under its field, tied to the input", async ({ page }) => {
    await page.goto("/contact");
    await hydrated(page);
    await field(page, "Email").fill("not-an-email");
    await field(page, "Message").fill("Too short");
    await page.getByRole("button", { name: "Send Message" }).click();

    for (const [label, message] of [
      ["Name", "Name is required"],
      ["Email", "Valid email is required"],
      ["Message", "Message must be at least 10 characters"],
    ] as const) {
      const input = field(page, label);
      await expect(input).toHaveAttribute("aria-invalid", "true");
      await expect(input).toHaveAccessibleDescription(message);
    }
    await expect(field(page, "Phone (optional)")).not.toHaveAttribute("aria-invalid", "true");
    await expect(field(page, "Name")).toBeFocused();
  });

  test("sends, shows 'Sending...' with the button disabled, then thanks and resets", async ({ page, server }) => {
    let release!: () => void;
    const held = new Promise<void>((resolve) => (release = resolve));
    await page.route("**/api/contact", async (route) => {
      await held;
      await route.continue();
    });
    await page.goto("/contact");
    await hydrated(page);
    await fillValid(page);
    await page.getByRole("button", { name: "Send Message" }).click();
    const sending = page.getByRole("button", { name: "Sending..." });
    await expect(sending).toBeDisabled();
    release();

    const region = page.getByRole("region", { name: "Notifications (F8)" });
    await expect(region.getByText("Message Sent")).toBeVisible();
    await expect(region.getByText("Thank you for your message! We will get back to you soon.")).toBeVisible();
    await expect(page.getByRole("button", { name: "Send Message" })).toBeEnabled();
    await expect(field(page, "Name")).toHaveValue("");
    await expect(field(page, "Message")).toHaveValue("");

    // It really was stored.
    const { default: Database } = await import("better-sqlite3");
    const db = new Database(`${server.dataDir}/site.db`, { readonly: true });
    const rows = db.prepare("select name, phone, message from contact_submissions").all();
    db.close();
    expect(rows).toContainEqual({
      name: "Aroha Smith",
      phone: "021 123 4567",
      message: "We would like a quote for a 12 m basalt retaining wall.",
    });
  });

  test("on failure shows the error toast and keeps everything typed", async ({ page }) => {
    await page.route("**/api/contact", (route) => route.fulfill({ status: 503, body: "Service Unavailable" }));
    await page.goto("/contact");
    await hydrated(page);
    await fillValid(page);
    await page.getByRole("button", { name: "Send Message" }).click();
    const region = page.getByRole("region", { name: "Notifications (F8)" });
    await expect(region.getByText("Error", { exact: true })).toBeVisible();
    await expect(region.getByText("Failed to send message. Please try again or call directly.")).toBeVisible();
    await expect(field(page, "Name")).toHaveValue("Aroha Smith");
    await expect(field(page, "Email")).toHaveValue("aroha@example.co.nz");
    await expect(field(page, "Phone (optional)")).toHaveValue("021 123 4567");
    await expect(field(page, "Message")).toHaveValue("We would like a quote for a 12 m basalt retaining wall.");
  });
});

test("offline before the form's checks have loaded: the error toast, everything kept, and it sends once back online", async ({
  page,
  context,
}) => {
  await page.goto("/contact");
  await hydrated(page);
  const checksLoaded = page
    .waitForRequest((request) => /contact-schema/.test(request.url()), { timeout: 5_000 })
    .catch(() => null);
  // A tunnel on the road: the checks' script cannot come (typing starts to load it).
  await context.setOffline(true);
  await fillValid(page);
  await page.getByRole("button", { name: "Send Message" }).click();
  // The notification area's script could not come either: the toast shows without it.
  await expect(page.getByRole("alert")).toHaveText(
    /^Error\s*Failed to send message\. Please try again or call directly\./,
  );
  expect(await checksLoaded, "the form asked for its checks' script while offline").not.toBeNull();
  await expect(field(page, "Message")).toHaveValue("We would like a quote for a 12 m basalt retaining wall.");
  await expect(page.getByRole("button", { name: "Send Message" })).toBeEnabled();

  await context.setOffline(false);
  await page.getByRole("button", { name: "Send Message" }).click();
  await expect(page.getByText("Message Sent", { exact: true })).toBeVisible();
  await expect(field(page, "Message")).toHaveValue("");
});

test.describe("spam protection", () => {
  test("after 5 enquiries from one address the next is refused and the failure toast shows", async ({
    page,
    request,
  }) => {
    for (let i = 0; i < 5; i++) {
      const res = await request.post("/api/contact", {
        data: { name: `Visitor ${i}`, email: "v@example.nz", message: "Quote for a stone wall please." },
      });
      expect(res.status()).toBe(201);
    }
    await page.goto("/contact");
    await hydrated(page);
    await fillValid(page);
    // A sixth, different enquiry (the same one as an earlier test's would be answered as that one).
    await field(page, "Message").fill("A sixth enquiry: a quote for a 12 m basalt retaining wall.");
    const answer = page.waitForResponse("**/api/contact");
    await page.getByRole("button", { name: "Send Message" }).click();
    expect((await answer).status()).toBe(429);
    const region = page.getByRole("region", { name: "Notifications (F8)" });
    await expect(region.getByText("Failed to send message. Please try again or call directly.")).toBeVisible();
    await expect(field(page, "Name")).toHaveValue("Aroha Smith");
  });

  test("a bot that fills the hidden honeypot is thanked but nothing is stored", async ({ page, server }) => {
    await page.goto("/contact");
    await hydrated(page);
    await fillValid(page);
    await field(page, "Name").fill("Honeypot Bot");
    await page
      .locator('input[name="website"]')
      .evaluate((input: HTMLInputElement) => (input.value = "http://spam.example"));
    await page.getByRole("button", { name: "Send Message" }).click();
    await expect(page.getByRole("region", { name: "Notifications (F8)" }).getByText("Message Sent")).toBeVisible();
    const { default: Database } = await import("better-sqlite3");
    const db = new Database(`${server.dataDir}/site.db`, { readonly: true });
    const rows = db.prepare("select name from contact_submissions where name = 'Honeypot Bot'").all();
    db.close();
    expect(rows).toEqual([]);
  });

  test("the honeypot is hidden from people and screen readers", async ({ page }) => {
    await page.goto("/contact");
    await hydrated(page);
    await expect(page.locator('input[name="website"]')).toBeHidden();
    await expect(page.getByLabel("Leave this field empty")).toBeHidden();
  });
});

test.describe("with JavaScript disabled", () => {
  test.use({ javaScriptEnabled: false });

  test("every public page is fully readable", async ({ page }, testInfo) => {
    const pages = [
      ["/", "Stonemasonry & Hard Landscaping in Taranaki"],
      ["/stonework", "Professional Stonemasonry"],
      ["/landscaping", "Hard Landscaping"],
      ["/contact", "About Mark Brennan"],
    ] as const;
    for (const [path, heading] of pages) {
      await page.goto(path);
      await expect(page.getByRole("heading", { level: 1 })).toHaveText(heading);
      await expect(page.getByRole("contentinfo")).toContainText("© 2025");
      // On a phone the links are behind the header's menu, a <details> that opens without JavaScript.
      if (isPhone(testInfo)) await menuButton(page).click();
      await expect(page.getByRole("link", { name: "Stonework", exact: true }).first()).toBeVisible();
    }
  });

  test("the contact form validates on the server with the same messages", async ({ page }) => {
    await page.goto("/contact");
    await field(page, "Email").fill("nope");
    await field(page, "Message").fill("short");
    await page.getByRole("button", { name: "Send Message" }).click();
    await expect(page).toHaveURL(/\/contact#contact-result$/);
    await expect(field(page, "Name")).toHaveAccessibleDescription("Name is required");
    await expect(field(page, "Email")).toHaveAccessibleDescription("Valid email is required");
    await expect(field(page, "Message")).toHaveAccessibleDescription("Message must be at least 10 characters");
    await expect(field(page, "Email")).toHaveValue("nope");
    await expect(field(page, "Email")).toHaveAttribute("aria-invalid", "true");
  });

  test("the contact form shows the failure message when the limit is reached", async ({ page, request }) => {
    for (let i = 0; i < 5; i++) {
      await request.post("/api/contact", {
        data: { name: `V${i}`, email: "v@example.nz", message: "Quote for a stone wall please." },
      });
    }
    await page.goto("/contact");
    await fillValid(page);
    // A sixth, different enquiry (the same one as an earlier test's would be answered as that one).
    await field(page, "Message").fill("A sixth enquiry: a quote for a 12 m basalt retaining wall.");
    await page.getByRole("button", { name: "Send Message" }).click();
    await expect(
      page.getByRole("alert").filter({ hasText: "Failed to send message. Please try again or call directly." }),
    ).toBeVisible();
    await expect(field(page, "Message")).toHaveValue("A sixth enquiry: a quote for a 12 m basalt retaining wall.");
  });

  test("the contact form sends and shows a success message", async ({ page }) => {
    await page.goto("/contact");
    await fillValid(page);
    await page.getByRole("button", { name: "Send Message" }).click();
    const status = page.getByRole("status").filter({ hasText: "Message Sent" });
    await expect(status).toContainText("Thank you for your message! We will get back to you soon.");
    await expect(field(page, "Name")).toHaveValue("");
  });
});
