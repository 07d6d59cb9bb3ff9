import http from "node:http";
import { randomUUID } from "node:crypto";
import type { Page } from "@playwright/test";
import { expect, hydrated, test } from "./fixtures";

/** Enquiries stored under this name (each test uses its own, so repeats and order do not matter). */
async function storedEnquiries(dataDir: string, name: string) {
  const { default: Database } = await import("better-sqlite3");
  const db = new Database(`${dataDir}/site.db`, { readonly: true });
  try {
    return db.prepare("select name, email, phone, message from contact_submissions where name = ?").all(name);
  } finally {
    db.close();
  }
}

const field = (page: Page, label: string) => page.getByLabel(label, { exact: true });

async function fillForm(page: Page, name: string) {
  await field(page, "Name").fill(name);
  await field(page, "Email").fill("aroha@example.co.nz");
  await field(page, "Phone (optional)").fill("021 123 4567");
  await field(page, "Message").fill("We would like a quote for a basalt retaining wall.");
}

/** A form post over a raw socket, so the body can be streamed without a Content-Length. */
function rawPost(port: number, body: string, options: { chunked: boolean }): Promise<{ status: number; body: string }> {
  return new Promise((resolve, reject) => {
    const headers: Record<string, string> = {
      "Content-Type": "application/x-www-form-urlencoded",
      "X-Forwarded-For": `10.250.${Math.floor(Math.random() * 250)}.${Math.floor(Math.random() * 250) + 1}`,
    };
    if (options.chunked) headers["Transfer-Encoding"] = "chunked";
    else headers["Content-Length"] = String(Buffer.byteLength(body));
    const req = http.request({ host: "127.0.0.1", port, method: "POST", path: "/contact", headers }, (res) => {
      let text = "";
      res.setEncoding("utf8");
      res.on("data", (chunk: string) => (text += chunk));
      res.on("end", () => resolve({ status: res.statusCode ?? 0, body: text }));
    });
    req.on("error", reject);
    if (options.chunked) {
      for (let i = 0; i < body.length; i += 8 * 1024) req.write(body.slice(i, i + 8 * 1024));
      req.end();
    } else {
      req.end(body);
    }
  });
}

