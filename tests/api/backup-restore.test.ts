// @same-on-every-backend: it picks its own database and storage, or runs scripts on a data directory
import { spawn, type ChildProcess } from "node:child_process";
import { existsSync } from "node:fs";
import fs from "node:fs/promises";
import os from "node:os";
import path from "node:path";
import { afterAll, beforeAll, describe, expect, inject, it } from "vitest";
import { loadBackupNaming } from "~/backups/backup-names.server";
import { backupsDirOf } from "~/backups/backup-files.server";
import { EXCLUDED_TABLES } from "~/backups/backup-tables.server";
import { createBackup, type BackupServices } from "~/backups/backup.server";
import { readBackupStatus } from "~/backups/backup-state.server";
import { localRestoreDestination, RestoreRefusedError, restoreBackup } from "~/backups/restore.server";
import { parseEnv } from "~/env.server";
import { createLogger } from "~/lib/logger.server";
import { createS3Storage } from "~/storage/s3-storage.server";
import { openServices } from "../../server/bootstrap";
import { createTestBucket, s3ConfigFor, s3Env } from "../support/backends";
import { verifyCredentials } from "~/auth/auth.server";
import { knownMigrations } from "~/db/database.server";
import { deleteGalleryImage, storageKeysOf } from "~/galleries/galleries.server";
import { systemClock } from "~/lib/clock";
import { createLocalStorage } from "~/storage/local-storage.server";
import type { AppServices } from "~/services.server";
import { hashTree, manifestOf, readEntries, rewriteArchive, rewriteAtOlderSchema } from "../support/backup-archives";
import {
  ERROR_LEVEL,
  SITE_TEXTS,
  capturingLogger,
  createSite,
  dumpSite,
  insertEnquiry,
  openSite,
  type SiteDump,
} from "../support/backup-site";

/**
 * Backups and restores at the module level, against real SQLite files and
 * real image files in temporary directories. (The same, through the real
 * server and the npm scripts under load: tests/e2e/backup-operations.spec.ts.)
 */
const tmp = await fs.mkdtemp(path.join(os.tmpdir(), "cornerstone-backup-test-"));
afterAll(async () => {
  await fs.rm(tmp, { recursive: true, force: true });
});

let counter = 0;
const tmpPath = (name: string) => path.join(tmp, `${++counter}-${name}`);

function backupServices(services: AppServices, logger = services.logger): BackupServices {
  return { ...services, logger, clock: systemClock };
}

async function backupTo(services: AppServices, file: string, extra: Partial<Parameters<typeof createBackup>[1]> = {}) {
  const result = await createBackup(backupServices(services), {
    purpose: "manual",
    workDir: backupsDirOf(services.env.DATA_DIR),
    destination: { kind: "file", path: file },
    ...extra,
  });
  if (result.status !== "succeeded") throw new Error(`backup ${result.status}`);
  return result;
}

/** The whole data directory except the lock file (which a refused restore may create). */
async function dataDirState(dataDir: string) {
  const tree = await hashTree(dataDir);
  delete tree["server.lock"];
  return tree;
}

// One site, one backup, shared by the read-only checks below.
let site: { dataDir: string; services: AppServices };
let siteDump: SiteDump;
let archive: string;
beforeAll(async () => {
  site = await createSite();
  await fs.mkdir(backupsDirOf(site.dataDir), { recursive: true });
  await fs.writeFile(path.join(backupsDirOf(site.dataDir), "an-older-backup.tar.gz"), "older");
  siteDump = await dumpSite(site.services);
  archive = tmpPath("site.tar.gz");
  await backupTo(site.services, archive);
  await site.services.db.destroy();
}, 60_000);

/** A copy of the site's data directory, to restore over. */
async function copyOfSite(): Promise<string> {
  const dir = tmpPath("live");
  await fs.cp(site.dataDir, dir, { recursive: true });
  return dir;
}

