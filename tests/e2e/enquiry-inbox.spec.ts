// @phone-only: the owner's flow on the phone; its checks never look at the layout
import fs from "node:fs/promises";
import type { Page } from "@playwright/test";
import { startSmtpServer, type TestSmtpServer } from "../support/smtp";
import { startTestServer, type TestServer } from "../support/test-server";
import {
  expectNoAxeViolations,
  expectOneH1AndOrderedHeadings,
  expectToast,
  hydrated,
  openSettings,
  openView,
  sendEnquiry,
} from "./admin-helpers";
import { signInApi } from "../support/sign-in-api";
import { test as base, expect } from "./fixtures";

/**
 * The inbox in the browser: an enquiry sent through the form reaches a real
 * SMTP server, and the owner works it from the inbox on a phone.
 */
const NOTIFY_EMAIL = "owner@example.nz";

type MailWorld = { smtp: TestSmtpServer; server: TestServer };

const test = base.extend<{ smtp: TestSmtpServer }, { mailWorld: MailWorld }>({
  // One SMTP server and one site per worker, the site sending through the SMTP server.
  mailWorld: [
    async ({}, use) => {
      const smtp = await startSmtpServer();
      const server = await startTestServer({
        env: { SMTP_URL: smtp.url, MAIL_FROM: "Website <website@example.nz>", NOTIFY_EMAIL },
      });
      await use({ smtp, server });
      await server.stop();
      await smtp.stop();
    },
    { scope: "worker" },
  ],
  server: async ({ mailWorld }, use) => use(mailWorld.server),
  smtp: async ({ mailWorld }, use) => use(mailWorld.smtp),
});

/** Unique per test and project, so tests sharing the worker's server never see each other's enquiries. */
const uniqueName = (label: string, testInfo: { project: { name: string }; repeatEachIndex: number }) =>
  `${label} ${testInfo.project.name} ${testInfo.repeatEachIndex} ${Math.random().toString(36).slice(2, 7)}`;

const card = (page: Page, name: string) =>
  page.getByRole("listitem").filter({ has: page.getByRole("heading", { level: 2, name }) });

