import fs from "node:fs/promises";
import os from "node:os";
import path from "node:path";
import { Readable } from "node:stream";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { verifyArchive } from "~/backups/restore.server";
import { seedDemoGallery } from "~/galleries/demo-images.server";
import { deleteGalleryImage, storageKeysOf } from "~/galleries/galleries.server";
import { backupsDirOf } from "~/backups/backup-files.server";
import { loadBackupNaming } from "~/backups/backup-names.server";
import { acquireBackupLease, BACKUP_LEASE_TTL_MS, SCHEDULED_LEASE_ID } from "~/backups/backup-lease.server";
import { createBackupScheduler } from "~/backups/backup-scheduler.server";
import { ensureBackupState, readBackupStatus, setNextDue } from "~/backups/backup-state.server";
import { parseEnv } from "~/env.server";
import { createManualClock, type ManualClock } from "~/lib/clock";
import { createLogger } from "~/lib/logger.server";
import type { AppServices } from "~/services.server";
import { openServices } from "../../server/bootstrap";
import { ERROR_LEVEL, capturingLogger, createSite, openSite } from "../support/backup-site";
import { createTestContext, type TestContext } from "./helpers";

const HOUR = 60 * 60 * 1000;

let dataDir: string;
let services: AppServices;
let clock: ManualClock;
const opened: AppServices[] = [];
let ctx: TestContext | undefined;
beforeEach(async () => {
  ({ dataDir, services } = await createSite({ galleries: { traditional: 1 }, enquiries: 3 }));
  opened.push(services);
  clock = createManualClock("2026-05-01T10:00:00.000Z");
});
afterEach(async () => {
  for (const s of opened.splice(0)) await s.close();
  await ctx?.close();
  ctx = undefined;
  await fs.rm(dataDir, { recursive: true, force: true });
});

const backupFiles = async () =>
  (await fs.readdir(backupsDirOf(dataDir)).catch(() => [] as string[])).filter((n) => n.endsWith(".tar.gz")).sort();
/** A name without its random part and tag (decision 0046), for comparing times. */
const untagged = (name: string) => name.replace(/-[0-9a-f]{24}-[0-9a-f]{32}\.tar\.gz$/, ".tar.gz");
/** Files this site named under backups/, untagged; the tag checked with the site's own key. */
async function ownBackups(dir: string, names: string[]): Promise<string[]> {
  const naming = await loadBackupNaming({ dataDir: dir });
  return names
    .filter((name) => naming.verify(name))
    .map(untagged)
    .sort();
}
const schedule = (s: AppServices = services, options: Partial<Parameters<typeof createBackupScheduler>[1]> = {}) =>
  createBackupScheduler(s, { clock, intervalHours: 24, keep: 7, ...options });

