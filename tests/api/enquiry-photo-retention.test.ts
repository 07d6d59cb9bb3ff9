import fs from "node:fs/promises";
import os from "node:os";
import path from "node:path";
import { afterAll, afterEach, describe, expect, inject, it } from "vitest";
import { backupsDirOf } from "~/backups/backup-files.server";
import { createBackup } from "~/backups/backup.server";
import { postgresRestoreDestination } from "~/backups/restore-postgres.server";
import { restoreBackup } from "~/backups/restore.server";
import { acquireBackupLease } from "~/backups/backup-lease.server";
import { referencedObjectKeys } from "~/backups/backup-tables.server";
import { purgeDeferredDeletions } from "~/storage/deferred-deletions.server";
import { deleteSubmission, listInbox } from "~/contact/submissions.server";
import { collectStream } from "~/storage/stream-limits.server";
import { enquiryPhotoTempDir } from "~/enquiry-photos/enquiry-photo-accept.server";
import { openEnquiryPhoto } from "~/enquiry-photos/enquiry-photos.server";
import { createEnquiryPhotoRetention, pruneEnquiryPhotos } from "~/enquiry-photos/enquiry-photo-retention.server";
import { parseEnv } from "~/env.server";
import { createManualClock, systemClock } from "~/lib/clock";
import { createLogger } from "~/lib/logger.server";
import type { AppServices } from "~/services.server";
import { openServices } from "../../server/bootstrap";
import { makeImage, makeNoisyJpeg } from "../fixtures/images";
import { createTestBucket, createTestDatabase, s3Env } from "../support/backends";
import { rewriteArchive } from "../support/backup-archives";
import { openSite } from "../support/backup-site";
import { createPhotoContext, type PhotoContext } from "./enquiry-photo-helpers";
import { keysUnder } from "./helpers";

/** Photos go with their enquiry, expire, and are in backups (both back ends). */

const tmp = await fs.mkdtemp(path.join(os.tmpdir(), "cornerstone-enquiry-photos-"));
afterAll(() => fs.rm(tmp, { recursive: true, force: true }));

let ctx: PhotoContext;
const cleanups: (() => Promise<unknown>)[] = [];
afterEach(async () => {
  for (const cleanup of cleanups.splice(0).reverse()) await cleanup().catch(() => {});
  await ctx.close();
});

/** An enquiry with `count` photos; its id. */
async function enquiryWithPhotos(count: number, photo?: Buffer): Promise<string> {
  const tokens: string[] = [];
  for (let i = 0; i < count; i++) tokens.push(await ctx.tokenFor(photo ?? (await makeImage("jpeg")), `p${i}.jpg`));
  const res = await ctx.enquire(tokens);
  expect(res.body).toMatchObject({ photos: { attached: count, notAttached: 0, notTaken: false } });
  return (res.body as { id: string }).id;
}

describe("deleting an enquiry", () => {
  it("deletes its photos' rows and files; another enquiry's photos stay", async () => {
    ctx = await createPhotoContext();
    const doomed = await enquiryWithPhotos(2);
    const kept = await enquiryWithPhotos(1);
    expect(await ctx.storedKeys("enquiry-photos/")).toHaveLength(6);
    await ctx.admin.delete(`/api/admin/contact-submissions/${doomed}`).expect(204);
    expect((await ctx.photoRows()).map((row) => row.submission_id)).toEqual([kept]);
    expect(await ctx.storedKeys("enquiry-photos/")).toHaveLength(2);
    expect((await ctx.admin.get(`/api/admin/contact-submissions/${doomed}/photos/1?size=view`)).status).toBe(404);
  });

  it("while a backup runs, or when a file will not delete, the files wait in deferred_deletions; the enquiry stays deleted", async () => {
    ctx = await createPhotoContext();
    const deferred = async () =>
      (await ctx.services.db.selectFrom("deferred_deletions").select("storage_key").execute()).length;
    const lease = await acquireBackupLease(ctx.services, "manual");
    const first = await enquiryWithPhotos(1);
    expect(await deleteSubmission(ctx.services, first)).toBe(true);
    expect(await ctx.storedKeys("enquiry-photos/")).toHaveLength(2);
    expect(await deferred()).toBe(2);
    await lease!.release();

    // A store that fails to delete (a bucket outage, say).
    const second = await enquiryWithPhotos(1);
    const failing = {
      ...ctx.services,
      storage: { ...ctx.services.storage, delete: () => Promise.reject(new Error("bucket unreachable")) },
    };
    expect(await deleteSubmission(failing, second)).toBe(true);
    expect(await ctx.services.db.selectFrom("contact_submissions").select("id").execute()).toEqual([]);
    expect(await ctx.photoRows()).toEqual([]);
    expect(await deferred()).toBe(4);

    // The backup scheduler's pass deletes them once it can.
    expect(await purgeDeferredDeletions(ctx.services, () => referencedObjectKeys(ctx.services.db))).toBe(4);
    expect(await ctx.storedKeys("enquiry-photos/")).toEqual([]);
  });
});