describe("backup → wipe → restore → identical", () => {
  it("restores every row and every image file byte for byte into an emptied DATA_DIR, without sessions", async () => {
    const dataDir = await copyOfSite();
    await fs.rm(dataDir, { recursive: true, force: true });

    const result = await restoreBackup({ dataDir, file: archive });
    expect(result.previousKeptAt).toBeNull();
    expect(result.objects).toBe(Object.keys(siteDump.objects).length);

    const restored = await openSite(dataDir);
    try {
      expect(await dumpSite(restored)).toEqual(siteDump);
      // Spot checks in the site's own terms.
      expect(siteDump.tables.contact_submissions).toHaveLength(20);
      expect(siteDump.tables.content_entries!.map((r) => r.content)).toEqual(
        expect.arrayContaining(Object.values(SITE_TEXTS)),
      );
      expect(await restored.db.selectFrom("sessions").selectAll().execute()).toEqual([]);
      // The administrator's password is the one at the time of the backup.
      expect(await verifyCredentials(restored, "owner", "the password at backup time")).not.toBeNull();
    } finally {
      await restored.db.destroy();
    }
  });

  it("writes a manifest with format, schema, app version, time, counts and a SHA-256 per file; images exactly as stored", async () => {
    const entries = await readEntries(archive);
    const manifest = manifestOf(entries);
    expect(entries.at(-1)!.name).toBe("manifest.json");
    expect(manifest).toMatchObject({
      format: "cornerstone-backup",
      formatVersion: 1,
      appVersion: "1.0.0",
      schema: { migration: knownMigrations().at(-1) },
      objects: { count: Object.keys(siteDump.objects).length },
      missingObjects: [],
    });
    expect(Date.parse(manifest.createdAt as string)).not.toBeNaN();
    expect(manifest.tables.contact_submissions).toEqual({ file: "tables/contact_submissions.jsonl", rows: 20 });
    const { createHash } = await import("node:crypto");
    const fileEntries = entries.filter((e) => e.name !== "manifest.json");
    expect(Object.keys(manifest.files).sort()).toEqual(fileEntries.map((e) => e.name).sort());
    for (const entry of fileEntries) {
      expect(manifest.files[entry.name]).toEqual({
        bytes: entry.data.length,
        sha256: createHash("sha256").update(entry.data).digest("hex"),
      });
    }
    // Objects are the stored bytes, not re-encoded.
    for (const [key, sha] of Object.entries(siteDump.objects)) {
      const entry = entries.find((e) => e.name === `objects/${key}`)!;
      expect(createHash("sha256").update(entry.data).digest("hex")).toBe(sha);
    }
    // Rows are plain JSON lines, one per row.
    const lines = entries
      .find((e) => e.name === "tables/contact_submissions.jsonl")!
      .data.toString()
      .trim()
      .split("\n");
    expect(lines).toHaveLength(20);
    expect(JSON.parse(lines[0]!)).toHaveProperty("email");
  });

  it("leaves out sessions, upload tickets, secrets/ and backups/", async () => {
    const names = (await readEntries(archive)).map((e) => e.name);
    const tables = names.filter((n) => n.startsWith("tables/")).map((n) => n.slice("tables/".length, -".jsonl".length));
    expect(tables).toEqual(
      expect.arrayContaining([
        "contact_submissions",
        "content_entries",
        "gallery_images",
        "users",
        "notification_jobs",
      ]),
    );
    expect(tables.filter((name) => name in EXCLUDED_TABLES)).toEqual([]);
    expect(tables).not.toContain("sessions");
    expect(names.some((n) => /secret|upload-signing|backups|\.key$/.test(n))).toBe(false);
    expect(names.every((n) => n === "manifest.json" || n.startsWith("tables/") || n.startsWith("objects/"))).toBe(true);
  });

  it("over live data: swaps in just the database and uploads, keeps the previous ones under backups/pre-restore-…, leaves secrets/ and backups/ alone", async () => {
    const dataDir = await copyOfSite();
    const services = await openSite(dataDir);
    await insertEnquiry(services, 999);
    await services.db
      .updateTable("content_entries")
      .set({ content: "Changed after the backup" })
      .where("key", "=", "hero.title")
      .execute();
    await services.db.destroy();
    // The installation's backup-naming key, made by its first backup: a restore keeps it (decision 0046).
    await loadBackupNaming({ dataDir });
    const secretsBefore = await hashTree(path.join(dataDir, "secrets"));
    const before = await dataDirState(dataDir);

    const result = await restoreBackup({ dataDir, file: archive });

    expect(result.previousKeptAt).toMatch(/backups\/pre-restore-\d{8}-\d{6}-[0-9a-f]{24}-[0-9a-f]{32}$/);
    const kept = await openSite(result.previousKeptAt!);
    try {
      // The previous data, whole: the enquiry and text added after the backup are there.
      expect(await kept.db.selectFrom("contact_submissions").select("id").execute()).toHaveLength(21);
    } finally {
      await kept.db.destroy();
    }
    expect(await hashTree(path.join(dataDir, "secrets"))).toEqual(secretsBefore);
    expect(await fs.readFile(path.join(backupsDirOf(dataDir), "an-older-backup.tar.gz"), "utf8")).toBe("older");
    // Every upload of the live data, kept byte for byte (and there were uploads to keep).
    const uploadsBefore = Object.fromEntries(
      Object.entries(before)
        .filter(([file]) => file.startsWith("uploads/"))
        .map(([file, sha]) => [file.slice("uploads/".length), sha]),
    );
    expect(Object.keys(uploadsBefore)).not.toHaveLength(0);
    expect(await hashTree(path.join(result.previousKeptAt!, "uploads"))).toEqual(uploadsBefore);
    const restored = await openSite(dataDir);
    try {
      expect(await dumpSite(restored)).toEqual(siteDump);
    } finally {
      await restored.db.destroy();
    }
    expect((await fs.readdir(dataDir)).filter((n) => n.startsWith(".restore-"))).toEqual([]);
  });

  it("runs the migrations newer than the backup after loading it", async () => {
    const oldest = knownMigrations()[1]!;
    const older = tmpPath("older-schema.tar.gz");
    await rewriteAtOlderSchema(archive, older, oldest);
    const olderManifest = manifestOf(await readEntries(older));
    expect(olderManifest.schema.migration).toBe(oldest);
    expect(Object.keys(olderManifest.tables)).not.toContain("notification_jobs");
    const dataDir = tmpPath("from-older");

    const result = await restoreBackup({ dataDir, file: older });

    expect(result.migrationsApplied).toEqual(knownMigrations().slice(2));
    const restored = await openSite(dataDir);
    try {
      const dump = await dumpSite(restored);
      for (const table of ["users", "content_entries", "gallery_images"])
        expect(dump.tables[table]).toEqual(siteDump.tables[table]);
      const core = (rows: Record<string, unknown>[] | undefined) =>
        rows?.map(({ id, name, email, message, submitted_at }) => ({ id, name, email, message, submitted_at }));
      expect(core(dump.tables.contact_submissions)).toEqual(core(siteDump.tables.contact_submissions));
      expect(dump.objects).toEqual(siteDump.objects);
    } finally {
      await restored.db.destroy();
    }
  });
});