describe("scheduled backups", () => {
  it("the first pass sets the next backup one interval ahead; it runs when due, into DATA_DIR/backups with the usual name", async () => {
    const scheduler = schedule();
    expect(await scheduler.runDue()).toBe("not-due");
    clock.advance(24 * HOUR - 1);
    expect(await scheduler.runDue()).toBe("not-due");
    expect(await backupFiles()).toEqual([]);

    clock.advance(1);
    expect(await scheduler.runDue()).toBe("succeeded");
    const [written] = await backupFiles();
    expect(await ownBackups(dataDir, [written!])).toEqual(["cornerstone-20260502-100000.tar.gz"]);
    const status = await readBackupStatus({ db: services.db, clock }, { intervalHours: 24, keep: 7 });
    expect(status.lastBackup).toMatchObject({ at: "2026-05-02T10:00:00.000Z", fileName: written });
    expect(status.lastBackup!.bytes).toBe((await fs.stat(path.join(backupsDirOf(dataDir), written!))).size);
    expect(status.schedule.nextDueAt).toBe("2026-05-03T10:00:00.000Z");
    // Not due again until the next interval.
    expect(await scheduler.runDue()).toBe("not-due");
  });

  it("with two instances on one database, a due backup runs exactly once", async () => {
    const other = await openSite(dataDir);
    opened.push(other);
    const a = schedule(services);
    const b = schedule(other);
    await a.runDue();
    clock.advance(24 * HOUR);
    const outcomes = await Promise.all([a.runDue(), b.runDue()]);
    expect(outcomes.sort()).toEqual(["claimed-elsewhere", "succeeded"]);
    expect(await backupFiles()).toHaveLength(1);
    // Later passes by either instance find the schedule moved on.
    expect(await b.runDue()).toBe("not-due");
    expect(await a.runDue()).toBe("not-due");
  });

  it("two instances on one PostgreSQL database, each with its own disk, run one backup per slot", async () => {
    ctx = await createTestContext({}, { database: "postgres", storage: "s3" });
    const otherDataDir = await fs.mkdtemp(path.join(os.tmpdir(), "cornerstone-backup-other-"));
    const other = await openServices(
      parseEnv({ ...ctx.envVars, DATA_DIR: otherDataDir }),
      createLogger({ level: "silent" }),
    );
    opened.push(other);
    const a = schedule(ctx.services);
    const b = schedule(other);
    const filesOn = async (dir: string) =>
      (await fs.readdir(backupsDirOf(dir)).catch(() => [] as string[])).filter((n) => n.endsWith(".tar.gz"));
    try {
      expect((await Promise.all([a.runDue(), b.runDue()])).sort()).toEqual(["not-due", "not-due"]);
      let succeeded = 0;
      for (let slot = 1; slot <= 3; slot++) {
        clock.advance(24 * HOUR);
        const outcomes = await Promise.all([a.runDue(), b.runDue()]);
        // One instance ran the slot's backup; the other found it claimed or (a moment later) already moved on.
        const ran = outcomes.filter((o) => o !== "claimed-elsewhere" && o !== "not-due");
        expect(ran, JSON.stringify(outcomes)).toHaveLength(1);
        expect(ran).toEqual(["succeeded"]);
        succeeded += 1;
        // With a bucket, scheduled backups go there (under backups/), not to either instance's disk.
        expect(await filesOn(ctx.dataDir)).toEqual([]);
        expect(await filesOn(otherDataDir)).toEqual([]);
        expect(await ctx.services.storage.list("backups/")).toHaveLength(succeeded);
        // Neither runs it again in this slot.
        expect(await Promise.all([a.runDue(), b.runDue()])).toEqual(["not-due", "not-due"]);
      }
    } finally {
      await fs.rm(otherDataDir, { recursive: true, force: true });
    }
  });

  it("a shortened interval takes effect at once", async () => {
    await schedule(services, { intervalHours: 24 }).runDue();
    const hourly = schedule(services, { intervalHours: 1 });
    expect(await hourly.runDue()).toBe("not-due");
    clock.advance(HOUR);
    expect(await hourly.runDue()).toBe("succeeded");
  });

  it("keeps the newest BACKUP_KEEP backups it named; planted names that sort last are never deleted and never count", async () => {
    const planted = [
      "cornerstone-99991231-235959.tar.gz",
      "cornerstone-20260101-000000.tar.gz",
      "cornerstone-99991231-235959-1.tar.gz",
    ];
    await fs.mkdir(backupsDirOf(dataDir), { recursive: true });
    for (const name of planted) await fs.writeFile(path.join(backupsDirOf(dataDir), name), "planted");
    const scheduler = schedule(services, { keep: 2 });
    await scheduler.runDue();
    for (let day = 0; day < 4; day++) {
      clock.advance(24 * HOUR);
      expect(await scheduler.runDue()).toBe("succeeded");
    }
    const files = await backupFiles();
    expect(await ownBackups(dataDir, files)).toEqual([
      "cornerstone-20260504-100000.tar.gz",
      "cornerstone-20260505-100000.tar.gz",
    ]);
    expect(files.filter((name) => planted.includes(name)).sort()).toEqual([...planted].sort());
    expect(files).toHaveLength(5);
  });

  it("BACKUP_INTERVAL_HOURS=0 turns them off", async () => {
    const scheduler = schedule(services, { intervalHours: 0 });
    for (let i = 0; i < 3; i++) {
      expect(await scheduler.runDue()).toBe("off");
      clock.advance(365 * 24 * HOUR);
    }
    expect(await backupFiles()).toEqual([]);
  });

  it("a failure is logged at error level, shown on the dashboard, and tried again within the hour", async () => {
    const { logger, lines } = capturingLogger();
    const scheduler = schedule({ ...services, logger });
    await scheduler.runDue();
    clock.advance(24 * HOUR);
    // Something in the way of DATA_DIR/backups.
    await fs.writeFile(backupsDirOf(dataDir), "not a folder");
    expect(await scheduler.runDue()).toBe("failed");
    expect(lines.some((l) => l.level === ERROR_LEVEL && l.msg === "backup failed")).toBe(true);
    let status = await readBackupStatus({ db: services.db, clock }, { intervalHours: 24, keep: 7 });
    expect(status.problem).toMatchObject({ kind: "failed", at: "2026-05-02T10:00:00.000Z" });
    expect(status.schedule.nextDueAt).toBe("2026-05-02T11:00:00.000Z");

    await fs.rm(backupsDirOf(dataDir));
    clock.advance(HOUR);
    expect(await scheduler.runDue()).toBe("succeeded");
    status = await readBackupStatus({ db: services.db, clock }, { intervalHours: 24, keep: 7 });
    expect(status.problem).toBeNull();
    expect(status.lastBackup?.at).toBe("2026-05-02T11:00:00.000Z");
  });

  it("an instance that died holding the scheduled lease holds it up only until the lease expires", async () => {
    const scheduler = schedule();
    await scheduler.runDue();
    clock.advance(24 * HOUR);
    await acquireBackupLease({ db: services.db, clock }, "scheduled", { exclusiveId: SCHEDULED_LEASE_ID });
    expect(await scheduler.runDue()).toBe("claimed-elsewhere");
    clock.advance(BACKUP_LEASE_TTL_MS);
    expect(await scheduler.runDue()).toBe("succeeded");
  });

  it("stop() stops a backup in progress: no partial file, nothing reported as failed, and it stays due", async () => {
    let opened = () => {};
    const reading = new Promise<void>((resolve) => (opened = resolve));
    let release = () => {};
    const gate = new Promise<void>((resolve) => (release = resolve));
    const slowStorage = {
      ...services.storage,
      async read(key: string) {
        opened();
        await gate;
        return services.storage.read(key);
      },
    };
    const scheduler = schedule({ ...services, storage: slowStorage });
    await ensureBackupState({ db: services.db, clock });
    await setNextDue({ db: services.db, clock }, new Date(clock.now().getTime() - 1000));

    scheduler.start();
    await reading;
    const stopped = scheduler.stop();
    release();
    await stopped;

    expect(await fs.readdir(backupsDirOf(dataDir))).toEqual([]);
    const status = await readBackupStatus({ db: services.db, clock }, { intervalHours: 24, keep: 7 });
    expect(status.problem).toBeNull();
    expect(status.lastBackup).toBeNull();
    expect(status.running).toBe(false);
    expect(new Date(status.schedule.nextDueAt!).getTime()).toBeLessThan(clock.now().getTime());
  });

  it("each pass deletes files whose deletion waited for a backup, once none runs, unless referred to again", async () => {
    await services.storage.write("variants/orphan.webp", Readable.from([Buffer.from("orphan")]));
    await services.db
      .insertInto("deferred_deletions")
      .values({ storage_key: "variants/orphan.webp", deferred_at: clock.now().toISOString() })
      .execute();
    const image = await services.db.selectFrom("gallery_images").selectAll().executeTakeFirstOrThrow();
    const stillUsed = JSON.parse(image.variants).jpeg.path.replace("/media/", "variants/");
    await services.db
      .insertInto("deferred_deletions")
      .values({ storage_key: stillUsed, deferred_at: clock.now().toISOString() })
      .execute();

    const lease = await acquireBackupLease({ db: services.db, clock }, "manual");
    const scheduler = schedule();
    await scheduler.runDue();
    expect(await services.storage.exists("variants/orphan.webp")).toBe(true);

    await lease!.release();
    await scheduler.runDue();
    expect(await services.storage.exists("variants/orphan.webp")).toBe(false);
    expect(await services.storage.exists(stillUsed)).toBe(true);
    expect(await services.db.selectFrom("deferred_deletions").selectAll().execute()).toEqual([]);
  });

  it("a gallery image's file that will not delete (a bucket outage) waits in deferred_deletions, and the next pass deletes it", async () => {
    const image = await services.db.selectFrom("gallery_images").selectAll().executeTakeFirstOrThrow();
    const keys = storageKeysOf(image);
    expect(keys.length).toBeGreaterThan(0);
    const outage = {
      ...services,
      storage: { ...services.storage, delete: () => Promise.reject(new Error("bucket unreachable")) },
    };
    expect(await deleteGalleryImage(outage, image.id)).toBe(true);
    expect(await services.db.selectFrom("gallery_images").select("id").where("id", "=", image.id).execute()).toEqual(
      [],
    );
    const deferred = await services.db.selectFrom("deferred_deletions").select("storage_key").execute();
    expect(deferred.map((row) => row.storage_key).sort()).toEqual([...keys].sort());
    for (const key of keys) expect(await services.storage.exists(key)).toBe(true);

    await schedule().runDue();
    for (const key of keys) expect(await services.storage.exists(key)).toBe(false);
    expect(await services.db.selectFrom("deferred_deletions").selectAll().execute()).toEqual([]);
  });
});

