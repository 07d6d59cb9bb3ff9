import type { Readable } from "node:stream";
import type { Kysely } from "kysely";
import { knownMigrations, migrateTo, migrateToLatest, type Database } from "~/db/database.server";
import type { DatabaseSchema } from "~/db/schema";
import { listTables } from "~/db/snapshot.server";
import { recordRestoreRun } from "~/activity/activity-log.server";
import { systemClock, type Clock } from "~/lib/clock";
import { DataDirLockedError, lockDataDir } from "~/lib/data-dir-lock.server";
import {
  BackupArchiveError,
  checkManifest,
  readArchive,
  type BackupManifest,
} from "./backup-archive.server";
import { statfsProbe, timestampForFileName, type FreeSpaceProbe } from "./backup-files.server";
import { formatBytes } from "./backup-status";
import { EXCLUDED_TABLES } from "./backup-tables.server";
import type { ObjectStorage } from "~/storage/storage.server";
import { prepareLocalRestoreTarget, removeAbandonedStaging, type RestoreTarget } from "./restore-target.server";

/** A restore that did not happen; the message says why. Nothing was changed. */
export class RestoreRefusedError extends Error {
  override name = "RestoreRefusedError";
}

export type RestoreResult = {
  manifest: BackupManifest;
  rows: Record<string, number>;
  objects: number;
  /** Migrations newer than the backup, run after loading it. */
  migrationsApplied: string[];
  /** Where the data the restore replaced now lives; null when there was none. */
  previousKeptAt: string | null;
};

export type RestoreOptions = {
  dataDir: string;
  file: string;
  clock?: Clock;
  freeSpace?: FreeSpaceProbe;
  /** Where the restore goes: SQLite + local disk in dataDir by default; restore-postgres.server.ts for PostgreSQL. */
  destination?: RestoreDestination;
};

/** One kind of place a restore can go. */
export type RestoreDestination = {
  /** Refuses (RestoreRefusedError) while a server or backup uses the data; held until released. */
  lock(): Promise<{ release(): void | Promise<void> }>;
  /** True: the restored database is built on DATA_DIR's disk first, so its free space is checked. */
  buildsOnDisk: boolean;
  prepare(stamp: string): Promise<RestoreTarget>;
};

/** SQLite in dataDir (decision 0028), with the local disk, or `liveStorage` (a bucket) when given. */
export function localRestoreDestination(dataDir: string, liveStorage?: ObjectStorage): RestoreDestination {
  return {
    buildsOnDisk: true,
    async lock() {
      try {
        return lockDataDir(dataDir, "exclusive");
      } catch (error) {
        if (error instanceof DataDirLockedError) {
          throw new RestoreRefusedError(
            `${error.message}. Stop it first (for example: sudo systemctl stop cornerstone), then run the restore again. Nothing was changed.`,
          );
        }
        throw error;
      }
    },
    async prepare(stamp) {
      await removeAbandonedStaging(dataDir);
      return prepareLocalRestoreTarget(dataDir, stamp, liveStorage);
    },
  };
}

const INSERT_BATCH = 200;

const fullStop = (message: string) => (/[.!?]$/.test(message) ? message : `${message}.`);
const MAX_LINE_BYTES = 64 * 1024 * 1024;

/**
 * Restores a backup (decision 0028; PostgreSQL: decision 0042):
 * 1. refuses while a server (or backup) uses the data (DATA_DIR's lock, or
 *    on PostgreSQL the database's advisory lock);
 * 2. reads the whole archive once, checking every path, size and SHA-256 and
 *    that its schema is not newer than this code's, before touching anything;
 * 3. builds the database at the backup's schema, loads it, then runs the
 *    newer migrations: SQLite beside the live data, swapped in at the end
 *    (the previous data kept under backups/pre-restore-…); PostgreSQL in one
 *    transaction over the live database, after a pre-restore backup and after
 *    the objects are in the live storage.
 * Sessions are never in a backup, so everyone signs in again.
 */
