import { randomBytes } from "node:crypto";
import { existsSync } from "node:fs";
import fs from "node:fs/promises";
import path from "node:path";
import type { Kysely } from "kysely";
import { TWO_STEP_SECRET_NAME, twoStepKeyFrom } from "~/auth/keys.server";
import { openDatabase, type MigrateOptions } from "~/db/database.server";
import type { DatabaseSchema } from "~/db/schema";
import { loadOrCreateSecret } from "~/db/secrets.server";
import { createLocalStorage } from "~/storage/local-storage.server";
import type { ObjectStorage } from "~/storage/storage.server";
import { backupsDirOf } from "./backup-files.server";
import { loadBackupNaming, timestampForFileName } from "./backup-names.server";

/** Where a restore writes: SQLite builds beside the live data and swaps in; PostgreSQL: restore-postgres.server.ts. */
export type RestoreTarget = {
  storage: ObjectStorage;
  /** True: the storage is live, so the objects go in only once every row is loaded (decision 0046). */
  objectsLast: boolean;
  /**
   * Runs build on the empty database to fill (it migrates with `migrate`, loads, migrates on); a failure leaves the
   * live database as it was. `installation`: the keys the restored data is sealed with.
   */
  fill<T>(
    build: (db: Kysely<DatabaseSchema>, migrate: MigrateOptions, installation: InstallationKeys) => Promise<T>,
  ): Promise<T>;
  /** Puts the restored data in place and keeps the previous data; returns where it was kept (null: there was none). */
  swapIn(): Promise<{ previousKeptAt: string | null }>;
  /** Throws the half-built data away; the live data was never touched. */
  discard(): Promise<void>;
};

/** The keys of the installation a restore writes into (never from the backup). */
export type InstallationKeys = {
  /** Its two-step key (app/auth/keys.server.ts), created as the server would at its first start when it has none yet. */
  twoStepKey(): Promise<Buffer>;
};

const STAGING_PREFIX = ".restore-";
/** The live files a restore replaces. secrets/ and backups/ stay as they are. */
const DATABASE_FILES = ["site.db", "site.db-wal", "site.db-shm", "site.db-journal"];
const UPLOADS_DIR = "uploads";

/** Leftovers of a restore that crashed before its swap (only call while holding the exclusive lock). */
export async function removeAbandonedStaging(dataDir: string): Promise<void> {
  for (const name of await fs.readdir(dataDir).catch(() => [])) {
    if (name.startsWith(STAGING_PREFIX)) await fs.rm(path.join(dataDir, name), { recursive: true, force: true });
  }
}

/** `liveStorage`: SQLite with a bucket; objects go straight in once the rows are loaded, only the database swaps. */
export async function prepareLocalRestoreTarget(
  dataDir: string,
  at: Date,
  liveStorage?: ObjectStorage,
): Promise<RestoreTarget> {
  const staging = path.join(dataDir, `${STAGING_PREFIX}${timestampForFileName(at)}-${randomBytes(4).toString("hex")}`);
  await fs.mkdir(staging, { recursive: true, mode: 0o700 });
  const db = openDatabase(staging);
  // Never signs anything: it only receives the restored objects.
  const storage =
    liveStorage ??
    createLocalStorage({ rootDir: path.join(staging, UPLOADS_DIR), signingSecret: randomBytes(32).toString("hex") });
  const swapped = liveStorage ? DATABASE_FILES : [...DATABASE_FILES, UPLOADS_DIR];
  let closed = false;
  const close = async () => {
    if (closed) return;
    closed = true;
    await db.destroy();
  };

  return {
    storage,
    objectsLast: Boolean(liveStorage),
    // DATA_DIR/secrets/ is this installation's and stays as it is (a missing key is made now).
    fill: (build) =>
      build(db, {}, { twoStepKey: async () => twoStepKeyFrom(loadOrCreateSecret(dataDir, TWO_STEP_SECRET_NAME)) }),
    async discard() {
      await close().catch(() => {});
      await fs.rm(staging, { recursive: true, force: true });
    },
    async swapIn() {
      await close();
      // The folder that keeps the replaced data carries this installation's tag, like every backup it names.
      const naming = await loadBackupNaming({ dataDir });
      const keepDir = await uniqueDir(
        path.join(backupsDirOf(dataDir), naming.make("pre-restore", at, { folder: true })),
      );
      const live = swapped.filter((name) => existsSync(path.join(dataDir, name)));
      const movedOut: string[] = [];
      const movedIn: string[] = [];
      try {
        for (const name of live) {
          await fs.rename(path.join(dataDir, name), path.join(keepDir, name));
          movedOut.push(name);
        }
        if (!liveStorage && !existsSync(path.join(staging, UPLOADS_DIR)))
          await fs.mkdir(path.join(staging, UPLOADS_DIR), { mode: 0o700 });
        for (const name of swapped) {
          if (!existsSync(path.join(staging, name))) continue;
          await fs.rename(path.join(staging, name), path.join(dataDir, name));
          movedIn.push(name);
        }
      } catch (error) {
        // Put the live data back as it was.
        for (const name of movedIn) await fs.rename(path.join(dataDir, name), path.join(staging, name)).catch(() => {});
        for (const name of movedOut)
          await fs.rename(path.join(keepDir, name), path.join(dataDir, name)).catch(() => {});
        throw error;
      }
      await fs.rm(staging, { recursive: true, force: true });
      if (movedOut.length === 0) {
        await fs.rm(keepDir, { recursive: true, force: true });
        return { previousKeptAt: null };
      }
      return { previousKeptAt: keepDir };
    },
  };
}

async function uniqueDir(base: string): Promise<string> {
  await fs.mkdir(path.dirname(base), { recursive: true, mode: 0o700 });
  for (let attempt = 0; ; attempt++) {
    const candidate = attempt === 0 ? base : `${base}-${attempt}`;
    try {
      await fs.mkdir(candidate, { mode: 0o700 });
      return candidate;
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code !== "EEXIST") throw error;
    }
  }
}