describe("retention", () => {
  it("deletes photos after ENQUIRY_PHOTO_DAYS, and unattached ones once their token has expired", async () => {
    const clock = createManualClock("2026-03-02T09:00:00.000Z");
    ctx = await createPhotoContext({ ENQUIRY_PHOTO_DAYS: "30" }, clock);
    const id = await enquiryWithPhotos(1);
    await ctx.tokenFor(await makeImage("png"), "never sent.png");

    clock.advance(24 * 60 * 60_000 + 60_000); // the token (24 hours) expired a minute ago: kept a little longer
    expect(await pruneEnquiryPhotos(ctx.services)).toBe(0);
    clock.advance(15 * 60_000);
    expect(await pruneEnquiryPhotos(ctx.services)).toBe(1);
    expect((await ctx.photoRows()).map((row) => row.submission_id)).toEqual([id]);
    expect(await ctx.storedKeys("enquiry-photos/")).toHaveLength(2);

    clock.set("2026-04-01T08:59:00.000Z"); // 30 days less a minute
    expect(await pruneEnquiryPhotos(ctx.services)).toBe(0);
    clock.advance(2 * 60_000);
    // The background module: one pass when it starts.
    const retention = createEnquiryPhotoRetention(ctx.services);
    retention.start();
    await retention.stop();
    expect(await ctx.photoRows()).toEqual([]);
    expect(await ctx.storedKeys("enquiry-photos/")).toEqual([]);
    // The enquiry itself stays; it just has no photos any more (read directly: the owner's session has ended by now).
    expect(await listInbox(ctx.services)).toMatchObject([{ id, photos: [] }]);
  });
});

describe("the retention task", () => {
  it("never starts a second pass while one is in flight: a photo that expires meanwhile waits for the next pass", async () => {
    const clock = createManualClock("2026-03-02T09:00:00.000Z");
    ctx = await createPhotoContext({}, clock);
    await ctx.tokenFor(await makeImage("png"), "first.png");
    clock.advance(50 * 60_000);
    await ctx.tokenFor(await makeImage("png"), "second.png");
    const [first, second] = await ctx.photoRows();
    clock.advance(23 * 60 * 60_000 + 26 * 60_000); // the first photo's token expired over 15 minutes ago; the second's has not

    // A store whose deletes wait until released: the first pass is held in flight.
    const deleted: string[] = [];
    let release!: () => void;
    const held = new Promise<void>((resolve) => (release = resolve));
    const storage = {
      ...ctx.services.storage,
      delete: async (key: string) => {
        deleted.push(key);
        await held;
        return ctx.services.storage.delete(key);
      },
    };
    // A pass begins by reading the time; the held pass reads none while held.
    let timeReads = 0;
    const countingClock = { now: () => ((timeReads += 1), clock.now()) };
    const retention = createEnquiryPhotoRetention({ ...ctx.services, storage, clock: countingClock }, { clock });
    const firstPass = retention.start();
    for (let turn = 0; deleted.length === 0 && turn < 100_000; turn++)
      await new Promise((resolve) => setImmediate(resolve));
    expect(deleted[0]).toContain(first!.id);

    const readsWhileHeld = timeReads;
    clock.advance(60 * 60_000); // the hourly tick, while the first pass is held; the second photo is now due too
    for (let turn = 0; turn < 10; turn++) await new Promise((resolve) => setImmediate(resolve));
    expect(timeReads).toBe(readsWhileHeld);
    expect(deleted.filter((key) => key.includes(second!.id))).toEqual([]);

    release();
    await firstPass;
    clock.advance(60 * 60_000);
    await retention.tick();
    expect(await ctx.photoRows()).toEqual([]);
    await retention.stop();
  });
});

