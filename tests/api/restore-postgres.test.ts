import { createHash } from "node:crypto";
import { createWriteStream } from "node:fs";
import fs from "node:fs/promises";
import os from "node:os";
import path from "node:path";
import type { Readable } from "node:stream";
import { pipeline } from "node:stream/promises";
import { GetObjectCommand } from "@aws-sdk/client-s3";
import supertest from "supertest";
import { afterAll, afterEach, beforeAll, describe, expect, inject, it } from "vitest";
import { createSession, ensureAdministrator } from "~/auth/auth.server";
import { backupsDirOf } from "~/backups/backup-files.server";
import { loadBackupNaming } from "~/backups/backup-names.server";
import { createBackup } from "~/backups/backup.server";
import { postgresRestoreDestination } from "~/backups/restore-postgres.server";
import { RestoreRefusedError, restoreBackup, verifyArchive } from "~/backups/restore.server";
import { saveContent } from "~/content/content.server";
import { DatabaseLockedError, lockDatabase } from "~/db/database-lock.server";
import { knownMigrations } from "~/db/database.server";
import { listTables } from "~/db/snapshot.server";
import { parseEnv, type Env } from "~/env.server";
import { variantKeyFromPublicPath } from "~/images/processed-image";
import { systemClock } from "~/lib/clock";
import { createLogger } from "~/lib/logger.server";
import type { AppServices } from "~/services.server";
import { createApp } from "../../server/app";
import { openServices } from "../../server/bootstrap";
import { createTestBucket, createTestDatabase, s3Env, type TestBucket, type TestDatabase } from "../support/backends";
import { manifestOf, readEntries, rewriteArchive, rewriteAtOlderSchema } from "../support/backup-archives";
import { SITE_TEXTS, createSite, dumpSite, openSite, type SiteDump } from "../support/backup-site";
import { runScript } from "../support/run-script";

/**
 * `npm run restore` into PostgreSQL + S3, and the migration path: a backup of
 * a SQLite + local-disk site restores into a fresh PostgreSQL database and
 * bucket. These run in the postgres-s3 run (TEST_BACKEND=postgres-s3, one of
 * the two runs `npm test` makes); the SQLite restore has its own tests
 * (backup-restore.test.ts).
 */
const backends = inject("backends");
const onPostgres = backends.testBackend === "postgres-s3";
const silent = createLogger({ level: "silent" });

const tmp = await fs.mkdtemp(path.join(os.tmpdir(), "cornerstone-restore-pg-"));
let counter = 0;
const tmpPath = (name: string) => path.join(tmp, `${++counter}-${name}`);

/** A fresh, empty PostgreSQL database (no migrations) and bucket, with the settings a server would get. */
type Target = {
  env: Env;
  envVars: Record<string, string>;
  database: TestDatabase;
  bucket: TestBucket;
  dataDir: string;
};
const targets: Target[] = [];
const opened: AppServices[] = [];

async function freshTarget(): Promise<Target> {
  const database = await createTestDatabase(backends.postgresUrl);
  const dataDir = tmpPath("data");
  const base = { DATA_DIR: dataDir, LOG_LEVEL: "silent", NODE_ENV: "test" };
  const bucket = await createTestBucket(backends.s3Endpoint, {
    siteOrigins: [new URL(parseEnv(base).SITE_URL).origin],
  });
  const envVars = { ...base, DATABASE_URL: database.url, ...s3Env(backends.s3Endpoint, bucket.name) };
  const target = { env: parseEnv(envVars), envVars, database, bucket, dataDir };
  targets.push(target);
  return target;
}

async function open(target: Target): Promise<AppServices> {
  const services = await openServices(target.env, silent);
  opened.push(services);
  return services;
}

const restoreInto = (target: Target, file: string) =>
  restoreBackup({
    dataDir: target.dataDir,
    file,
    destination: postgresRestoreDestination({ env: target.env, logger: silent }),
  });

/** A live PostgreSQL + S3 site with its own text, administrator and session. */
async function liveSite(target: Target): Promise<AppServices> {
  const services = await open(target);
  await ensureAdministrator(services, { username: "owner", password: "the live password" });
  const user = await services.db.selectFrom("users").select("id").executeTakeFirstOrThrow();
  await createSession(services, user.id);
  await saveContent(services, "hero.title", "The live site's own title");
  return services;
}

const sha256 = (data: Buffer) => createHash("sha256").update(data).digest("hex");

// The SQLite + local-disk site every test restores from.
let siteDump: SiteDump;
let archive: string;
beforeAll(async () => {
  if (!onPostgres) return;
  const site = await createSite({ galleries: { traditional: 2, landscaping: 1 }, enquiries: 5 });
  siteDump = await dumpSite(site.services);
  archive = tmpPath("sqlite-site.tar.gz");
  const result = await createBackup(
    { ...site.services, clock: systemClock },
    { purpose: "manual", workDir: backupsDirOf(site.dataDir), destination: { kind: "file", path: archive } },
  );
  expect(result.status).toBe("succeeded");
  await site.services.db.destroy();
  await fs.rm(site.dataDir, { recursive: true, force: true });
}, 60_000);