export async function restoreBackup(options: RestoreOptions): Promise<RestoreResult> {
  const clock = options.clock ?? systemClock;
  const destination = options.destination ?? localRestoreDestination(options.dataDir);
  const lock = await destination.lock();
  try {
    // 1. Verify everything before changing anything.
    const manifest = await verifyArchive(options.file);
    checkSchema(manifest);
    if (destination.buildsOnDisk) await checkRoom(options, manifest);

    // 2. Build.
    const stamp = timestampForFileName(clock.now());
    const target = await destination.prepare(stamp);
    let loaded: { rows: Record<string, number>; objects: number };
    let migrationsApplied: string[];
    try {
      const objects = target.objectsFirst ? await loadObjects(options.file, target.storage) : null;
      ({ loaded, migrationsApplied } = await target.fill(async (db, migrate) => {
        await migrateTo(db, manifest.schema.migration, migrate);
        const rowsLoaded = await loadArchive(options.file, manifest, db, objects === null ? target.storage : null);
        const applied = await migrateToLatest(db, migrate);
        // The security log notes the restore in the restored data itself (issue 19 §8).
        await recordRestoreRun({ db, clock }, options.file);
        return { loaded: { rows: rowsLoaded.rows, objects: objects ?? rowsLoaded.objects }, migrationsApplied: applied };
      }));
    } catch (error) {
      await target.discard();
      if (error instanceof BackupArchiveError) {
        // Objects loaded first only added keys to the live storage; the database is as it was.
        const unchanged = target.objectsFirst ? "The database was not changed." : "Nothing was changed.";
        throw new RestoreRefusedError(`The backup file changed while it was being restored: ${fullStop(error.message)} ${unchanged}`);
      }
      throw error;
    }

    // 3. Swap in.
    const { previousKeptAt } = await target.swapIn();
    return { manifest, ...loaded, migrationsApplied, previousKeptAt };
  } finally {
    await lock.release();
  }
}

/** Reads the whole archive, checking every entry against the manifest. Throws RestoreRefusedError. */
export async function verifyArchive(file: string): Promise<BackupManifest> {
  try {
    const read = await readArchive(file, async (entry) => {
      for await (const _chunk of entry.stream) {
        // Hashed by readArchive; nothing else to do on this pass.
      }
    });
    return checkManifest(read);
  } catch (error) {
    if (error instanceof BackupArchiveError) throw new RestoreRefusedError(`${fullStop(error.message)} Nothing was changed.`);
    throw error;
  }
}

function checkSchema(manifest: BackupManifest): void {
  const known = knownMigrations();
  const migration = manifest.schema.migration;
  if (known.includes(migration)) return;
  const newest = known.at(-1) ?? "none";
  if (migration > newest) {
    throw new RestoreRefusedError(
      `The backup's schema (${migration}) is newer than this version of Cornerstone knows (${newest}): ` +
        `it was made by a newer version. Update Cornerstone first, then restore. Nothing was changed.`,
    );
  }
  throw new RestoreRefusedError(`The backup's schema (${migration}) is unknown to this version of Cornerstone. Nothing was changed.`);
}

async function checkRoom(options: RestoreOptions, manifest: BackupManifest): Promise<void> {
  const contentBytes = Object.values(manifest.files).reduce((sum, file) => sum + file.bytes, 0);
  // The database takes more room than its JSON lines; allow a generous margin.
  const needed = Math.ceil(contentBytes * 1.5) + 64 * 1024 * 1024;
  const { freeBytes } = await (options.freeSpace ?? statfsProbe)(options.dataDir);
  if (freeBytes < needed) {
    throw new RestoreRefusedError(
      `Not enough free disk space to restore: about ${formatBytes(needed)} is needed beside the live data, ${formatBytes(freeBytes)} is free. Nothing was changed.`,
    );
  }
}