describe("visitors' temporary photo files", () => {
  it("have one cleaner, the retention pass: files older than an hour go, newer ones stay, and the folder earlier versions used goes", async () => {
    const clock = createManualClock("2026-03-02T09:00:00.000Z");
    ctx = await createPhotoContext({}, clock);
    const dir = enquiryPhotoTempDir(ctx.services.env);
    await fs.mkdir(dir, { recursive: true });
    const minutesAgo = async (name: string, minutes: number) => {
      const file = path.join(dir, name);
      await fs.writeFile(file, "part of a photo");
      const at = new Date(clock.now().getTime() - minutes * 60_000);
      await fs.utimes(file, at, at);
    };
    // Left by a process that stopped mid-post, and one of a post still arriving.
    await minutesAgo("left-behind.upload", 61);
    await minutesAgo("arriving.upload", 59);
    const legacy = path.join(path.dirname(dir), "contact-photos");
    await fs.mkdir(legacy, { recursive: true });
    await fs.writeFile(path.join(legacy, "old.jpg"), "an old no-JS photo");

    await pruneEnquiryPhotos(ctx.services);
    expect(await fs.readdir(dir)).toEqual(["arriving.upload"]);
    await expect(fs.stat(legacy)).rejects.toThrow(/ENOENT/);
  });
});

describe("the public media route", () => {
  it("never serves a photo's files, however the name is spelt", async () => {
    ctx = await createPhotoContext();
    await enquiryWithPhotos(1);
    const [key] = await ctx.storedKeys("enquiry-photos/");
    const file = key!.slice("enquiry-photos/".length);
    for (const url of [
      `/media/${file}`,
      `/media/enquiry-photos%2F${file}`,
      `/media/..%2Fenquiry-photos%2F${file}`,
      `/media/%2e%2e%2f${key}`,
    ]) {
      const res = await ctx.api.get(url);
      expect(res.status, url).toBe(404);
    }
  });
});