describe("SQLite with a bucket (S3_BUCKET without DATABASE_URL)", () => {
  it("the objects go into the bucket and only the database is swapped in; a server on them has everything", async () => {
    const endpoint = inject("backends").s3Endpoint;
    const base = { DATA_DIR: tmpPath("sqlite-s3"), LOG_LEVEL: "silent", NODE_ENV: "test" };
    const bucket = await createTestBucket(endpoint, { siteOrigins: [new URL(parseEnv(base).SITE_URL).origin] });
    const storage = await createS3Storage(s3ConfigFor(endpoint, bucket.name));
    try {
      const result = await restoreBackup({
        dataDir: base.DATA_DIR,
        file: archive,
        destination: localRestoreDestination(base.DATA_DIR, storage),
      });
      expect(result.objects).toBe(Object.keys(siteDump.objects).length);
      expect(await bucket.keys()).toEqual(Object.keys(siteDump.objects).sort());
      expect(existsSync(path.join(base.DATA_DIR, "uploads"))).toBe(false);
      const services = await openServices(
        parseEnv({ ...base, ...s3Env(endpoint, bucket.name) }),
        createLogger({ level: "silent" }),
      );
      try {
        expect(await dumpSite(services)).toEqual(siteDump);
      } finally {
        await services.close();
      }
    } finally {
      await storage.close();
      await bucket.remove();
    }
  });
});

