import { randomBytes } from "node:crypto";
import fs from "node:fs/promises";
import path from "node:path";
import { TWO_STEP_SECRET_NAME, twoStepKeyFrom } from "~/auth/keys.server";
import { DatabaseLockedError, lockDatabase } from "~/db/database-lock.server";
import { describeDatabaseUrl, openPostgresDatabase, type Database } from "~/db/database.server";
import { hasMigrations, replacePostgresDatabase } from "~/db/restore-database.server";
import { listTables } from "~/db/snapshot.server";
import type { SecretsTable } from "~/db/schema";
import type { Env } from "~/env.server";
import { systemClock, type Clock } from "~/lib/clock";
import type { Logger } from "~/lib/logger.server";
import { openObjectStorage, storageConfigFor } from "~/storage/open-storage.server";
import type { ObjectStorage } from "~/storage/storage.server";
import { BUCKET_BACKUPS_PREFIX } from "~/storage/storage-keys.server";
import { backupsDirOf } from "./backup-files.server";
import { loadBackupNaming } from "./backup-names.server";
import { BACKUP_TABLE_NAMES, EXCLUDED_TABLES } from "./backup-tables.server";
import { createBackup } from "./backup.server";
import { RestoreRefusedError, type RestoreDestination } from "./restore.server";
import type { RestoreTarget } from "./restore-target.server";

/**
 * A restore into PostgreSQL and the configured storage (decision 0042): refuses while any server holds the instance
 * lock; writes a pre-restore backup first (to the bucket with S3, else DATA_DIR/backups); replaces every table in one
 * transaction, writing the named objects just before it commits. The `secrets` table is carried over (decision 0058).
 */
export function postgresRestoreDestination(setup: { env: Env; logger: Logger; clock?: Clock }): RestoreDestination {
  const { env, logger } = setup;
  const clock = setup.clock ?? systemClock;
  const url = env.DATABASE_URL;
  if (!url) throw new Error("postgresRestoreDestination needs DATABASE_URL");
  return {
    buildsOnDisk: false,
    async lock() {
      try {
        // Logged: should the lock's connection drop mid-restore, an instance could start meanwhile.
        return await lockDatabase(url, "exclusive", { logger });
      } catch (error) {
        if (error instanceof DatabaseLockedError) {
          throw new RestoreRefusedError(
            `${error.message}. Stop every instance first, then run the restore again. Nothing was changed.`,
          );
        }
        throw error;
      }
    },
    async prepare(at) {
      const db = openPostgresDatabase(url, { maxConnections: 4 });
      let storage: ObjectStorage | null = null;
      const close = async () => {
        await storage?.close().catch(() => {});
        await db.destroy().catch(() => {});
      };
      try {
        // Never signs anything: it only receives the restored objects.
        storage = await openObjectStorage(storageConfigFor(env, randomBytes(32).toString("hex")));
        const previousKeptAt = (await hasMigrations(db))
          ? await preRestoreBackup({ db, storage, logger, clock }, env, at)
          : null;
        return postgresTarget(db, storage, previousKeptAt, close);
      } catch (error) {
        await close();
        throw error;
      }
    },
  };
}

async function preRestoreBackup(
  services: { db: Database; storage: ObjectStorage; logger: Logger; clock: Clock },
  env: Env,
  at: Date,
): Promise<string> {
  const dir = backupsDirOf(env.DATA_DIR);
  // Named with the key in the live secrets table, which the restore carries over: pruning can verify it later.
  const naming = await loadBackupNaming({ dataDir: env.DATA_DIR, sharedDb: services.db });
  let result;
  try {
    result = await createBackup(services, {
      purpose: "manual",
      workDir: dir,
      destination: { kind: "file", path: path.join(dir, naming.make("pre-restore", at)) },
    });
  } catch (error) {
    throw new RestoreRefusedError(
      `Could not back up the live data before restoring: ${(error as Error).message}. Nothing was changed.`,
    );
  }
  if (result.status !== "succeeded" || !result.path) {
    throw new RestoreRefusedError(
      `Could not back up the live data before restoring: ${result.status === "skipped" ? result.reason : "no file"} Nothing was changed.`,
    );
  }
  if (!env.S3_BUCKET) return result.path;
  const key = `${BUCKET_BACKUPS_PREFIX}${path.basename(result.path)}`;
  try {
    await services.storage.writeFile(key, result.path);
  } catch (error) {
    throw new RestoreRefusedError(
      `Could not keep the live data's backup in the bucket before restoring: ${(error as Error).message}. Nothing was changed.`,
    );
  } finally {
    // The app may have no lasting disk: the copy that counts is the bucket's.
    await fs.rm(result.path, { force: true });
  }
  return `s3://${env.S3_BUCKET}/${key}`;
}

function postgresTarget(
  db: Database,
  storage: ObjectStorage,
  previousKeptAt: string | null,
  close: () => Promise<void>,
): RestoreTarget {
  // Every table this code knows of: all are rebuilt (the excluded ones come back empty, as on SQLite).
  const tables = [...BACKUP_TABLE_NAMES, ...Object.keys(EXCLUDED_TABLES)];
  return {
    storage,
    objectsLast: true,
    async fill(build) {
      const secrets = (await listTables(db)).includes("secrets")
        ? await db.selectFrom("secrets").selectAll().execute()
        : ([] as SecretsTable[]);
      const installation = {
        // The live secrets table's key; an empty database gets one now, written with the rest.
        async twoStepKey() {
          let secret = secrets.find((row) => row.name === TWO_STEP_SECRET_NAME);
          if (!secret) {
            secret = {
              name: TWO_STEP_SECRET_NAME,
              value: randomBytes(32).toString("hex"),
              created_at: new Date().toISOString(),
            };
            secrets.push(secret);
          }
          return twoStepKeyFrom(secret.value);
        },
      };
      return replacePostgresDatabase(db, tables, async (connection) => {
        const result = await build(connection, { insideTransaction: true }, installation);
        if (secrets.length) {
          await connection
            .insertInto("secrets")
            .values(secrets)
            .onConflict((conflict) => conflict.column("name").doNothing())
            .execute();
        }
        return result;
      });
    },
    async swapIn() {
      await close();
      return { previousKeptAt };
    },
    discard: close,
  };
}

/** For messages: where a PostgreSQL restore went. */
export function describePostgresTarget(env: Env): string {
  const storage = env.S3_BUCKET ? `the bucket ${env.S3_BUCKET}` : `${path.join(env.DATA_DIR, "uploads")}`;
  return `the PostgreSQL database ${describeDatabaseUrl(env.DATABASE_URL ?? "")} and ${storage}`;
}
