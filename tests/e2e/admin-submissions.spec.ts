// @phone-only: the owner's flow on the phone; its checks never look at the layout
import type { Page } from "@playwright/test";
import { formatSubmittedAt } from "~/lib/format-date";
import { expectNoAxeViolations, expectOneH1AndOrderedHeadings, openView, sendEnquiry } from "./admin-helpers";
import { signInApi } from "../support/sign-in-api";
import { expect, test } from "./fixtures";

async function openSubmissions(page: Page) {
  await signInApi(page.request);
  await page.goto("/admin");
  await openView(page, "View Submissions", "Contact Form Submissions");
}

test.describe("submissions when there are none", () => {
  test.use({ serverSetup: { name: "no-submissions" } });

  test("says 'Loading submissions...', then 'No contact submissions yet'", async ({ page }) => {
    let release!: () => void;
    const held = new Promise<void>((resolve) => (release = resolve));
    await page.route(/\/api\/admin\/contact-submissions\?/, async (route) => {
      await held;
      await route.continue();
    });
    await signInApi(page.request);
    await page.goto("/admin");
    await page.getByRole("button", { name: "View Submissions" }).click();
    await expect(page.getByRole("heading", { level: 1, name: "Contact Form Submissions" })).toBeVisible();
    await expect(page.getByText("Loading submissions...")).toBeVisible();
    release();
    await expect(page.getByText("No contact submissions yet")).toBeVisible();
    await expect(page.getByText("Loading submissions...")).toHaveCount(0);
  });
});

test.describe("the dashboard without SMTP settings", () => {
  test.use({ serverSetup: { name: "no-submissions" } });

  test("keeps a notice that e-mail notifications are off, in plain words, with the settings under its details", async ({
    page,
  }) => {
    await signInApi(page.request);
    await page.goto("/admin");
    const notice = page.getByRole("region", { name: "E-mail notifications are off" });
    await expect(notice.locator("p").first()).toHaveText(
      "Nobody is e-mailed about new enquiries. Check this page for them, or ask whoever runs your website to turn on e-mail.",
    );
    await expect(notice.getByText("SMTP_URL and MAIL_FROM are not set", { exact: false })).toBeHidden();
    await notice.getByText("Details for whoever runs your website").click();
    await expect(notice.getByText("SMTP_URL and MAIL_FROM are not set", { exact: false })).toBeVisible();
    await expect(page.getByRole("button", { name: "Send test e-mail" })).toHaveCount(0);
    await expect(page.getByRole("region", { name: "Contact Form Submissions" }).getByTestId("unread-count")).toHaveText(
      "No unread enquiries",
    );
    await expectOneH1AndOrderedHeadings(page, "dashboard");
    await expectNoAxeViolations(page, "dashboard, notifications off");
  });
});

test.describe("the browser's Back button in the admin", () => {
  test.use({ serverSetup: { name: "no-submissions" } });

  test("returns from a view to the dashboard, and Forward opens the view again", async ({ page }) => {
    await openSubmissions(page);
    await expect(page).toHaveURL(/\/admin\?view=submissions$/);
    await page.goBack();
    await expect(page.getByRole("heading", { level: 1, name: "Website Management" })).toBeVisible();
    await expect(page).toHaveURL(/\/admin$/);
    await expect(page.getByRole("button", { name: "View Submissions" })).toBeFocused();
    await page.goForward();
    await expect(page.getByRole("heading", { level: 1, name: "Contact Form Submissions" })).toBeVisible();
    // The in-page Back button steps back the same way: one more Back leaves nothing behind.
    await page.getByRole("button", { name: "Back to Dashboard" }).click();
    await expect(page.getByRole("heading", { level: 1, name: "Website Management" })).toBeVisible();
    await expect(page).toHaveURL(/\/admin$/);
  });
});

test.describe("submissions sent through the contact form", () => {
  test.use({ serverSetup: { name: "with-submissions" } });

  test("are listed newest first with date, name, e-mail, phone and message", async ({ page }) => {
    await sendEnquiry(page, {
      name: "Tom Without Phone",
      email: "tom@example.nz",
      message: "Just the one line for a quote please.",
    });
    await sendEnquiry(page, {
      name: "Aroha Smith",
      email: "aroha@example.co.nz",
      phone: "021 123 4567",
      message: "Kia ora,\nWe need a basalt wall.\nAbout 12 metres long.",
    });

    await openSubmissions(page);
    const entries = page.getByRole("list", { name: "Submissions, newest first" }).getByRole("listitem");
    await expect(entries).toHaveCount(2);
    const [newest, older] = [entries.nth(0), entries.nth(1)];

    const stored = (await (await page.request.get("/api/admin/contact-submissions")).json()) as {
      submittedAt: string;
    }[];
    expect(stored).toHaveLength(2);
    const time = newest.locator("time");
    await expect(time).toHaveText(formatSubmittedAt(stored[0]!.submittedAt));
    await expect(time).toHaveText(
      /^(January|February|March|April|May|June|July|August|September|October|November|December) \d{1,2}(st|nd|rd|th), \d{4} at \d{1,2}:\d{2} (AM|PM)$/,
    );
    await expect(time).toHaveAttribute("datetime", stored[0]!.submittedAt);

    await expect(newest).toContainText("Aroha Smith");
    // Spec §2: Name, Email, Phone if present and Message, each with its label.
    await expect(newest.locator("dt")).toHaveText(["Name", "Email", "Phone", "Message"]);
    await expect(older.locator("dt")).toHaveText(["Name", "Email", "Message"]);
    await expect(newest.getByRole("link", { name: "aroha@example.co.nz" })).toHaveAttribute(
      "href",
      "mailto:aroha@example.co.nz",
    );
    await expect(newest.getByRole("link", { name: "021 123 4567" })).toHaveAttribute("href", "tel:0211234567");
    const message = newest.getByText("Kia ora,", { exact: false });
    expect(await message.evaluate((el) => (el as HTMLElement).innerText)).toBe(
      "Kia ora,\nWe need a basalt wall.\nAbout 12 metres long.",
    );
    expect(await message.evaluate((el) => getComputedStyle(el).whiteSpace)).toBe("pre-line");

    await expect(older).toContainText("Tom Without Phone");
    await expect(older.getByRole("link", { name: "tom@example.nz" })).toHaveAttribute("href", "mailto:tom@example.nz");
    await expect(older.getByText("Phone", { exact: true })).toHaveCount(0);
    await expect(older.locator('a[href^="tel:"]')).toHaveCount(0);

    await expectOneH1AndOrderedHeadings(page, "submissions");
    await expectNoAxeViolations(page, "submissions");
  });
});
