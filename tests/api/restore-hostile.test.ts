import { createHash, randomUUID } from "node:crypto";
import fs from "node:fs/promises";
import os from "node:os";
import path from "node:path";
import type { Kysely } from "kysely";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { backupsDirOf } from "~/backups/backup-files.server";
import { createBackup } from "~/backups/backup.server";
import { postgresRestoreDestination } from "~/backups/restore-postgres.server";
import { localRestoreDestination, restoreBackup, type RestoreDestination } from "~/backups/restore.server";
import { listTables } from "~/db/snapshot.server";
import { seedDemoGallery } from "~/galleries/demo-images.server";
import { systemClock } from "~/lib/clock";
import { createLogger } from "~/lib/logger.server";
import { openServices } from "../../server/bootstrap";
import { addZeroEntry, rewriteArchive, type RawEntry } from "../support/backup-archives";
import { runScript } from "../support/run-script";
import { createAdminContext, type AdminContext } from "./helpers";

/**
 * Hostile archives against `npm run restore`, on whichever back end
 * this run uses: SQLite + the local disk, or (TEST_BACKEND=postgres-s3) PostgreSQL + the bucket.
 * Each archive passes the checksum test (its manifest is rewritten to match), and each refusal
 * must leave every row and every stored object as it was.
 */
const PEAK_RSS_PRELOAD = path.resolve("tests/support/backup-peak-rss.mjs");
const MB = 1024 * 1024;

let ctx: AdminContext;
let tmp: string;
let archive: string;
beforeEach(async () => {
  ctx = await createAdminContext();
  await seedDemoGallery(ctx.services, "traditional", 2, { width: 480, height: 320 });
  tmp = await fs.mkdtemp(path.join(os.tmpdir(), "cornerstone-restore-hostile-"));
  archive = path.join(tmp, "site.tar.gz");
  const result = await createBackup(
    { ...ctx.services, clock: systemClock },
    { purpose: "manual", workDir: backupsDirOf(ctx.dataDir), destination: { kind: "file", path: archive } },
  );
  expect(result.status).toBe("succeeded");
}, 60_000);
afterEach(async () => {
  await ctx.close();
  await fs.rm(tmp, { recursive: true, force: true });
});

/** `npm run restore` on this site's settings, with its peak resident memory in MB. */
async function restore(...args: string[]) {
  const peakFile = path.join(tmp, `peak-${randomUUID()}`);
  const result = await runScript("restore", args, {
    ...ctx.envVars,
    LOG_LEVEL: "silent",
    NODE_OPTIONS: `--import ${PEAK_RSS_PRELOAD}`,
    PEAK_RSS_FILE: peakFile,
  });
  const peakRssMB = Number(await fs.readFile(peakFile, "utf8")) / 1024;
  return { ...result, peakRssMB };
}

/**
 * What a hostile archive adds to the restore's peak memory: its peak less that of the same
 * script loaded with the same settings that restores nothing (`--help`, run just before, so both
 * see the machine alike). Loading the script through tsx alone takes about 190 MB, close to any
 * fixed ceiling; a refusal adds -4 to +10 MB to it (measured quiet, and beside three busy loops).
 * Reading the 40 MB table whole before its lines adds 38 MB; the 512 MB object, far more.
 */
async function extraMemoryMB(file: string, refusal: RegExp): Promise<number> {
  const loadedOnly = await restore("--help");
  const result = await expectRefusedUnchanged(file, refusal);
  return result.peakRssMB - loadedOnly.peakRssMB;
}

const sha256 = (data: Buffer) => createHash("sha256").update(data).digest("hex");

/** Every row of every table and the SHA-256 of every stored object, for "nothing changed". */
async function liveState() {
  const db = ctx.services.db as unknown as Kysely<Record<string, Record<string, unknown>>>;
  const tables: Record<string, string[]> = {};
  for (const table of await listTables(ctx.services.db)) {
    tables[table] = (await db.selectFrom(table).selectAll().execute()).map((row) => JSON.stringify(row)).sort();
  }
  const objects: Record<string, string> = {};
  for (const key of await ctx.storedKeys("")) objects[key] = sha256(await readObject(key));
  return { tables, objects };
}

const table = (entries: RawEntry[], name: string) => entries.find((e) => e.name === `tables/${name}.jsonl`)!;
const appendLine = (entry: RawEntry, line: string) => {
  entry.data = Buffer.concat([entry.data, Buffer.from(`${line}\n`)]);
};

async function expectRefusedUnchanged(file: string, message: RegExp) {
  const before = await liveState();
  const result = await restore(file);
  expect(result.status, result.stdout).toBe(1);
  expect(result.stderr).toMatch(message);
  expect(result.stderr).toMatch(/Nothing was changed\./);
  expect(result.stderr).not.toMatch(/changed while it was being restored/);
  expect(await liveState()).toEqual(before);
  return result;
}

