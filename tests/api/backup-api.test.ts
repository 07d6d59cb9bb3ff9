import fs from "node:fs/promises";
import type { AddressInfo } from "node:net";
import path from "node:path";
import { Readable } from "node:stream";
import supertest from "supertest";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { isBackupRunning } from "~/storage/deferred-deletions.server";
import { decryptFile, isEncryptedFile } from "~/backups/backup-encryption.server";
import { loadBackupNaming } from "~/backups/backup-names.server";
import { ensureBackupState, readBackupStatus, recordBackupSuccess } from "~/backups/backup-state.server";
import { DOWNLOAD_REMINDER_DAYS } from "~/backups/backup-status";
import { verifyArchive } from "~/backups/restore.server";
import { seedDemoGallery } from "~/galleries/demo-images.server";
import { createManualClock, systemClock } from "~/lib/clock";
import type { ObjectStorage } from "~/storage/storage.server";
import { createApp } from "../../server/app";
import { binaryBody } from "../support/binary-body";
import { ADMIN, createAdminContext, type AdminContext } from "./helpers";

let ctx: AdminContext;
beforeEach(async () => {
  ctx = await createAdminContext();
  await seedDemoGallery(ctx.services, "traditional", 1, { width: 480, height: 320 });
});
afterEach(async () => {
  await ctx.close();
});

const DAY = 24 * 60 * 60 * 1000;

describe("GET /api/admin/backups/status and /download", () => {
  it("are for the signed-in administrator only", async () => {
    for (const url of ["/api/admin/backups/status", "/api/admin/backups/download"]) {
      const res = await ctx.api.get(url).expect(401);
      expect(res.body).toEqual({ message: "Unauthorized" });
    }
  });

  it("status: nothing yet on a new site", async () => {
    const res = await ctx.admin.get("/api/admin/backups/status").expect(200);
    expect(res.headers["cache-control"]).toBe("no-store");
    expect(res.body).toEqual({
      lastBackup: null,
      problem: null,
      lastDownloadAt: null,
      downloadReminder: false,
      schedule: { intervalHours: 24, keep: 7, nextDueAt: null },
      running: false,
      foreignBackups: [],
      offsite: {
        configured: false,
        encrypted: false,
        state: "off",
        intervalMinutes: 60,
        nextCopyAt: null,
        lastCopy: null,
        failing: null,
      },
    });
  });

  it("status: lists the files under backups/ that this site did not name (on the server, and in the bucket when there is one), never its own", async () => {
    const dir = path.join(ctx.dataDir, "backups");
    await fs.mkdir(dir, { recursive: true });
    const naming = await loadBackupNaming({
      dataDir: ctx.dataDir,
      sharedDb: ctx.services.env.DATABASE_URL ? ctx.services.db : null,
    });
    const own = naming.make("cornerstone", new Date("2026-05-01T00:00:00Z"));
    for (const name of [own, "cornerstone-99991231-235959.tar.gz", ".work-abc"])
      await fs.writeFile(path.join(dir, name), "x");
    const expected = [{ location: "server", name: "cornerstone-99991231-235959.tar.gz" }];
    if (ctx.services.env.S3_BUCKET) {
      for (const name of [own, "cornerstone-99991231-235958.tar.gz"]) {
        await ctx.services.storage.write(`backups/${name}`, Readable.from([Buffer.from("x")]));
      }
      expected.push({ location: "bucket", name: "cornerstone-99991231-235958.tar.gz" });
    }
    const res = await ctx.admin.get("/api/admin/backups/status").expect(200);
    expect(res.body.foreignBackups).toEqual(expected);
  });

  it("download: streams a fresh, complete backup named like the files, no-store; the dashboard then shows it", async () => {
    const res = await ctx.admin.get("/api/admin/backups/download").buffer(true).parse(binaryBody).expect(200);
    expect(res.headers["content-type"]).toBe("application/gzip");
    // Already compressed: never compressed again on the way.
    expect(res.headers["content-encoding"]).toBeUndefined();
    expect(res.headers["cache-control"]).toBe("no-store");
    const disposition = res.headers["content-disposition"] as string;
    expect(disposition).toMatch(/^attachment; filename="cornerstone-\d{8}-\d{6}\.tar\.gz"$/);
    const fileName = /filename="([^"]+)"/.exec(disposition)![1]!;

    const saved = path.join(ctx.dataDir, "downloaded.tar.gz");
    await fs.writeFile(saved, res.body as Buffer);
    const manifest = await verifyArchive(saved);
    expect(manifest.tables.gallery_images!.rows).toBe(1);
    expect(manifest.tables.users!.rows).toBe(1);
    expect(manifest.objects.count).toBeGreaterThan(3);
    // Nothing of it stays on the server.
    expect((await fs.readdir(path.join(ctx.dataDir, "backups"))).filter((n) => !n.startsWith("."))).toEqual([]);

    const status = (await ctx.admin.get("/api/admin/backups/status").expect(200)).body;
    expect(status.lastBackup).toMatchObject({ fileName, bytes: (res.body as Buffer).length });
    expect(Date.now() - Date.parse(status.lastDownloadAt)).toBeLessThan(60_000);
    expect(status.downloadReminder).toBe(false);
    expect(status.running).toBe(false);
  });

  it("download: with a passphrase, encrypted with age and opened by it", async () => {
    const passphrase = "quarry-lantern-basalt-orchard";
    const encrypted = await createAdminContext({ BACKUP_PASSPHRASE: passphrase });
    try {
      const res = await encrypted.admin.get("/api/admin/backups/download").buffer(true).parse(binaryBody).expect(200);
      expect(res.headers["content-disposition"]).toMatch(/\.tar\.gz\.age"$/);
      const file = path.join(encrypted.dataDir, "download.age");
      await fs.writeFile(file, res.body as Buffer);
      expect(await isEncryptedFile(file)).toBe(true);
      await decryptFile(file, `${file}.tar.gz`, passphrase);
      expect((await verifyArchive(`${file}.tar.gz`)).tables.users?.rows).toBe(1);
    } finally {
      await encrypted.close();
    }
  });

  it("download: refused when another site starts it", async () => {
    const res = await ctx.admin.get("/api/admin/backups/download").set("Sec-Fetch-Site", "cross-site").expect(403);
    expect(res.body).toEqual({ message: "Cross-site requests are not allowed" });
  });

  it("download cancelled by the browser: the backup stops, its lease is released, and it counts neither as a download nor as a failure", async () => {
    let reached = () => {};
    const objectsReached = new Promise<void>((resolve) => (reached = resolve));
    let release = () => {};
    const gate = new Promise<void>((resolve) => (release = resolve));
    const slowStorage: ObjectStorage = {
      ...ctx.services.storage,
      async read(key) {
        reached();
        await gate;
        return ctx.services.storage.read(key);
      },
    };
    const app = createApp({ ...ctx.services, storage: slowStorage });
    const server = app.listen(0, "127.0.0.1");
    await new Promise((resolve) => server.once("listening", resolve));
    try {
      const base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
      const login = await supertest(app).post("/api/login").send(ADMIN).expect(200);
      const cookie = ([] as string[]).concat(login.headers["set-cookie"] ?? [])[0]!.split(";")[0]!;
      const controller = new AbortController();
      const download = fetch(`${base}/api/admin/backups/download`, {
        headers: { Cookie: cookie },
        signal: controller.signal,
      }).then(async (res) => {
        await res.arrayBuffer();
      });
      await objectsReached;
      controller.abort();
      await download.catch(() => {});
      release();
      await expect.poll(() => isBackupRunning({ db: ctx.services.db, clock: systemClock })).toBe(false);
      const status = await readBackupStatus(
        { db: ctx.services.db, clock: systemClock },
        { intervalHours: 24, keep: 7 },
      );
      expect(status).toMatchObject({ lastDownloadAt: null, lastBackup: null, problem: null });
    } finally {
      server.closeAllConnections();
      await new Promise((resolve) => server.close(resolve));
    }
  });
});