describe("a restore refuses, changing nothing", () => {
  async function expectRefused(file: string, message: RegExp) {
    const dataDir = await copyOfSite();
    const before = await dataDirState(dataDir);
    const error = await restoreBackup({ dataDir, file }).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(RestoreRefusedError);
    expect((error as Error).message).toMatch(message);
    expect((error as Error).message).toMatch(/Nothing was changed/);
    expect(await dataDirState(dataDir)).toEqual(before);
    return dataDir;
  }

  it("a tampered image file: names the file whose checksum does not match", async () => {
    const tampered = tmpPath("tampered-image.tar.gz");
    let victim = "";
    await rewriteArchive(archive, tampered, (entries) => {
      const entry = entries.find((e) => e.name.startsWith("objects/variants/"))!;
      victim = entry.name;
      entry.data = Buffer.from(entry.data);
      entry.data[entry.data.length >> 1]! ^= 0xff;
    });
    await expectRefused(tampered, new RegExp(`Checksum mismatch for ${victim.replace(/\./g, "\\.")}`));
  });

  it("a tampered table: names the table file", async () => {
    const tampered = tmpPath("tampered-table.tar.gz");
    await rewriteArchive(archive, tampered, (entries) => {
      const entry = entries.find((e) => e.name === "tables/contact_submissions.jsonl")!;
      entry.data = Buffer.from(entry.data.toString().replace("Visitor 3", "Visitor 8"));
    });
    await expectRefused(tampered, /Checksum mismatch for tables\/contact_submissions\.jsonl/);
  });

  it("a truncated file", async () => {
    const whole = await fs.readFile(archive);
    const truncated = tmpPath("truncated.tar.gz");
    await fs.writeFile(truncated, whole.subarray(0, Math.floor(whole.length * 0.6)));
    await expectRefused(truncated, /truncated/);
  });

  it("a file that is not a backup at all", async () => {
    const junk = tmpPath("junk.tar.gz");
    await fs.writeFile(junk, "this is not a backup\n".repeat(100));
    await expectRefused(junk, /not a Cornerstone backup/);
  });

  it("a missing file", async () => {
    await expectRefused(tmpPath("no-such-file.tar.gz"), /does not exist/);
  });

  it("an archive without its manifest", async () => {
    const headless = tmpPath("headless.tar.gz");
    const { writeEntries } = await import("../support/backup-archives");
    await writeEntries(
      headless,
      (await readEntries(archive)).filter((e) => e.name !== "manifest.json"),
    );
    await expectRefused(headless, /no manifest\.json/);
  });

  it("a file added to the archive that the manifest does not list", async () => {
    const extra = tmpPath("extra.tar.gz");
    await rewriteArchive(archive, extra, (entries) => [
      ...entries,
      { name: "objects/variants/0000extra.webp", type: "file", data: Buffer.from("extra") },
    ]);
    await expectRefused(extra, /objects\/variants\/0000extra\.webp is in the archive but not in its manifest/);
  });

  it("a path that would escape the target folder, even with matching checksums; nothing is written outside", async () => {
    const escaping = tmpPath("escape.tar.gz");
    const outside = path.join(tmp, "escaped.txt");
    await rewriteArchive(
      archive,
      escaping,
      (entries) => [{ name: `objects/../../../../${outside}`, type: "file", data: Buffer.from("gotcha") }, ...entries],
      { rehash: true },
    );
    await expectRefused(escaping, /unexpected path/);
    expect(existsSync(outside)).toBe(false);

    const absolute = tmpPath("absolute.tar.gz");
    await rewriteArchive(
      archive,
      absolute,
      (entries) => [...entries, { name: outside, type: "file", data: Buffer.from("x") }],
      { rehash: true },
    );
    await expectRefused(absolute, /unexpected path/);
    expect(existsSync(outside)).toBe(false);
  });

  it("a symbolic link inside the archive", async () => {
    const linked = tmpPath("symlink.tar.gz");
    await rewriteArchive(archive, linked, (entries) => [
      { name: "objects/variants/link.webp", type: "symlink", data: Buffer.from("/etc/passwd") },
      ...entries,
    ]);
    await expectRefused(linked, /symlink entry/);
  });

  it("a backup whose schema is newer than the code's: says so, before touching anything", async () => {
    const newer = tmpPath("newer.tar.gz");
    await rewriteArchive(
      archive,
      newer,
      (_entries, manifest) => void (manifest.schema.migration = "9999-from-the-future"),
      { rehash: true },
    );
    await expectRefused(newer, /newer than this version of Cornerstone knows .*Update Cornerstone first/);
  });

  it("a restore that fails part-way (bad rows that pass the checksums) leaves the live data and no staging folder", async () => {
    const badRows = tmpPath("bad-rows.tar.gz");
    await rewriteArchive(
      archive,
      badRows,
      (entries) => {
        const entry = entries.find((e) => e.name === "tables/contact_submissions.jsonl")!;
        entry.data = Buffer.concat([entry.data, Buffer.from('{"id":"x","no_such_column":1}\n')]);
      },
      { rehash: true },
    );
    const dataDir = await copyOfSite();
    const before = await dataDirState(dataDir);
    await expect(restoreBackup({ dataDir, file: badRows })).rejects.toThrow();
    expect(await dataDirState(dataDir)).toEqual(before);
    expect((await fs.readdir(dataDir)).filter((n) => n.startsWith(".restore-"))).toEqual([]);
  });

  it("not enough free disk space to build the restored data beside the live data", async () => {
    const dataDir = await copyOfSite();
    const before = await dataDirState(dataDir);
    const error = await restoreBackup({
      dataDir,
      file: archive,
      freeSpace: async () => ({ freeBytes: 10 * 1024 * 1024, totalBytes: 100 * 1024 ** 3 }),
    }).catch((e: unknown) => e);
    expect((error as Error).message).toMatch(/Not enough free disk space to restore/);
    expect(await dataDirState(dataDir)).toEqual(before);
  });

  it("while a server holds DATA_DIR's lock; once that process is killed (SIGKILL), the lock is gone and the restore runs", async () => {
    const dataDir = await copyOfSite();
    const holder = await holdLockInChild(dataDir);
    try {
      const before = await dataDirState(dataDir);
      const error = await restoreBackup({ dataDir, file: archive }).catch((e: unknown) => e);
      expect(error).toBeInstanceOf(RestoreRefusedError);
      expect((error as Error).message).toMatch(/server .*is running on .*Stop it first.*Nothing was changed/);
      expect(await dataDirState(dataDir)).toEqual(before);
    } finally {
      holder.kill("SIGKILL");
      await new Promise((resolve) => holder.once("exit", resolve));
    }
    await expect(restoreBackup({ dataDir, file: archive })).resolves.toMatchObject({
      objects: Object.keys(siteDump.objects).length,
    });
  });
});