test.describe("the contact form without JavaScript", () => {
  test.use({ javaScriptEnabled: false });

  test("a sent enquiry is really stored, with every field", async ({ page, server }) => {
    const name = `No-JS Visitor ${randomUUID().slice(0, 8)}`;
    await page.goto("/contact");
    await fillForm(page, name);
    await page.getByRole("button", { name: "Send Message" }).click();
    await expect(page.getByRole("status").filter({ hasText: "Message Sent" })).toBeVisible();
    expect(await storedEnquiries(server.dataDir, name)).toEqual([
      {
        name,
        email: "aroha@example.co.nz",
        phone: "021 123 4567",
        message: "We would like a quote for a basalt retaining wall.",
      },
    ]);
  });

  test("a bot that fills the hidden honeypot is thanked, but nothing is stored", async ({ page, server }) => {
    const name = `Honeypot Bot ${randomUUID().slice(0, 8)}`;
    await page.goto("/contact");
    await fillForm(page, name);
    // A bot fills every field it finds; without scripts in the page, the post itself carries the trap.
    await page.route("**/contact", async (route) => {
      const request = route.request();
      if (request.method() !== "POST") return route.fallback();
      // The form posts multipart (it can carry photos): the honeypot's part is sent empty.
      const body = request.postDataBuffer()!.toString("latin1");
      const emptyHoneypot = /(name="website"\r\n\r\n)(?=\r\n--)/;
      expect(body).toMatch(emptyHoneypot);
      await route.fallback({ postData: Buffer.from(body.replace(emptyHoneypot, "$1http://spam.example"), "latin1") });
    });
    await page.getByRole("button", { name: "Send Message" }).click();
    await expect(page.getByRole("status").filter({ hasText: "Message Sent" })).toBeVisible();
    expect(await storedEnquiries(server.dataDir, name)).toEqual([]);
  });

  test("a post from another site is refused with the page and a clear error; the same post from this site is stored", async ({
    page,
    server,
  }) => {
    const name = `Cross-site ${randomUUID().slice(0, 8)}`;
    // Another website with a form aimed at ours.
    await page.route("http://evil.example/**", (route) =>
      route.fulfill({
        contentType: "text/html",
        body: `<!DOCTYPE html><title>Win a prize</title><form method="post" action="${server.url}/contact">
          <input name="name" value="${name}"><input name="email" value="victim@example.nz">
          <input name="message" value="Sent from another website without asking."><button>Claim</button></form>`,
      }),
    );
    await page.goto("http://evil.example/prize");
    const [refused] = await Promise.all([
      page.waitForResponse(`${server.url}/contact`),
      page.getByRole("button", { name: "Claim" }).click(),
    ]);
    expect(refused.status()).toBe(403);
    expect((await refused.request().allHeaders())["origin"]).toBe("http://evil.example");
    const notice = page.getByRole("alert").filter({ hasText: "Message not sent" });
    await expect(notice).toContainText("The form was sent from another website, so nothing was sent.");
    await expect(page.getByRole("heading", { level: 1 })).toHaveText("About Mark Brennan");
    expect(await storedEnquiries(server.dataDir, name)).toEqual([]);

    // The control: the same post from the site's own page goes through.
    await page.goto("/contact");
    await fillForm(page, name);
    const [accepted] = await Promise.all([
      page.waitForResponse(`${server.url}/contact`),
      page.getByRole("button", { name: "Send Message" }).click(),
    ]);
    expect(accepted.status()).toBe(303);
    expect((await accepted.request().allHeaders())["origin"]).toBe(server.url);
    await expect(page.getByRole("status").filter({ hasText: "Message Sent" })).toBeVisible();
    expect(await storedEnquiries(server.dataDir, name)).toHaveLength(1);
  });

  test("a post without an Origin but marked cross-site by the browser is refused too", async ({ request, server }) => {
    const name = `Fetch-site ${randomUUID().slice(0, 8)}`;
    const form = { name, email: "v@example.nz", message: "Quote for a stone wall please." };
    const refused = await request.post("/contact", { form, headers: { "Sec-Fetch-Site": "cross-site" } });
    expect(refused.status()).toBe(403);
    expect(await refused.text()).toContain("Message not sent");
    const control = await request.post("/contact", {
      form,
      headers: { "Sec-Fetch-Site": "same-origin", Origin: server.url },
      maxRedirects: 0,
    });
    expect(control.status()).toBe(303);
    expect(await storedEnquiries(server.dataDir, name)).toHaveLength(1);
  });

  test("form bodies over 64 KB are refused with 413 and nothing is stored, with or without a Content-Length", async ({
    server,
  }) => {
    const name = `Oversized ${randomUUID().slice(0, 8)}`;
    const body = new URLSearchParams({ name, email: "v@example.nz", message: "x".repeat(70 * 1024) }).toString();
    const declared = await rawPost(server.port, body, { chunked: false });
    expect([declared.status, declared.body]).toEqual([413, "Request body too large"]);
    const streamed = await rawPost(server.port, body, { chunked: true });
    expect(streamed.status).toBe(413);
    expect(streamed.body).toContain("Failed to send message. Please try again or call directly.");
    // Just under the limit is read (and judged by the schema: this message is too long).
    const under = new URLSearchParams({ name, email: "v@example.nz", message: "x".repeat(60 * 1024) }).toString();
    const judged = await rawPost(server.port, under, { chunked: true });
    expect(judged.status).toBe(400);
    expect(judged.body).toContain("Message must be at most 5000 characters");
    expect(await storedEnquiries(server.dataDir, name)).toEqual([]);
  });
});

const sendButton = (page: Page) => page.getByRole("button", { name: "Send Message" });
const resultBox = (page: Page) => page.locator("#contact-result");

/** Clicks Send and answers the form post's response (the document post, not a script's). */
async function postForm(page: Page) {
  const [response] = await Promise.all([
    page.waitForResponse((r) => new URL(r.url()).pathname === "/contact" && r.request().method() === "POST"),
    sendButton(page).click(),
  ]);
  return response;
}

