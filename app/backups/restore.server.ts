import type { Kysely } from "kysely";
import { knownMigrations, migrateTo, migrateToLatest, type Database } from "~/db/database.server";
import type { DatabaseSchema } from "~/db/schema";
import { listTables } from "~/db/snapshot.server";
import { recordRestoreRun } from "~/activity/activity-log.server";
import { forgetInitialPassword, initialPasswordIsStale } from "~/auth/initial-admin.server";
import { createSignal } from "~/lib/signal";
import type { MailSetup } from "~/notifications/mailer.server";
import { queueOwnerAlert } from "~/notifications/outbox-queue.server";
import type { SecurityNoticePayload } from "~/notifications/security-notices.server";
import { systemClock, type Clock } from "~/lib/clock";
import { DataDirLockedError, lockDataDir } from "~/lib/data-dir-lock.server";
import { BackupArchiveError, checkManifest, type BackupManifest } from "./backup-format.server";
import { readArchive, type ArchiveEntry } from "./backup-archive.server";
import { statfsProbe, type FreeSpaceProbe } from "./backup-files.server";
import { formatBytes } from "./backup-status";
import { EXCLUDED_TABLES, MAX_OBJECT_BYTES } from "./backup-tables.server";
import { inspectArchive, readTableLines } from "./restore-inspect.server";
import type { ObjectStorage } from "~/storage/storage.server";
import { prepareLocalRestoreTarget, removeAbandonedStaging, type RestoreTarget } from "./restore-target.server";
import { carryTwoStepThroughRestore, type TwoStepAfterRestore } from "./two-step-carry.server";

/** A restore that did not happen; the message says why. Nothing was changed. */
export class RestoreRefusedError extends Error {
  override name = "RestoreRefusedError";
}

export type RestoreResult = {
  manifest: BackupManifest;
  rows: Record<string, number>;
  objects: number;
  /** The restored administrator's username (a backup holds exactly one). */
  administrator: string;
  /** Migrations newer than the backup, run after loading it. */
  migrationsApplied: string[];
  /** Where the data the restore replaced now lives; null when there was none. */
  previousKeptAt: string | null;
  /**
   * Two-step verification: "kept" (re-sealed with this installation's key when the backup
   * carried another's), "lost" (on in the backup, unreadable here: TWO_STEP_LOST_IN_RESTORE), or "none".
   */
  twoStep: TwoStepAfterRestore;
  /** The first-start password file was removed: its password does not sign in to the restored administrator. */
  removedStalePasswordFile: boolean;
};

export type RestoreOptions = {
  dataDir: string;
  file: string;
  clock?: Clock;
  freeSpace?: FreeSpaceProbe;
  /** Where the restore goes: SQLite + local disk in dataDir by default; restore-postgres.server.ts for PostgreSQL. */
  destination?: RestoreDestination;
  /** The site's e-mail settings: the owner is e-mailed (through the restored outbox) when two-step is lost. */
  mail?: MailSetup | null;
};

/** One kind of place a restore can go. */
export type RestoreDestination = {
  /** Refuses (RestoreRefusedError) while a server or backup uses the data; held until released. */
  lock(): Promise<{ release(): void | Promise<void> }>;
  /** True: the restored database is built on DATA_DIR's disk first, so its free space is checked. */
  buildsOnDisk: boolean;
  /** `at`: the restore's time, for the names of what it keeps. */
  prepare(at: Date): Promise<RestoreTarget>;
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
    async prepare(at) {
      await removeAbandonedStaging(dataDir);
      return prepareLocalRestoreTarget(dataDir, at, liveStorage);
    },
  };
}

const INSERT_BATCH = 200;

const fullStop = (message: string) => (/[.!?]$/.test(message) ? message : `${message}.`);

/** The archive's bytes differ from what the first pass checked: it changed while being restored. */
class ArchiveChangedError extends BackupArchiveError {
  override name = "ArchiveChangedError";
}