/** A separate process holding DATA_DIR's shared lock, as a running server does. */
async function holdLockInChild(dataDir: string): Promise<ChildProcess> {
  const child = spawn(
    process.execPath,
    [
      "--import",
      "tsx",
      "-e",
      `import("./app/lib/data-dir-lock.server.ts").then((m) => { m.lockDataDir(${JSON.stringify(dataDir)}, "shared"); console.log("locked"); setInterval(() => {}, 1000); })`,
    ],
    { stdio: ["ignore", "pipe", "inherit"] },
  );
  await new Promise<void>((resolve, reject) => {
    child.stdout!.on("data", (chunk: Buffer) => chunk.toString().includes("locked") && resolve());
    child.once("exit", (code) => reject(new Error(`lock holder exited with ${code}`)));
  });
  return child;
}

describe("while the site is being changed", () => {
  it("an image deleted while the backup runs is still whole in the archive and restores; its files go once the backup ends", async () => {
    const { dataDir, services } = await createSite({ galleries: { traditional: 2 }, enquiries: 1 });
    try {
      const [doomed] = await services.db.selectFrom("gallery_images").selectAll().orderBy("sort_order").execute();
      const doomedKeys = storageKeysOf(doomed!);
      const expected = await dumpSite(services);
      const file = tmpPath("deleted-during.tar.gz");

      await backupTo(services, file, {
        afterSnapshot: async () => {
          // The snapshot has the image; now the owner deletes it, as the server would.
          expect(await deleteGalleryImage(services, doomed!.id)).toBe(true);
          // Its files wait for the backup.
          for (const key of doomedKeys) expect(await services.storage.exists(key)).toBe(true);
          const deferred = await services.db.selectFrom("deferred_deletions").select("storage_key").execute();
          expect(deferred.map((d) => d.storage_key).sort()).toEqual([...doomedKeys].sort());
        },
      });

      // The backup ended: the deferred files are gone, and so is the list.
      for (const key of doomedKeys) expect(await services.storage.exists(key)).toBe(false);
      expect(await services.db.selectFrom("deferred_deletions").selectAll().execute()).toEqual([]);
      expect(manifestOf(await readEntries(file)).missingObjects).toEqual([]);

      const restoredDir = tmpPath("deleted-during-restored");
      await restoreBackup({ dataDir: restoredDir, file });
      const restored = await openSite(restoredDir);
      try {
        expect(await dumpSite(restored)).toEqual(expected);
        expect(
          await restored.db.selectFrom("gallery_images").select("id").where("id", "=", doomed!.id).execute(),
        ).toHaveLength(1);
      } finally {
        await restored.db.destroy();
      }
    } finally {
      await services.db.destroy();
      await fs.rm(dataDir, { recursive: true, force: true });
    }
  });

  it("a deferred file that a row refers to again by the time the backup ends is kept", async () => {
    const { dataDir, services } = await createSite({ galleries: { veneer: 1 }, enquiries: 0 });
    try {
      const [image] = await services.db.selectFrom("gallery_images").selectAll().execute();
      await backupTo(services, tmpPath("rereferenced.tar.gz"), {
        afterSnapshot: async () => {
          await deleteGalleryImage(services, image!.id);
          // The same photo added again: content-addressed variants share names.
          await services.db
            .insertInto("gallery_images")
            .values({ ...image!, id: "again" })
            .execute();
        },
      });
      for (const key of storageKeysOf(image!)) expect(await services.storage.exists(key)).toBe(true);
      expect(await services.db.selectFrom("deferred_deletions").selectAll().execute()).toEqual([]);
    } finally {
      await services.db.destroy();
      await fs.rm(dataDir, { recursive: true, force: true });
    }
  });

  it("enquiries stored while the backup runs never tear the snapshot: everything acknowledged before it started is in it", async () => {
    const { dataDir, services } = await createSite({ galleries: { traditional: 1 }, enquiries: 5 });
    try {
      const acknowledged: string[] = [];
      for (let i = 0; i < 5; i++) acknowledged.push(await insertEnquiry(services, 100 + i));
      let writing = true;
      const during: string[] = [];
      const writer = (async () => {
        for (let i = 0; writing; i++) {
          during.push(await insertEnquiry(services, 1000 + i));
          // better-sqlite3 answers synchronously: let the backup's file I/O have its turn, as requests would.
          await new Promise((resolve) => setImmediate(resolve));
        }
      })();
      const file = tmpPath("under-writes.tar.gz");
      await backupTo(services, file);
      writing = false;
      await writer;

      const restoredDir = tmpPath("under-writes-restored");
      await restoreBackup({ dataDir: restoredDir, file });
      const restored = await openSite(restoredDir);
      try {
        const ids = new Set(
          (await restored.db.selectFrom("contact_submissions").select("id").execute()).map((r) => r.id),
        );
        for (const id of acknowledged) expect(ids.has(id)).toBe(true);
        // Nothing invented: every restored row was really written, and each is whole.
        const original = new Map(
          (await services.db.selectFrom("contact_submissions").selectAll().execute()).map((r) => [r.id, r]),
        );
        for (const row of await restored.db.selectFrom("contact_submissions").selectAll().execute())
          expect(row).toEqual(original.get(row.id));
        expect(during.length).toBeGreaterThan(0);
      } finally {
        await restored.db.destroy();
      }
    } finally {
      await services.db.destroy();
      await fs.rm(dataDir, { recursive: true, force: true });
    }
  });
});

