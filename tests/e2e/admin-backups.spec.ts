// @phone-only: the owner's flow on the phone; its checks never look at the layout
import fs from "node:fs/promises";
import os from "node:os";
import path from "node:path";
import type { Page } from "@playwright/test";
import { formatSubmittedAt } from "~/lib/format-date";
import { formatFileSize } from "~/lib/plain-words";
import { verifyArchive } from "~/backups/restore.server";
import { openDatabase } from "~/db/database.server";
import { expectNoAxeViolations, openSettings } from "./admin-helpers";
import { signInApi } from "../support/sign-in-api";
import { expect, test } from "./fixtures";

const backupsCard = (page: Page) => page.getByRole("region", { name: "Backups" });

test.describe("the Backups view", () => {
  test.use({ serverSetup: { name: "backups", seed: { galleries: { traditional: 1 } } } });

  test("Download backup saves a fresh, complete backup on the device; the view and the dashboard say so at once", async ({
    page,
    server,
  }) => {
    await signInApi(page.request);
    await page.goto("/admin");
    await openSettings(page, "Backups");
    const card = backupsCard(page);
    await expect(card.getByRole("link", { name: "Download backup" })).toBeVisible();
    await expect(card.getByText("Not downloaded yet.")).toBeVisible();
    await expect(card.getByTestId("download-purpose")).toHaveText(
      "Keep it somewhere safe. Whoever runs your website can restore the site from it.",
    );

    const [download] = await Promise.all([
      page.waitForEvent("download"),
      card.getByRole("link", { name: "Download backup" }).click(),
    ]);
    expect(download.suggestedFilename()).toMatch(/^cornerstone-\d{8}-\d{6}\.tar\.gz$/);
    await expect(card.getByRole("status")).toHaveText("Your backup is downloading.");
    // At once, without a reload.
    await expect(card.getByText("Not downloaded yet.")).toHaveCount(0);
    await expect(card.getByText(/^Last downloaded:/)).toBeVisible();
    await page.getByRole("button", { name: "Back to Dashboard" }).click();
    await expect(page.getByRole("link", { name: /^Backups/ })).toHaveAccessibleName(
      "Backups Last copy off the server: just now",
    );
    await page.goForward();
    await expect(page.getByRole("heading", { level: 1, name: "Backups" })).toBeVisible();
    const saved = path.join(
      await fs.mkdtemp(path.join(os.tmpdir(), "cornerstone-download-")),
      download.suggestedFilename(),
    );
    await download.saveAs(saved);
    try {
      const manifest = await verifyArchive(saved);
      expect(manifest.tables.gallery_images!.rows).toBe(1);
      expect(manifest.objects.count).toBeGreaterThan(0);

      const bytes = (await fs.stat(saved)).size;
      await page.reload();
      await expect(card.getByText(/^Last downloaded:/)).toBeVisible();
      const status = (await (await page.request.get("/api/admin/backups/status")).json()) as {
        lastBackup: { at: string; bytes: number };
      };
      expect(status.lastBackup.bytes).toBe(bytes);
      await expect(card.getByText(/^Last backup:/)).toHaveText(
        `Last backup: ${formatSubmittedAt(status.lastBackup.at)} (${formatFileSize(bytes)})`,
      );
      await expect(card.getByTestId("backup-reminder")).toHaveCount(0);
      // Nothing of the download stays on the server.
      expect(
        (await fs.readdir(path.join(server.dataDir, "backups"))).filter((name) => name.endsWith(".tar.gz")),
      ).toEqual([]);
    } finally {
      await fs.rm(path.dirname(saved), { recursive: true, force: true });
    }
  });

  test("a gentle reminder after 30 days without a download; accessible", async ({ page, server }) => {
    // Another process writes the database, as `npm run backup` would.
    const db = openDatabase(server.dataDir);
    try {
      const longAgo = new Date(Date.now() - 45 * 24 * 60 * 60 * 1000).toISOString();
      await db
        .insertInto("backup_state")
        .values({
          id: "default",
          tracking_since: longAgo,
          next_due_at: null,
          last_success_at: null,
          last_success_bytes: null,
          last_success_name: null,
          last_problem_at: null,
          last_problem_kind: null,
          last_problem_message: null,
          last_download_at: longAgo,
        })
        .onConflict((oc) => oc.column("id").doUpdateSet({ last_download_at: longAgo }))
        .execute();
    } finally {
      await db.destroy();
    }
    await signInApi(page.request);
    await page.goto("/admin");
    await expect(page.getByRole("link", { name: /^Backups/ })).toHaveAccessibleName(
      /^Backups Needs attention: Last copy off the server: 1 month ago$/,
    );
    await openSettings(page, "Backups");
    const reminder = backupsCard(page).getByTestId("backup-reminder");
    await expect(reminder).toHaveText(
      /It has been more than 30 days since you last downloaded a backup\. Download one now/,
    );
    await expectNoAxeViolations(page, "dashboard with the backup reminder");
  });
});