describe("the 30-day download reminder", () => {
  it("appears 30 days after the last download (or after the site began keeping backups, when there was none)", async () => {
    const clock = createManualClock("2026-02-01T00:00:00.000Z");
    const services = { db: ctx.services.db, clock };
    const schedule = { intervalHours: 24, keep: 7 };
    await ensureBackupState(services);
    clock.advance(DOWNLOAD_REMINDER_DAYS * DAY - 1);
    expect((await readBackupStatus(services, schedule)).downloadReminder).toBe(false);
    clock.advance(1);
    expect((await readBackupStatus(services, schedule)).downloadReminder).toBe(true);

    // A scheduled backup on the server does not count: only a copy taken off it.
    await recordBackupSuccess(services, {
      finishedAt: clock.now(),
      bytes: 10,
      fileName: "cornerstone-x.tar.gz",
      download: false,
    });
    expect((await readBackupStatus(services, schedule)).downloadReminder).toBe(true);
    await recordBackupSuccess(services, {
      finishedAt: clock.now(),
      bytes: 10,
      fileName: "cornerstone-y.tar.gz",
      download: true,
    });
    expect((await readBackupStatus(services, schedule)).downloadReminder).toBe(false);
    clock.advance(DOWNLOAD_REMINDER_DAYS * DAY);
    expect((await readBackupStatus(services, schedule)).downloadReminder).toBe(true);
  });

  it("reaches the dashboard through the status endpoint", async () => {
    const longAgo = new Date(Date.now() - 31 * DAY).toISOString();
    await ensureBackupState({ db: ctx.services.db, clock: systemClock });
    await ctx.services.db.updateTable("backup_state").set({ last_download_at: longAgo }).execute();
    const res = await ctx.admin.get("/api/admin/backups/status").expect(200);
    expect(res.body).toMatchObject({ lastDownloadAt: longAgo, downloadReminder: true });
  });
});

describe("the download's temporary files", () => {
  it("live under DATA_DIR/backups and are gone afterwards", async () => {
    await ctx.admin.get("/api/admin/backups/download").expect(200);
    // The response can end a moment before the clean-up that follows it.
    await expect.poll(() => fs.readdir(path.join(ctx.dataDir, "backups"))).toEqual([]);
  });
});