/**
 * Restores a backup (decisions 0028, 0042, 0046): refuses while the data is in use; reads the whole archive once
 * before touching anything (inspectArchive); builds and migrates the database (SQLite beside the live data, swapped
 * in; PostgreSQL in one transaction, after a pre-restore backup); only then writes the named objects. Sessions,
 * sign-in failures and rate-limit counters are never in a backup.
 */
export async function restoreBackup(options: RestoreOptions): Promise<RestoreResult> {
  const clock = options.clock ?? systemClock;
  const destination = options.destination ?? localRestoreDestination(options.dataDir);
  const lock = await destination.lock();
  try {
    // 1. Check everything before changing anything.
    const { manifest, namedObjects, administrator, carriedTwoStepKey } = await refuseUnlessValid(() =>
      inspectArchive(options.file),
    );
    checkSchema(manifest);
    if (destination.buildsOnDisk) await checkRoom(options, manifest);

    // 2. Build.
    const target = await destination.prepare(clock.now());
    let built: Omit<RestoreResult, "manifest" | "administrator" | "previousKeptAt" | "removedStalePasswordFile"> & {
      stalePasswordFile: boolean;
    };
    try {
      built = await target.fill(async (db, migrate, installation) => {
        await migrateTo(db, manifest.schema.migration, migrate);
        const rowsLoaded = await loadArchive(
          options.file,
          manifest,
          db,
          target.objectsLast ? null : { storage: target.storage, namedObjects },
        );
        const applied = await migrateToLatest(db, migrate);
        // Two-step stays on: sealed again with this installation's key (decision 0058).
        const twoStep = await carryTwoStepThroughRestore(db, {
          carried: carriedTwoStepKey,
          installationKey: await installation.twoStepKey(),
        });
        if (twoStep === "lost") await queueTwoStepLostNotice(db, options.mail ?? null, clock);
        const stalePasswordFile = await initialPasswordIsStale(db, options.dataDir);
        // The security log notes the restore in the restored data itself.
        await recordRestoreRun({ db, clock }, options.file);
        // Live storage only now, every row in: PostgreSQL commits after this, SQLite swaps in after it.
        const objects = target.objectsLast
          ? await loadObjects(options.file, target.storage, namedObjects)
          : rowsLoaded.objects;
        return { rows: rowsLoaded.rows, objects, migrationsApplied: applied, twoStep, stalePasswordFile };
      });
    } catch (error) {
      await target.discard();
      if (error instanceof ArchiveChangedError) {
        const unchanged = target.objectsLast ? "The database was not changed." : "Nothing was changed.";
        throw new RestoreRefusedError(
          `The backup file changed while it was being restored: ${fullStop(error.message)} ${unchanged}`,
        );
      }
      if (error instanceof BackupArchiveError)
        throw new RestoreRefusedError(`${fullStop(error.message)} Nothing was changed.`);
      throw error;
    }

    // 3. Swap in.
    const { previousKeptAt } = await target.swapIn();
    const { stalePasswordFile, ...result } = built;
    // The first start's password belongs to the administrator the restore replaced.
    const removedStalePasswordFile = stalePasswordFile && (await forgetInitialPassword(options.dataDir));
    return { manifest, administrator, previousKeptAt, removedStalePasswordFile, ...result };
  } finally {
    await lock.release();
  }
}

async function refuseUnlessValid<T>(check: () => Promise<T>): Promise<T> {
  try {
    return await check();
  } catch (error) {
    if (error instanceof BackupArchiveError)
      throw new RestoreRefusedError(`${fullStop(error.message)} Nothing was changed.`);
    throw error;
  }
}