/** Objects only, into storage; checked against the manifest again (PostgreSQL: before any row changes). */
async function loadObjects(file: string, storage: ObjectStorage): Promise<number> {
  let objects = 0;
  const read = await readArchive(file, async (entry) => {
    if (entry.kind.kind === "object") {
      await storage.write(entry.kind.key, entry.stream);
      objects += 1;
      return;
    }
    for await (const _chunk of entry.stream) {
      // Tables come in the pass that fills the database.
    }
  });
  checkManifest(read);
  return objects;
}

/** Rows through Kysely, and objects into `storage` unless they went in already; checked against the manifest again. */
async function loadArchive(
  file: string,
  manifest: BackupManifest,
  targetDb: Kysely<DatabaseSchema>,
  storage: ObjectStorage | null,
): Promise<{ rows: Record<string, number>; objects: number }> {
  const present = new Set(await listTables(targetDb as Database));
  for (const table of Object.keys(manifest.tables)) {
    if (!present.has(table) && !(table in EXCLUDED_TABLES)) {
      throw new BackupArchiveError(`The backup holds table ${table}, which its schema (${manifest.schema.migration}) does not define`);
    }
  }
  const db = targetDb as unknown as Kysely<Record<string, Record<string, unknown>>>;
  const rows: Record<string, number> = {};
  let objects = 0;
  const read = await readArchive(file, async (entry) => {
    if (entry.kind.kind === "object") {
      if (storage) {
        await storage.write(entry.kind.key, entry.stream);
        objects += 1;
      } else {
        for await (const _chunk of entry.stream) {
          // Loaded in the objects' own pass.
        }
      }
      return;
    }
    if (entry.kind.kind !== "table") return;
    const table = entry.kind.table;
    if (table in EXCLUDED_TABLES || !present.has(table)) {
      // Left out of restores on purpose (e.g. an older backup's working data).
      for await (const _chunk of entry.stream) {
        // Skipped.
      }
      return;
    }
    let count = 0;
    let batch: Record<string, unknown>[] = [];
    for await (const row of jsonLines(entry.stream, entry.name)) {
      batch.push(row);
      if (batch.length === INSERT_BATCH) {
        await db.insertInto(table).values(batch).execute();
        count += batch.length;
        batch = [];
      }
    }
    if (batch.length) await db.insertInto(table).values(batch).execute();
    count += batch.length;
    rows[table] = count;
  });
  // The same bytes as the first pass, or nothing is swapped in.
  checkManifest(read);
  for (const [table, info] of Object.entries(manifest.tables)) {
    if (rows[table] !== undefined && rows[table] !== info.rows) {
      throw new BackupArchiveError(`tables/${table}.jsonl holds ${rows[table]} rows; the manifest says ${info.rows}`);
    }
  }
  return { rows, objects };
}

/** One JSON object per line; plain values only (text, numbers, null). */
async function* jsonLines(stream: Readable, name: string): AsyncGenerator<Record<string, unknown>> {
  let pending = "";
  let lineNumber = 0;
  const parse = (line: string) => {
    lineNumber += 1;
    let value: unknown;
    try {
      value = JSON.parse(line);
    } catch {
      throw new BackupArchiveError(`${name} line ${lineNumber} is not valid JSON`);
    }
    if (
      typeof value !== "object" ||
      value === null ||
      Array.isArray(value) ||
      !Object.values(value).every((v) => v === null || typeof v === "string" || typeof v === "number")
    ) {
      throw new BackupArchiveError(`${name} line ${lineNumber} is not a row`);
    }
    return value as Record<string, unknown>;
  };
  stream.setEncoding("utf8");
  for await (const chunk of stream) {
    pending += chunk as string;
    let newline;
    while ((newline = pending.indexOf("\n")) !== -1) {
      const line = pending.slice(0, newline);
      pending = pending.slice(newline + 1);
      if (line.trim()) yield parse(line);
    }
    if (pending.length > MAX_LINE_BYTES) throw new BackupArchiveError(`${name} has an implausibly long line`);
  }
  if (pending.trim()) yield parse(pending);
}