describe("backups", () => {
  it("hold the photos, count them in the disk-space guard, and a restore brings them back", async () => {
    ctx = await createPhotoContext();
    const GiB = 1024 ** 3;
    // The guard keeps 1 GB free; this much more is room for the tables but not for the photos.
    const freeSpace = async () => ({ freeBytes: GiB + 250 * 1024, totalBytes: GiB });
    const backup = (file: string) =>
      createBackup(
        { ...ctx.services, clock: systemClock },
        { purpose: "manual", workDir: backupsDirOf(ctx.dataDir), destination: { kind: "file", path: file, freeSpace } },
      );
    expect((await backup(path.join(tmp, "before.tar.gz"))).status).toBe("succeeded");

    const id = await enquiryWithPhotos(2, await makeNoisyJpeg(2400, 1800));
    expect((await backup(path.join(tmp, "no-room.tar.gz"))).status).toBe("skipped");

    const archive = path.join(tmp, `photos-${ctx.backend.database}.tar.gz`);
    const made = await createBackup(
      { ...ctx.services, clock: systemClock },
      { purpose: "manual", workDir: backupsDirOf(ctx.dataDir), destination: { kind: "file", path: archive } },
    );
    expect(made.status).toBe("succeeded");
    const original = await viewCopy(ctx.services, id, 2);

    const restored = await restoreElsewhere(archive);
    expect(
      await restored.db
        .selectFrom("enquiry_photos")
        .select(["submission_id", "position"])
        .orderBy("position")
        .execute(),
    ).toEqual([
      { submission_id: id, position: 1 },
      { submission_id: id, position: 2 },
    ]);
    expect((await viewCopy(restored, id, 2)).equals(original)).toBe(true);
    expect((await restored.storage.list("enquiry-photos/")).length).toBe(4);
  });

  it("a restore refuses an enquiry photo's copy of 1 MB and one byte, naming it", async () => {
    ctx = await createPhotoContext();
    await enquiryWithPhotos(1);
    const archive = path.join(tmp, `photo-cap-${ctx.backend.database}.tar.gz`);
    const made = await createBackup(
      { ...ctx.services, clock: systemClock },
      { purpose: "manual", workDir: backupsDirOf(ctx.dataDir), destination: { kind: "file", path: archive } },
    );
    expect(made.status).toBe("succeeded");
    const { view_key: viewKey } = await ctx.services.db
      .selectFrom("enquiry_photos")
      .select("view_key")
      .executeTakeFirstOrThrow();
    const oversized = path.join(tmp, `photo-cap-oversized-${ctx.backend.database}.tar.gz`);
    await rewriteArchive(
      archive,
      oversized,
      (entries) => {
        entries.find((entry) => entry.name === `objects/${viewKey}`)!.data = Buffer.alloc(1_048_577, 1);
      },
      { rehash: true },
    );
    const target = await emptyInstallation();
    await expect(target.restore(oversized)).rejects.toThrow(
      `The archive holds image files larger than this site ever stores: ${viewKey}`,
    );
    // Nothing reached the installation's storage, on the disk or in the bucket.
    expect(await target.storedKeys("")).toEqual([]);
  });
});

async function viewCopy(services: Pick<AppServices, "db" | "storage">, id: string, n: number): Promise<Buffer> {
  const photo = await openEnquiryPhoto(services, id, n, "view");
  if (!photo) throw new Error(`no photo ${n}`);
  return (await collectStream(photo.body)).data;
}

/** A new, empty installation on the same kind of back end, to restore into. */
async function emptyInstallation() {
  const dataDir = await fs.mkdtemp(path.join(tmp, "restored-"));
  if (ctx.backend.database === "sqlite") {
    return {
      restore: (archive: string) => restoreBackup({ dataDir, file: archive }),
      open: async () => openSite(dataDir),
      storedKeys: (prefix: string) => keysUnder(path.join(dataDir, "uploads"), prefix),
    };
  }
  const backends = inject("backends");
  const database = await createTestDatabase(backends.postgresUrl);
  cleanups.push(() => database.drop());
  const base = { DATA_DIR: dataDir, LOG_LEVEL: "silent", NODE_ENV: "test" };
  const bucket = await createTestBucket(backends.s3Endpoint, {
    siteOrigins: [new URL(parseEnv(base).SITE_URL).origin],
  });
  cleanups.push(() => bucket.remove());
  const env = parseEnv({ ...base, DATABASE_URL: database.url, ...s3Env(backends.s3Endpoint, bucket.name) });
  const silent = createLogger({ level: "silent" });
  return {
    restore: (archive: string) =>
      restoreBackup({ dataDir, file: archive, destination: postgresRestoreDestination({ env, logger: silent }) }),
    open: () => openServices(env, silent),
    storedKeys: (prefix: string) => bucket.keys(prefix),
  };
}

/** The archive restored into a new installation on the same kind of back end. */
async function restoreElsewhere(archive: string): Promise<AppServices> {
  const target = await emptyInstallation();
  await target.restore(archive);
  const services = await target.open();
  cleanups.push(() => services.close());
  // The files are in the installation's own storage (the disk, or the bucket), under the private prefix.
  expect(await target.storedKeys("enquiry-photos/")).toHaveLength(4);
  return services;
}