test.describe("the form always answers, at a phone's size", () => {
  test.use({ viewport: { width: 390, height: 844 } });

  test.describe("with scripts off", () => {
    test.use({ javaScriptEnabled: false });

    test("a stored enquiry answers 303 to /contact?sent=1#contact-result with no cookie; that page opens at the focused 'Message Sent'; a reload sends nothing", async ({
      page,
      server,
    }) => {
      const name = `Answered ${randomUUID().slice(0, 8)}`;
      await page.goto("/contact");
      await expect(page.locator("form[aria-labelledby='contact-form-title']")).toHaveAttribute(
        "action",
        "/contact#contact-result",
      );
      await fillForm(page, name);
      const posted = await postForm(page);
      expect(posted.status()).toBe(303);
      const headers = await posted.allHeaders();
      expect(headers["location"]).toBe("/contact?sent=1#contact-result");
      expect(headers["set-cookie"]).toBeUndefined();

      await expect(page).toHaveURL(/\/contact\?sent=1#contact-result$/);
      const box = resultBox(page);
      await expect(box).toHaveAttribute("role", "status");
      await expect(box).toContainText("Message Sent");
      await expect(box).toContainText("Thank you for your message! We will get back to you soon.");
      await expect(box).toBeFocused();
      await expect(box).toBeInViewport();
      expect(await storedEnquiries(server.dataDir, name)).toHaveLength(1);

      // Post, redirect, get: reloading the answer is a GET.
      const methods: string[] = [];
      page.on("request", (request) => methods.push(request.method()));
      await page.reload();
      await expect(resultBox(page)).toContainText("Message Sent");
      expect(methods.filter((method) => method === "POST")).toEqual([]);
      expect(await storedEnquiries(server.dataDir, name)).toHaveLength(1);
    });

    test("a post with errors answers the form with the text kept and the errors in the focused result box", async ({
      page,
    }) => {
      await page.goto("/contact");
      await field(page, "Email").fill("nope");
      await field(page, "Message").fill("short");
      const posted = await postForm(page);
      expect(posted.status()).toBe(400);
      await expect(page).toHaveURL(/\/contact#contact-result$/);
      const box = resultBox(page);
      await expect(box).toHaveAttribute("role", "alert");
      await expect(box).toBeFocused();
      await expect(box).toBeInViewport();
      await expect(box.getByRole("listitem")).toHaveText([
        "Name is required",
        "Valid email is required",
        "Message must be at least 10 characters",
      ]);
      // Each error leads to its field.
      await expect(box.getByRole("link", { name: "Valid email is required" })).toHaveAttribute(
        "href",
        "#contact-email",
      );
      await expect(field(page, "Email")).toHaveValue("nope");
      await expect(field(page, "Message")).toHaveValue("short");
    });

    test("the same enquiry sent twice is stored once, and both posts see 'Message Sent'", async ({ page, server }) => {
      const name = `Twice No-JS ${randomUUID().slice(0, 8)}`;
      for (let i = 0; i < 2; i++) {
        await page.goto("/contact");
        await fillForm(page, name);
        expect((await postForm(page)).status()).toBe(303);
        await expect(resultBox(page)).toContainText("Message Sent");
      }
      expect(await storedEnquiries(server.dataDir, name)).toHaveLength(1);
    });
  });

  test("a send before the form's script has loaded is answered by the page, at the focused result box", async ({
    page,
    server,
  }) => {
    const name = `Before Island ${randomUUID().slice(0, 8)}`;
    // The island's React part never arrives: the visitor sends the server-rendered form.
    await page.route("**/assets/contact-hydrate-*.js", () => new Promise(() => {}));
    await page.goto("/contact");
    await fillForm(page, name);
    await expect(page.locator("html[data-hydrated]")).toHaveCount(0);
    const posted = await postForm(page);
    expect(posted.status()).toBe(303);
    await expect(page).toHaveURL(/\/contact\?sent=1#contact-result$/);
    await expect(resultBox(page)).toContainText("Message Sent");
    await expect(resultBox(page)).toBeFocused();
    expect(await storedEnquiries(server.dataDir, name)).toHaveLength(1);
  });

  test("with the form's script, the same enquiry sent twice is stored once and both sends show 'Message Sent'", async ({
    page,
    server,
  }) => {
    const name = `Twice JS ${randomUUID().slice(0, 8)}`;
    await page.goto("/contact");
    await hydrated(page);
    const toasts = page.getByRole("region", { name: "Notifications (F8)" });
    for (let i = 0; i < 2; i++) {
      await fillForm(page, name);
      const [answer] = await Promise.all([page.waitForResponse("**/api/contact"), sendButton(page).click()]);
      expect(answer.status()).toBe(201);
      await expect(toasts.getByText("Message Sent")).toBeVisible();
      await expect(field(page, "Name")).toHaveValue("");
      await toasts.getByRole("button", { name: /close/i }).click();
      await expect(toasts.getByText("Message Sent")).toHaveCount(0);
    }
    expect(await storedEnquiries(server.dataDir, name)).toHaveLength(1);
  });
});