describe("free disk space", () => {
  const GB = 1024 ** 3;

  it("skips a backup that would leave less than 10 % free, logs it at error level and shows it on the dashboard; writes nothing", async () => {
    const { dataDir, services } = await createSite({ galleries: { traditional: 1 }, enquiries: 1 });
    const { logger, lines } = capturingLogger();
    try {
      const dir = tmpPath("no-room");
      await fs.mkdir(dir);
      // 100 GB disk with 10 GB free: any backup would leave under the 10 GB (10 %) margin.
      const result = await createBackup(backupServices(services, logger), {
        purpose: "manual",
        workDir: backupsDirOf(dataDir),
        destination: {
          kind: "file",
          path: path.join(dir, "b.tar.gz"),
          freeSpace: async () => ({ freeBytes: 10 * GB, totalBytes: 100 * GB }),
        },
      });
      expect(result.status).toBe("skipped");
      expect(await fs.readdir(dir)).toEqual([]);
      expect(
        lines.some((l) => l.level === ERROR_LEVEL && /backup skipped: Not enough free disk space/.test(l.msg)),
      ).toBe(true);
      const status = await readBackupStatus(backupServices(services), { intervalHours: 24, keep: 7 });
      expect(status.problem).toMatchObject({
        kind: "skipped",
        message: expect.stringMatching(/Not enough free disk space/),
      });
      expect(status.lastBackup).toBeNull();
    } finally {
      await services.db.destroy();
      await fs.rm(dataDir, { recursive: true, force: true });
    }
  });

  it("on a small disk the 1 GB floor applies; with room to spare the backup runs", async () => {
    const { dataDir, services } = await createSite({ galleries: { traditional: 1 }, enquiries: 1 });
    try {
      const attempt = (freeBytes: number, totalBytes: number) =>
        createBackup(backupServices(services), {
          purpose: "manual",
          workDir: backupsDirOf(dataDir),
          destination: {
            kind: "file",
            path: tmpPath("space.tar.gz"),
            freeSpace: async () => ({ freeBytes, totalBytes }),
          },
        });
      // 5 GB disk: 10 % would be 0.5 GB, but at least 1 GB must stay free.
      expect((await attempt(GB + 1024, 5 * GB)).status).toBe("skipped");
      expect((await attempt(2 * GB, 5 * GB)).status).toBe("succeeded");
    } finally {
      await services.db.destroy();
      await fs.rm(dataDir, { recursive: true, force: true });
    }
  });

  it("reads the real free space of the backup folder's filesystem", async () => {
    const { statfsProbe } = await import("~/backups/backup-files.server");
    const space = await statfsProbe(tmp);
    expect(space.totalBytes).toBeGreaterThan(0);
    expect(space.freeBytes).toBeGreaterThan(0);
    expect(space.freeBytes).toBeLessThanOrEqual(space.totalBytes);
  });
});

describe("objects are read through ObjectStorage", () => {
  it("a backup copies objects from whatever storage the services hold, not from uploads/ on disk", async () => {
    const { dataDir, services } = await createSite({ galleries: { landscaping: 1 }, enquiries: 0 });
    try {
      const expected = await dumpSite(services);
      // Move the objects somewhere else entirely and point the storage there.
      const elsewhere = tmpPath("elsewhere");
      await fs.rename(path.join(dataDir, "uploads"), elsewhere);
      const moved = { ...services, storage: createLocalStorage({ rootDir: elsewhere, signingSecret: "x".repeat(32) }) };
      const file = tmpPath("elsewhere.tar.gz");
      await backupTo(moved, file);
      const restoredDir = tmpPath("elsewhere-restored");
      await restoreBackup({ dataDir: restoredDir, file });
      const restored = await openSite(restoredDir);
      try {
        expect((await dumpSite(restored)).objects).toEqual(expected.objects);
      } finally {
        await restored.db.destroy();
      }
    } finally {
      await services.db.destroy();
      await fs.rm(dataDir, { recursive: true, force: true });
    }
  });
});