describe("npm run restore refuses a hostile archive and changes nothing", () => {
  it("seven planted objects/backups/cornerstone-9999… entries: refused and listed; none lands in storage", async () => {
    const planted = Array.from({ length: 7 }, (_, i) => `backups/cornerstone-99991231-23595${i}.tar.gz`);
    const file = path.join(tmp, "planted.tar.gz");
    await rewriteArchive(
      archive,
      file,
      (entries) => [
        ...entries,
        ...planted.map((key) => ({ name: `objects/${key}`, type: "file", data: Buffer.from("planted") })),
      ],
      { rehash: true },
    );
    const result = await expectRefusedUnchanged(file, /The archive holds 7 file\(s\) that no restored row refers to/);
    for (const key of planted) expect(result.stderr).toContain(key);
    expect(await ctx.storedKeys("backups/")).toEqual([]);
  });

  it("a replaced live variant and one invalid JSON row: refused, naming the table and line; the live variant is byte-identical", async () => {
    const [variant] = await ctx.storedKeys("variants/");
    const liveBytes = await readObject(variant!);
    const file = path.join(tmp, "defaced.tar.gz");
    let line = 0;
    await rewriteArchive(
      archive,
      file,
      (entries, manifest) => {
        entries.find((e) => e.name === `objects/${variant}`)!.data = Buffer.from("DEFACED-NOT-A-JPEG");
        const contents = table(entries, "content_entries");
        line = contents.data.toString("utf8").split("\n").filter(Boolean).length + 1;
        appendLine(contents, '{"key": "hero.title", "content": broken');
        manifest.tables.content_entries!.rows += 1;
      },
      { rehash: true },
    );
    await expectRefusedUnchanged(
      file,
      new RegExp(
        `In table content_entries \\(tables/content_entries\\.jsonl\\), line ${line}: the line is not valid JSON\\.`,
      ),
    );
    expect(await readObject(variant!)).toEqual(liveBytes);
    const served = await ctx.api
      .get(`/media/${variant!.slice("variants/".length)}`)
      .buffer(true)
      .expect(200);
    expect(sha256(served.body as Buffer)).toBe(sha256(liveBytes));
  });

  it("a replaced live variant and a row only the database rejects: the variant is written after the rows, so it stays byte-identical", async () => {
    const [variant] = await ctx.storedKeys("variants/");
    const liveBytes = await readObject(variant!);
    const file = path.join(tmp, "defaced-bad-row.tar.gz");
    await rewriteArchive(
      archive,
      file,
      (entries, manifest) => {
        entries.find((e) => e.name === `objects/${variant}`)!.data = Buffer.from("DEFACED-NOT-A-JPEG");
        appendLine(table(entries, "content_entries"), JSON.stringify({ key: "hero.title", no_such_column: 1 }));
        manifest.tables.content_entries!.rows += 1;
      },
      { rehash: true },
    );
    // Found only by the database, after the pre-restore backup (PostgreSQL), so compare the site's own objects and rows.
    const siteObjects = (state: Awaited<ReturnType<typeof liveState>>) =>
      Object.entries(state.objects).filter(([key]) => !key.startsWith("backups/"));
    const before = await liveState();
    const result = await restore(file);
    expect(result.status).toBe(1);
    expect(result.stderr).toMatch(/The restore failed: .*no_such_column.* The live data was left as it was\./);
    const after = await liveState();
    expect(siteObjects(after)).toEqual(siteObjects(before));
    expect(after.tables.content_entries).toEqual(before.tables.content_entries);
    expect(after.tables.gallery_images).toEqual(before.tables.gallery_images);
    expect(await readObject(variant!)).toEqual(liveBytes);
  });

  it("a second administrator in users (manifest count and hash fixed): refused with the count", async () => {
    const file = path.join(tmp, "two-users.tar.gz");
    await rewriteArchive(
      archive,
      file,
      (entries, manifest) => {
        const users = table(entries, "users");
        const [owner] = users.data.toString("utf8").split("\n").filter(Boolean);
        appendLine(users, JSON.stringify({ ...(JSON.parse(owner!) as object), id: randomUUID(), username: "planted" }));
        manifest.tables.users!.rows = 2;
      },
      { rehash: true },
    );
    await expectRefusedUnchanged(
      file,
      /The backup's users table holds 2 rows; a site has exactly one administrator, so this backup cannot be restored\./,
    );
  });

  it("no administrator at all: refused with the count", async () => {
    const file = path.join(tmp, "no-users.tar.gz");
    await rewriteArchive(
      archive,
      file,
      (entries, manifest) => {
        table(entries, "users").data = Buffer.alloc(0);
        manifest.tables.users!.rows = 0;
      },
      { rehash: true },
    );
    await expectRefusedUnchanged(file, /The backup's users table holds 0 rows/);
  });

  it("a 40 MB JSON line in a small archive: refused at its first megabyte, naming the table and line, adding under 24 MB to the script's own memory", async () => {
    const file = path.join(tmp, "long-line.tar.gz");
    let line = 0;
    await rewriteArchive(
      archive,
      file,
      (entries, manifest) => {
        const enquiries = table(entries, "contact_submissions");
        line = enquiries.data.toString("utf8").split("\n").filter(Boolean).length + 1;
        appendLine(enquiries, JSON.stringify({ id: randomUUID(), message: "x".repeat(40 * MB) }));
        manifest.tables.contact_submissions!.rows += 1;
      },
      { rehash: true },
    );
    expect((await fs.stat(file)).size).toBeLessThan(MB);
    const extra = await extraMemoryMB(
      file,
      new RegExp(
        `In table contact_submissions \\(tables/contact_submissions\\.jsonl\\), line ${line}: the line is longer than 1\\.0 MB`,
      ),
    );
    expect(extra).toBeLessThan(24);
  });

  it("a 530 KB archive holding a 512 MB object: refused from its header; nothing written, adding under 24 MB to the script's own memory", async () => {
    const file = path.join(tmp, "huge-object.tar.gz");
    await addZeroEntry(archive, file, "objects/originals/orphan", 512 * MB);
    expect((await fs.stat(file)).size).toBeLessThan(MB);
    const extra = await extraMemoryMB(
      file,
      /objects\/originals\/orphan is 512 MB, larger than any image file this site stores \(at most 20 MB\)/,
    );
    expect(extra).toBeLessThan(24);
    expect(await ctx.storedKeys("originals/")).not.toContain("originals/orphan");
  });

  it("a variant larger than a variant may be (5 MB), named by its row: refused, naming it", async () => {
    const [variant] = await ctx.storedKeys("variants/");
    const file = path.join(tmp, "big-variant.tar.gz");
    await rewriteArchive(
      archive,
      file,
      (entries) => {
        entries.find((e) => e.name === `objects/${variant}`)!.data = Buffer.alloc(6 * MB, 1);
      },
      { rehash: true },
    );
    await expectRefusedUnchanged(
      file,
      new RegExp(`The archive holds image files larger than this site ever stores: ${variant}`),
    );
  });
});

describe("an archive that changes between the check and the write", () => {
  it("an object planted after the first pass is refused when it comes to be written, naming it; nothing changes", async () => {
    const planted = path.join(tmp, "planted-later.tar.gz");
    await rewriteArchive(
      archive,
      planted,
      (entries) => [
        ...entries,
        { name: "objects/originals/planted-later", type: "file", data: Buffer.from("planted") },
      ],
      {
        rehash: true,
      },
    );
    const file = path.join(tmp, "changing.tar.gz");
    await fs.copyFile(archive, file);
    const destination =
      ctx.backend.database === "postgres"
        ? postgresRestoreDestination({ env: ctx.env, logger: createLogger({ level: "silent" }) })
        : localRestoreDestination(ctx.dataDir);
    // The swap happens after the whole archive was checked, before anything is written.
    const swapAfterCheck: RestoreDestination = {
      ...destination,
      prepare: async (at) => {
        await fs.copyFile(planted, file);
        return destination.prepare(at);
      },
    };
    // On PostgreSQL the restore first makes a pre-restore backup (decision 0042): that, and only that, is new.
    const withoutPreRestoreBackup = ({ tables, objects }: Awaited<ReturnType<typeof liveState>>) => ({
      tables: Object.fromEntries(
        Object.entries(tables).filter(([name]) => !["backup_state", "secrets"].includes(name)),
      ),
      objects: Object.fromEntries(Object.entries(objects).filter(([key]) => !key.startsWith("backups/pre-restore-"))),
    });
    const before = withoutPreRestoreBackup(await liveState());
    await expect(restoreBackup({ dataDir: ctx.dataDir, file, destination: swapAfterCheck })).rejects.toThrow(
      /The backup file changed while it was being restored: objects\/originals\/planted-later was not in the archive checked first\./,
    );
    expect(withoutPreRestoreBackup(await liveState())).toEqual(before);
    expect(await ctx.storedKeys("originals/")).not.toContain("originals/planted-later");
  });
});

describe("a restore that works", () => {
  it("prints the restored administrator, ends every session and clears every lock-out", async () => {
    const now = new Date().toISOString();
    await ctx.services.db
      .insertInto("sign_in_failures")
      .values({ address_hash: "a".repeat(64), attempts: 9, first_failed_at: now, last_failed_at: now })
      .execute();
    await ctx.services.db
      .insertInto("rate_limit_counters")
      .values({ scope: "sign-in", key: "b".repeat(64), window_start: now, expires_at: now, count: 99 })
      .execute();
    expect(await ctx.services.db.selectFrom("sessions").select("id").execute()).not.toHaveLength(0);

    const result = await restore(archive);
    expect(result.status, result.stderr).toBe(0);
    expect(result.stdout).toMatch(/The administrator is owner\./);

    const restored = await openServices(ctx.env, createLogger({ level: "silent" }));
    try {
      for (const name of ["sessions", "sign_in_failures", "rate_limit_counters"] as const) {
        expect(await restored.db.selectFrom(name).selectAll().execute(), name).toEqual([]);
      }
      expect(await restored.db.selectFrom("users").select("username").execute()).toEqual([{ username: "owner" }]);
    } finally {
      await restored.close();
    }
  });
});

async function readObject(key: string): Promise<Buffer> {
  const object = (await ctx.services.storage.read(key))!;
  const chunks: Buffer[] = [];
  for await (const chunk of object.stream) chunks.push(chunk as Buffer);
  return Buffer.concat(chunks);
}