afterEach(async () => {
  for (const services of opened.splice(0)) await services.close().catch(() => {});
  for (const target of targets.splice(0)) {
    await target.bucket.remove().catch(() => {});
    await target.database.drop().catch(() => {});
  }
});
afterAll(async () => {
  await fs.rm(tmp, { recursive: true, force: true });
});

describe.skipIf(!onPostgres)("restore into PostgreSQL + S3 (runs in the TEST_BACKEND=postgres-s3 run)", () => {
  it("the migration path: a SQLite + disk backup restores into a fresh database and bucket; a server on them shows the text and serves the image", async () => {
    const target = await freshTarget();
    const result = await restoreInto(target, archive);
    expect(result.previousKeptAt).toBeNull();
    expect(result.objects).toBe(Object.keys(siteDump.objects).length);
    expect(result.migrationsApplied).toEqual([]);

    const services = await open(target);
    // Row for row and byte for byte what the SQLite site held.
    expect(await dumpSite(services)).toEqual(siteDump);
    expect(await services.db.selectFrom("sessions").selectAll().execute()).toEqual([]);

    const api = supertest(createApp(services));
    expect((await api.get("/api/content/hero.title").expect(200)).body.content).toBe(SITE_TEXTS["hero.title"]);
    const images = (await api.get("/api/galleries/traditional").expect(200)).body as {
      variants: { jpeg: { path: string } };
    }[];
    expect(images).toHaveLength(2);
    const served = await api
      .get(images[0]!.variants.jpeg.path)
      .buffer(true)
      .parse((res, callback) => {
        const chunks: Buffer[] = [];
        res.on("data", (chunk: Buffer) => chunks.push(chunk));
        res.on("end", () => callback(null, Buffer.concat(chunks)));
      })
      .expect(200);
    const key = variantKeyFromPublicPath(images[0]!.variants.jpeg.path)!;
    expect(sha256(served.body as Buffer)).toBe(siteDump.objects[key]);
    // The administrator's password is the one from the backup.
    await api.post("/api/login").send({ username: "owner", password: "the password at backup time" }).expect(200);
    // Nothing was there to keep, so nothing was written under backups/.
    expect(await target.bucket.keys("backups/")).toEqual([]);
  });

  it("over live data: backs the live data up into the bucket under backups/ first, replaces every table, keeps the instances' secrets, ends the sessions", async () => {
    const target = await freshTarget();
    const live = await liveSite(target);
    // The installation's backup-naming key, made by its first backup: the restore carries it over (decision 0046).
    await loadBackupNaming({ dataDir: target.dataDir, sharedDb: live.db });
    const secretsBefore = await live.db.selectFrom("secrets").selectAll().orderBy("name").execute();
    expect(secretsBefore.length).toBeGreaterThan(0);

    const result = await restoreInto(target, archive);

    expect(result.previousKeptAt).toMatch(
      new RegExp(`^s3://${target.bucket.name}/backups/pre-restore-\\d{8}-\\d{6}-[0-9a-f]{24}-[0-9a-f]{32}\\.tar\\.gz$`),
    );
    const key = result.previousKeptAt!.slice(`s3://${target.bucket.name}/`.length);
    expect(await target.bucket.keys("backups/")).toEqual([key]);
    // Nothing of it is left on this machine's disk.
    expect((await fs.readdir(backupsDirOf(target.dataDir))).filter((name) => !name.startsWith("."))).toEqual([]);
    // The pre-restore backup is a whole backup of what was replaced.
    const kept = tmpPath("pre-restore.tar.gz");
    const object = await target.bucket.client.send(new GetObjectCommand({ Bucket: target.bucket.name, Key: key }));
    await pipeline(object.Body as Readable, createWriteStream(kept));
    await verifyArchive(kept);
    const keptEntries = await readEntries(kept);
    expect(keptEntries.find((e) => e.name === "tables/content_entries.jsonl")!.data.toString()).toContain(
      "The live site's own title",
    );

    const after = await open(target);
    expect(await dumpSite(after)).toEqual(siteDump);
    expect(await after.db.selectFrom("sessions").selectAll().execute()).toEqual([]);
    expect(await after.db.selectFrom("secrets").selectAll().orderBy("name").execute()).toEqual(secretsBefore);
    const api = supertest(createApp(after));
    await api.post("/api/login").send({ username: "owner", password: "the live password" }).expect(401);
    await api.post("/api/login").send({ username: "owner", password: "the password at backup time" }).expect(200);
  });

  it("refuses while a server holds the database's instance lock, changing nothing; a server cannot start while a restore runs", async () => {
    const target = await freshTarget();
    const live = await liveSite(target);
    const before = await dumpSite(live);
    const server = await lockDatabase(target.database.url, "shared");
    try {
      const error = await restoreInto(target, archive).catch((e: unknown) => e);
      expect(error).toBeInstanceOf(RestoreRefusedError);
      expect((error as Error).message).toMatch(
        /A Cornerstone server \(or npm run backup\) is using the database .*Stop every instance first.*Nothing was changed\./s,
      );
      expect(await dumpSite(live)).toEqual(before);
      expect(await target.bucket.keys("backups/")).toEqual([]);
    } finally {
      await server.release();
    }

    const restore = await lockDatabase(target.database.url, "exclusive");
    try {
      await expect(lockDatabase(target.database.url, "shared")).rejects.toThrow(DatabaseLockedError);
      await expect(lockDatabase(target.database.url, "shared")).rejects.toThrow(/A restore is running on the database/);
    } finally {
      await restore.release();
    }
    await expect(restoreInto(target, archive)).resolves.toMatchObject({
      objects: Object.keys(siteDump.objects).length,
    });
  });

  it("a restore that fails part-way (bad rows that pass the checksums) rolls back: every live table and row as it was", async () => {
    const badRows = tmpPath("bad-rows.tar.gz");
    await rewriteArchive(
      archive,
      badRows,
      (entries, manifest) => {
        const entry = entries.find((e) => e.name === "tables/contact_submissions.jsonl")!;
        entry.data = Buffer.concat([entry.data, Buffer.from('{"id":"x","no_such_column":1}\n')]);
        manifest.tables.contact_submissions!.rows += 1;
      },
      { rehash: true },
    );
    const target = await freshTarget();
    const live = await liveSite(target);
    const before = await dumpSite(live);
    const tablesBefore = await listTables(live.db);
    const sessionsBefore = await live.db.selectFrom("sessions").selectAll().execute();

    await expect(restoreInto(target, badRows)).rejects.toThrow(/no_such_column/);

    expect(await listTables(live.db)).toEqual(tablesBefore);
    expect(await dumpSite(live)).toEqual(before);
    expect(await live.db.selectFrom("sessions").selectAll().execute()).toEqual(sessionsBefore);
  });

  it("a backup at an older schema restores over a database at the newest: tables rebuilt at the backup's schema, then migrated", async () => {
    const oldest = knownMigrations()[1]!;
    const older = tmpPath("older-schema.tar.gz");
    await rewriteAtOlderSchema(archive, older, oldest);
    const target = await freshTarget();
    await liveSite(target);

    const result = await restoreInto(target, older);

    expect(result.migrationsApplied).toEqual(knownMigrations().slice(2));
    const after = await open(target);
    const dump = await dumpSite(after);
    for (const table of ["users", "content_entries", "gallery_images"])
      expect(dump.tables[table]).toEqual(siteDump.tables[table]);
    expect(dump.objects).toEqual(siteDump.objects);
  });
});

