// @phone-only: it sets its own phone-sized screen
import type { AnalyticsReport } from "~/analytics/report";
import { technicalWordsShown } from "./admin-controls";
import { openSettings } from "./admin-helpers";
import { signInApi } from "../support/sign-in-api";
import { ALL_ADMIN_SCREENS, OWNER_PHONE, sendEnquiryWithPhoto } from "./admin-screens";
import { expect, test } from "./fixtures";

// Plain words: outside "Details for whoever runs your website", no admin screen shows an IP address, a
// network prefix, "KB" (but in the spec's upload list) or a percentage above 100, with the data that
// once made each of them appear: sign-ins from networks, a small backup, 2 enquiries from 1 visitor,
// and a mail server that cannot be reached.

test.use({
  serverSetup: {
    name: "plain-words",
    seed: { galleries: { traditional: 2 } },
    // Nothing listens on port 9 of this machine: every e-mail fails with the server's "ECONNREFUSED 127.0.0.1:9".
    env: { SMTP_URL: "smtp://127.0.0.1:9", MAIL_FROM: "Website <website@example.nz>", NOTIFY_EMAIL: "mark@example.nz" },
  },
  viewport: OWNER_PHONE,
  isMobile: true,
  hasTouch: true,
});

test.beforeEach(async ({ page, baseURL }) => {
  // The first test of the file sets up its data: two enquiries with a photo each, a backup, a counted visit.
  test.setTimeout(120_000);
  await signInApi(page.request);
  const inbox = (await (await page.request.get("/api/admin/contact-submissions/summary")).json()) as { total: number };
  if (inbox.total > 0) return;
  // One visitor (not the signed-in owner, whose own visits are not counted), two enquiries: what was
  // shown as an "enquiry rate" of 200.0%.
  const visitor = await page
    .context()
    .browser()!
    .newContext({ extraHTTPHeaders: { "x-forwarded-for": "198.51.100.23" } });
  await (await visitor.newPage()).goto(`${baseURL}/stonework`);
  await visitor.close();
  await sendEnquiryWithPhoto(page.request, "Aroha Visitor");
  await sendEnquiryWithPhoto(page.request, "Mere Visitor");
  // Counted visits reach the database every 10 s.
  await expect
    .poll(
      async () => ((await (await page.request.get("/api/admin/analytics")).json()) as AnalyticsReport).totals.visitors,
      { timeout: 30_000 },
    )
    .toBe(1);
  // A backup of a few kilobytes.
  expect((await page.request.get("/api/admin/backups/download")).status()).toBe(200);
});

for (const screen of ALL_ADMIN_SCREENS) {
  test(`${screen.name} shows no IP address, network, KB or percentage above 100 outside the details`, async ({
    page,
  }) => {
    await screen.open(page);
    if (screen.name === "email") {
      await page.getByRole("button", { name: "Send test e-mail" }).click();
      await expect(page.getByRole("alert").filter({ hasText: "The test e-mail could not be sent." })).toBeVisible();
    }
    expect(await technicalWordsShown(page)).toEqual([]);
  });
}

test("the check finds such words where they belong: under the details", async ({ page }) => {
  await page.goto("/admin");
  await openSettings(page, "Activity");
  const details = page.getByText("Details for whoever runs your website").first();
  await expect(details).toBeVisible();
  // The network is there, under the details; taken out of them, the check sees it.
  await page
    .locator("details:has(> summary:text-is('Details for whoever runs your website')) > summary")
    .first()
    .evaluate((summary) => {
      summary.textContent = "Where it came from";
    });
  expect(
    (await technicalWordsShown(page)).some(
      (found) => found.startsWith("a network prefix") || found.startsWith("an IP address"),
    ),
  ).toBe(true);
});
