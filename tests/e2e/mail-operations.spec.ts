// @desktop-only: server behaviour, the same at any screen size
import { spawnSync } from "node:child_process";
import fs from "node:fs/promises";
import os from "node:os";
import path from "node:path";
import { expect, test } from "@playwright/test";
import { startSmtpServer } from "../support/smtp";
import { TEST_ADMIN, startTestServer } from "../support/test-server";

// Operations of the mail outbox in the real server process: no browser, desktop project only.
test.describe("mail operations", () => {
  test("a graceful restart (SIGTERM) sends no second copy, and the outbox carries on after it", async () => {
    const smtp = await startSmtpServer();
    const dataDir = await fs.mkdtemp(path.join(os.tmpdir(), "cornerstone-mail-restart-"));
    const env = {
      SMTP_URL: smtp.url,
      MAIL_FROM: "website@example.nz",
      NOTIFY_EMAIL: "owner@example.nz",
      DATA_DIR: dataDir,
    };
    const enquire = (url: string, name: string) =>
      fetch(`${url}/api/contact`, {
        method: "POST",
        headers: { "Content-Type": "application/json" },
        body: JSON.stringify({ name, email: "v@example.nz", message: "A quote for a garden wall, please." }),
      });
    try {
      const first = await startTestServer({ env });
      try {
        expect((await enquire(first.url, "Before the restart")).status).toBe(201);
        await smtp.waitForMessages(1);
      } finally {
        first.signal("SIGTERM");
        expect(await first.exited).toBe(0);
      }

      const second = await startTestServer({ env });
      try {
        expect((await enquire(second.url, "After the restart")).status).toBe(201);
        // The outbox works through due jobs oldest first: a re-send of the first would come before this one.
        const mails = await smtp.waitForMessages(2);
        expect(mails.map((mail) => mail.subject)).toEqual([
          "New enquiry from Before the restart",
          "New enquiry from After the restart",
        ]);
        // Both recorded as sent: the stop waited for the send and wrote its result (no lease left to expire and resend).
        const login = await fetch(`${second.url}/api/login`, {
          method: "POST",
          headers: { "Content-Type": "application/json" },
          body: JSON.stringify(TEST_ADMIN),
        });
        const cookie = login.headers.get("set-cookie")!.split(";")[0]!;
        const states = async () =>
          (
            (await (
              await fetch(`${second.url}/api/admin/contact-submissions`, { headers: { Cookie: cookie } })
            ).json()) as { name: string; notification: { status: string; attempts: number } }[]
          ).map((item) => [item.name, item.notification.status, item.notification.attempts]);
        await expect.poll(states).toEqual([
          ["After the restart", "sent", 1],
          ["Before the restart", "sent", 1],
        ]);
        // The sign-in above came from a new browser: its alert is the third mail.
        await smtp.waitForMessages(3);
      } finally {
        second.signal("SIGTERM");
        expect(await second.exited).toBe(0);
      }
      // One copy of each enquiry's mail; the third is the alert for this test's own sign-in from a new browser.
      expect(smtp.messages.map((mail) => mail.subject)).toEqual([
        "New enquiry from Before the restart",
        "New enquiry from After the restart",
        expect.stringMatching(/^New sign-in to the .* website admin$/),
      ]);
    } finally {
      await smtp.stop();
      await fs.rm(dataDir, { recursive: true, force: true });
    }
  });

  test("SMTP_URL without MAIL_FROM stops start-up with a message that says why", () => {
    const result = spawnSync(process.execPath, ["build/server/index.js"], {
      env: { ...process.env, SMTP_URL: "smtp://user:pass@mail.example.nz:587", MAIL_FROM: "", PORT: "0" },
      encoding: "utf8",
    });
    expect(result.status).toBe(1);
    expect(result.stderr).toContain("Invalid configuration");
    expect(result.stderr).toContain("MAIL_FROM is required when SMTP_URL is set");
    expect(result.stderr).toContain("spam");
  });
});