describe("scheduled backups with S3_BUCKET set (no lasting disk)", () => {
  // This run's database, with a bucket chosen explicitly: it runs in both runs.
  let ctx: TestContext | undefined;
  afterEach(async () => {
    await ctx?.close();
    ctx = undefined;
  });

  it("go to the bucket under backups/, the newest BACKUP_KEEP kept there (other keys left alone), none left on disk; a backup never holds backups/ keys", async () => {
    ctx = await createTestContext({}, { storage: "s3" });
    await seedDemoGallery(ctx.services, "traditional", 1, { width: 480, height: 320 });
    // Not names this site made (seven such keys once pushed every real backup out): pruning leaves them.
    const planted = [
      "backups/pre-restore-20260101-000000.tar.gz",
      "backups/cornerstone-99991231-235959.tar.gz",
      "backups/cornerstone-99991231-235958.tar.gz",
    ];
    for (const key of planted) await ctx.services.storage.write(key, Readable.from([Buffer.from("planted")]));
    const scheduler = createBackupScheduler(ctx.services, { clock, intervalHours: 24, keep: 2 });
    await scheduler.runDue();
    for (let day = 0; day < 3; day++) {
      clock.advance(24 * HOUR);
      expect(await scheduler.runDue()).toBe("succeeded");
    }
    const keys = await ctx.storedKeys("backups/");
    const naming = await loadBackupNaming({
      dataDir: ctx.dataDir,
      sharedDb: ctx.services.env.DATABASE_URL ? ctx.services.db : null,
    });
    const own = keys.filter((key) => naming.verify(key.slice("backups/".length)));
    expect(own.map(untagged)).toEqual([
      "backups/cornerstone-20260503-100000.tar.gz",
      "backups/cornerstone-20260504-100000.tar.gz",
    ]);
    expect(keys.filter((key) => !own.includes(key)).sort()).toEqual([...planted].sort());
    const newestKey = own[1]!;
    expect(
      (await fs.readdir(backupsDirOf(ctx.dataDir)).catch(() => [] as string[])).filter((n) => !n.startsWith(".work-")),
    ).toEqual([]);
    const status = await readBackupStatus({ db: ctx.services.db, clock }, { intervalHours: 24, keep: 2 });
    const newest = (await ctx.services.storage.stat(newestKey))!;
    expect(status.lastBackup).toMatchObject({ fileName: newestKey.slice("backups/".length), bytes: newest.bytes });

    // The newest was taken with older backups already in the bucket: it holds the images, and none of them.
    const copy = path.join(ctx.dataDir, "copy.tar.gz");
    const object = (await ctx.services.storage.read(newestKey))!;
    await fs.writeFile(copy, object.stream);
    const manifest = await verifyArchive(copy);
    const names = Object.keys(manifest.files);
    const rows = await ctx.services.db.selectFrom("gallery_images").selectAll().execute();
    const referenced = rows
      .flatMap(storageKeysOf)
      .map((key) => `objects/${key}`)
      .sort();
    expect(referenced.length).toBeGreaterThan(0);
    expect(names.filter((name) => name.startsWith("objects/")).sort()).toEqual(referenced);
  });
});