test("an enquiry is e-mailed to the owner, who reads it, marks it unread, exports the CSV and deletes it", async ({
  page,
  smtp,
}, testInfo) => {
  const name = uniqueName("Aroha", testInfo);
  const already = smtp.messages.length;
  await sendEnquiry(page, {
    name,
    email: "aroha@example.co.nz",
    phone: "021 123 4567",
    message: "Kia ora,\nWe need a basalt wall.\nAbout 12 metres long.",
  });

  // The e-mail reaches NOTIFY_EMAIL with the visitor as Reply-To.
  await expect.poll(() => smtp.messages.find((mail) => mail.subject === `New enquiry from ${name}`)).toBeTruthy();
  const mail = smtp.messages.find((m) => m.subject === `New enquiry from ${name}`)!;
  expect(mail.envelope.to).toEqual([NOTIFY_EMAIL]);
  expect(mail.header("reply-to")).toBe(`${name} <aroha@example.co.nz>`);
  expect(mail.text).toContain("We need a basalt wall.");
  expect(smtp.messages.length).toBe(already + 1);

  await signInApi(page.request);
  await page.goto("/admin");
  const submissionsCard = page.getByRole("region", { name: "Contact Form Submissions" });
  await expect(submissionsCard.getByTestId("unread-count")).toHaveText(/^[1-9]\d* unread enquir(y|ies)$/);
  await expect(page.getByRole("link", { name: /^E-mail/ })).toHaveAccessibleName(
    `E-mail On: enquiries go to ${NOTIFY_EMAIL}`,
  );
  await expect(page.getByRole("region", { name: "E-mail notifications are off" })).toHaveCount(0);
  await expectNoAxeViolations(page, "dashboard, notifications on");
  await openView(page, "View Submissions", "Contact Form Submissions");

  const entry = card(page, name);
  await expect(entry).toContainText("New");
  await expect(entry).toContainText("E-mail notification: Sent");
  await expect(entry.getByRole("link", { name: "aroha@example.co.nz" })).toHaveAttribute(
    "href",
    "mailto:aroha@example.co.nz",
  );
  await expect(entry.getByRole("link", { name: "021 123 4567" })).toHaveAttribute("href", "tel:0211234567");
  await expectOneH1AndOrderedHeadings(page, "inbox");
  await expectNoAxeViolations(page, "inbox");

  // The whole message shows; being shown does not mark it read: Mark as read does (decision 0051).
  expect(await entry.getByText("Kia ora,", { exact: false }).evaluate((el) => (el as HTMLElement).innerText)).toBe(
    "Kia ora,\nWe need a basalt wall.\nAbout 12 metres long.",
  );
  await expect(entry.getByRole("link", { name: "Reply" })).toHaveAttribute(
    "href",
    /^mailto:aroha@example\.co\.nz\?subject=Re%3A%20your%20enquiry%20to%20Cornerstone%20Stonemasonry&body=.*Kia%20ora/,
  );
  const readState = async () =>
    (
      (await (await page.request.get("/api/admin/contact-submissions?limit=200")).json()) as {
        name: string;
        readAt: string | null;
      }[]
    ).find((item) => item.name === name)?.readAt;
  expect(await readState()).toBeNull();
  await entry.getByRole("button", { name: "Mark as read" }).click();
  await expect(entry.getByText("New", { exact: true })).toHaveCount(0);
  await expect.poll(readState).not.toBeNull();

  // … and it can be marked unread again.
  await entry.getByRole("button", { name: "Mark as unread" }).click();
  await expect(entry.getByText("New", { exact: true })).toBeVisible();
  await expect.poll(readState).toBeNull();

  // Export CSV downloads every enquiry.
  const [download] = await Promise.all([
    page.waitForEvent("download"),
    page.getByRole("link", { name: "Export CSV" }).click(),
  ]);
  expect(download.suggestedFilename()).toMatch(/^enquiries-\d{4}-\d{2}-\d{2}\.csv$/);
  const csv = await fs.readFile((await download.path())!);
  expect([...csv.subarray(0, 3)]).toEqual([0xef, 0xbb, 0xbf]);
  const text = csv.subarray(3).toString("utf8");
  expect(text.startsWith("Received,Name,Email,Phone,Message,Read,Notification,Photos\r\n")).toBe(true);
  expect(text).toContain(
    `${name},aroha@example.co.nz,021 123 4567,"Kia ora,\nWe need a basalt wall.\nAbout 12 metres long.",No,Sent,0\r\n`,
  );

  // Deleting asks first, naming the sender, then removes it for good.
  await entry.getByRole("button", { name: "Delete", exact: true }).click();
  const dialog = page.getByRole("dialog", { name: `Delete the enquiry from ${name}?` });
  await expect(dialog).toBeVisible();
  await dialog.getByRole("button", { name: "Delete enquiry" }).click();
  await expectToast(page, "Enquiry deleted", `The enquiry from ${name} was deleted.`);
  await expect(card(page, name)).toHaveCount(0);
  await expect
    .poll(async () =>
      ((await (await page.request.get("/api/admin/contact-submissions?limit=200")).json()) as { name: string }[]).some(
        (item) => item.name === name,
      ),
    )
    .toBe(false);
});

test("Send test e-mail reports success and the mail arrives", async ({ page, smtp }) => {
  await signInApi(page.request);
  await page.goto("/admin");
  await hydrated(page);
  await openSettings(page, "E-mail");
  await expect(page.getByRole("region", { name: "E-mail Notifications" })).toContainText(
    `Each new enquiry is e-mailed to ${NOTIFY_EMAIL}.`,
  );
  const before = smtp.messages.length;
  await page.getByRole("button", { name: "Send test e-mail" }).click();
  await expect(page.getByRole("region", { name: "E-mail Notifications" }).getByRole("status")).toContainText(
    `Test e-mail sent to ${NOTIFY_EMAIL}`,
  );
  await expect.poll(() => smtp.messages.length).toBe(before + 1);
  expect(smtp.messages[before]!.subject).toMatch(/^Test e-mail from the /);
});