/** `npm run backup` / `npm run restore` as a person runs them. */
describe.skipIf(!onPostgres)(
  "npm run restore / backup on PostgreSQL + S3 (runs in the TEST_BACKEND=postgres-s3 run)",
  () => {
    it("restore -- FILE with DATABASE_URL and S3_* set fills that database and bucket; backup there writes a local file that restores into SQLite the same", async () => {
      const target = await freshTarget();
      const restored = await runScript("restore", [archive], target.envVars);
      expect(restored.status, restored.stderr).toBe(0);
      expect(restored.stdout).toContain(`into the PostgreSQL database postgres://postgres@`);
      expect(restored.stdout).toContain(`and the bucket ${target.bucket.name}.`);
      expect(restored.stdout).toContain("The database was empty: there was nothing to keep.");

      const backedUp = await runScript("backup", [], target.envVars);
      expect(backedUp.status, backedUp.stderr).toBe(0);
      const file = /Backup written: (\S+\.tar\.gz)/.exec(backedUp.stdout)![1]!;
      expect(path.dirname(file)).toBe(backupsDirOf(target.dataDir));
      const manifest = manifestOf(await readEntries(file));
      // Only the objects the rows refer to: never anything under backups/.
      expect(
        Object.keys(manifest.files)
          .filter((name) => name.startsWith("objects/"))
          .sort(),
      ).toEqual(
        Object.keys(siteDump.objects)
          .map((key) => `objects/${key}`)
          .sort(),
      );

      // And back the other way: PostgreSQL + S3 → SQLite + disk, row for row.
      const sqliteDir = tmpPath("back-to-sqlite");
      await restoreBackup({ dataDir: sqliteDir, file });
      const sqlite = await openSite(sqliteDir);
      try {
        expect(await dumpSite(sqlite)).toEqual(siteDump);
      } finally {
        await sqlite.db.destroy();
      }
    });
  },
);