describe("settings", () => {
  it("default to every 24 hours, keeping 7; accept 0 (off) and fractions of hours", () => {
    expect(parseEnv({})).toMatchObject({ BACKUP_INTERVAL_HOURS: 24, BACKUP_KEEP: 7 });
    expect(parseEnv({ BACKUP_INTERVAL_HOURS: "0", BACKUP_KEEP: "30" })).toMatchObject({
      BACKUP_INTERVAL_HOURS: 0,
      BACKUP_KEEP: 30,
    });
    expect(parseEnv({ BACKUP_INTERVAL_HOURS: "0.5" }).BACKUP_INTERVAL_HOURS).toBe(0.5);
  });

  it("refuse nonsense with a message that says how to fix it", () => {
    expect(() => parseEnv({ BACKUP_INTERVAL_HOURS: "daily" })).toThrow(
      /BACKUP_INTERVAL_HOURS must be a number of hours, such as 24/,
    );
    expect(() => parseEnv({ BACKUP_INTERVAL_HOURS: "-1" })).toThrow(/BACKUP_INTERVAL_HOURS must be 0 \(off\) or more/);
    expect(() => parseEnv({ BACKUP_KEEP: "0" })).toThrow(/BACKUP_KEEP must be at least 1/);
    expect(() => parseEnv({ BACKUP_KEEP: "2.5" })).toThrow(/BACKUP_KEEP must be a whole number/);
  });
});
