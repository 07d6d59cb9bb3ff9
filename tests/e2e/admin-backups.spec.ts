import fs from "node:fs/promises";
import os from "node:os";
import path from "node:path";
import type { Page } from "@playwright/test";
import { formatSubmittedAt } from "~/admin/format-date";
import { formatBytes } from "~/backups/backup-status";
import { verifyArchive } from "~/backups/restore.server";
import { openDatabase } from "~/db/database.server";
import { expectNoAxeViolations, signInApi } from "./admin-helpers";
import { expect, test } from "./fixtures";

const backupsCard = (page: Page) => page.getByRole("region", { name: "Backups" });

test.describe("the dashboard's backups", () => {
  test.use({ serverSetup: { name: "backups", seed: { galleries: { traditional: 1 } } } });

  test("Download backup saves a fresh, complete backup on the device; the dashboard then shows when", async ({ page, server }) => {
    await signInApi(page.request);
    await page.goto("/admin");
    const card = backupsCard(page);
    await expect(card.getByRole("link", { name: "Download backup" })).toBeVisible();

    const [download] = await Promise.all([page.waitForEvent("download"), card.getByRole("link", { name: "Download backup" }).click()]);
    expect(download.suggestedFilename()).toMatch(/^cornerstone-\d{8}-\d{6}\.tar\.gz$/);
    await expect(card.getByRole("status")).toHaveText(/Your backup is downloading/);
    const saved = path.join(await fs.mkdtemp(path.join(os.tmpdir(), "cornerstone-download-")), download.suggestedFilename());
    await download.saveAs(saved);
    try {
      const manifest = await verifyArchive(saved);
      expect(manifest.tables.gallery_images!.rows).toBe(1);
      expect(manifest.objects.count).toBeGreaterThan(0);

      const bytes = (await fs.stat(saved)).size;
      await page.reload();
      await expect(card.getByText(/^Last downloaded:/)).toBeVisible();
      const status = (await (await page.request.get("/api/admin/backups/status")).json()) as { lastBackup: { at: string; bytes: number } };
      expect(status.lastBackup.bytes).toBe(bytes);
      await expect(card.getByText(/^Last backup:/)).toHaveText(`Last backup: ${formatSubmittedAt(status.lastBackup.at)} (${formatBytes(bytes)})`);
      await expect(card.getByTestId("backup-reminder")).toHaveCount(0);
      // Nothing of the download stays on the server.
      expect((await fs.readdir(path.join(server.dataDir, "backups"))).filter((name) => name.endsWith(".tar.gz"))).toEqual([]);
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
    const reminder = backupsCard(page).getByTestId("backup-reminder");
    await expect(reminder).toHaveText(/It has been more than 30 days since you last downloaded a backup\. Download one now/);
    await expectNoAxeViolations(page, "dashboard with the backup reminder");
  });
});