/** Reads the whole archive, checking every entry against the manifest (its integrity only). Throws RestoreRefusedError. */
export async function verifyArchive(file: string): Promise<BackupManifest> {
  return refuseUnlessValid(async () => {
    const read = await readArchive(file, async (entry) => {
      for await (const _chunk of entry.stream) {
        // Hashed by readArchive; nothing else to do on this pass.
      }
    });
    return checkManifest(read);
  });
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
  throw new RestoreRefusedError(
    `The backup's schema (${migration}) is unknown to this version of Cornerstone. Nothing was changed.`,
  );
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

/** The later passes must read the bytes the first pass checked. */
function checkUnchanged(read: Parameters<typeof checkManifest>[0]): void {
  try {
    checkManifest(read);
  } catch (error) {
    if (error instanceof BackupArchiveError) throw new ArchiveChangedError(error.message);
    throw error;
  }
}

/** Writes an object the first pass found named by a row; anything else means the file changed since. */
async function writeNamedObject(
  storage: ObjectStorage,
  namedObjects: ReadonlyMap<string, number>,
  entry: ArchiveEntry,
): Promise<void> {
  const key = (entry.kind as { key: string }).key;
  if (!namedObjects.has(key) || entry.bytes > namedObjects.get(key)!)
    throw new ArchiveChangedError(`${entry.name} was not in the archive checked first`);
  await storage.write(key, entry.stream);
}

/** The named objects only, into live storage, after every row is in (a bucket, or PostgreSQL's storage). */
async function loadObjects(
  file: string,
  storage: ObjectStorage,
  namedObjects: ReadonlyMap<string, number>,
): Promise<number> {
  let objects = 0;
  const read = await readArchive(
    file,
    async (entry) => {
      if (entry.kind.kind === "object") {
        await writeNamedObject(storage, namedObjects, entry);
        objects += 1;
        return;
      }
      for await (const _chunk of entry.stream) {
        // The rows are in already.
      }
    },
    { maxObjectBytes: MAX_OBJECT_BYTES },
  );
  checkUnchanged(read);
  return objects;
}

/** Rows through Kysely, and with `objects` (a staging folder) the named objects too; checked against the manifest again. */
async function loadArchive(
  file: string,
  manifest: BackupManifest,
  targetDb: Kysely<DatabaseSchema>,
  objects: { storage: ObjectStorage; namedObjects: ReadonlyMap<string, number> } | null,
): Promise<{ rows: Record<string, number>; objects: number }> {
  const present = new Set(await listTables(targetDb as Database));
  for (const table of Object.keys(manifest.tables)) {
    if (!present.has(table) && !(table in EXCLUDED_TABLES)) {
      throw new BackupArchiveError(
        `The backup holds table ${table}, which its schema (${manifest.schema.migration}) does not define`,
      );
    }
  }
  const db = targetDb as unknown as Kysely<Record<string, Record<string, unknown>>>;
  const rows: Record<string, number> = {};
  let objectCount = 0;
  const read = await readArchive(
    file,
    async (entry) => {
      if (entry.kind.kind === "object") {
        if (objects) {
          await writeNamedObject(objects.storage, objects.namedObjects, entry);
          objectCount += 1;
        } else {
          for await (const _chunk of entry.stream) {
            // Written after the rows, into live storage.
          }
        }
        return;
      }
      if (entry.kind.kind !== "table") {
        // The carried key was read by the first pass.
        for await (const _chunk of entry.stream) {
          // Skipped.
        }
        return;
      }
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
      for await (const { row } of readTableLines(entry.stream, table)) {
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
    },
    { maxObjectBytes: MAX_OBJECT_BYTES },
  );
  checkUnchanged(read);
  return { rows, objects: objectCount };
}

/** Two-step was lost: the owner hears of it by e-mail, through the restored outbox (sent once the server starts). */
async function queueTwoStepLostNotice(db: Kysely<DatabaseSchema>, mail: MailSetup | null, clock: Clock): Promise<void> {
  const payload: SecurityNoticePayload = {
    kind: "two-step-lost-in-restore",
    at: clock.now().toISOString(),
    userAgent: "",
  };
  await queueOwnerAlert("security", payload, { db, mail, clock, outboxWake: createSignal() });
}
