import { openChangeFeed } from "~/db/change-feed.server";
import {
  DatabaseUnreachableError,
  assertDatabaseReachable,
  databaseTargetFor,
  migrateToLatest,
  openDatabaseAt,
} from "~/db/database.server";
import type { Env } from "~/env.server";
import type { Logger } from "~/lib/logger.server";
import { loadOrCreateDatabaseSecret, loadOrCreateSecret } from "~/lib/secrets.server";
import { createServices, type AppServices } from "~/services.server";
import { openObjectStorage, storageConfigFor } from "~/storage/open-storage.server";
import { StorageCheckError } from "~/storage/storage.server";

/** A start-up check failed: the message says what to fix (no stack trace needed). */
export function isStartupCheckError(error: unknown): error is Error {
  return error instanceof DatabaseUnreachableError || error instanceof StorageCheckError;
}

/**
 * Opens the database (SQLite in DATA_DIR, or PostgreSQL with DATABASE_URL),
 * applies migrations, opens storage (DATA_DIR/uploads, or the S3_BUCKET) and
 * builds the services. Both back ends are checked first: an unreachable
 * database or a bucket that cannot be written and read rejects with a
 * start-up check error. Shared by the server, the npm scripts and the tests.
 */
export async function openServices(
  env: Env,
  logger: Logger,
  options: {
    /** Called after every local write that changes public pages, and when another instance announces one. */
    onPublicContentChanged?: () => void;
  } = {},
): Promise<AppServices> {
  const target = databaseTargetFor(env);
  const db = openDatabaseAt(target, {
    onIdleClientError: (error) => logger.warn({ err: error }, "an idle database connection failed"),
  });
  try {
    await assertDatabaseReachable(db, target);
    await migrateToLatest(db);
    // With PostgreSQL there may be several instances: the secret is shared through the database.
    const signingSecret =
      target.kind === "postgres"
        ? await loadOrCreateDatabaseSecret(db, "upload-signing", env.UPLOAD_SIGNING_SECRET)
        : loadOrCreateSecret(env.DATA_DIR, "upload-signing", env.UPLOAD_SIGNING_SECRET);
    const storage = await openObjectStorage(storageConfigFor(env, signingSecret));
    try {
      await storage.check({ siteOrigin: new URL(env.SITE_URL).origin });
    } catch (error) {
      await storage.close();
      throw error;
    }
    const changed = options.onPublicContentChanged ?? (() => {});
    const feed = await openChangeFeed({ target, db, logger, onRemoteChange: changed });
    return createServices({
      env,
      db,
      logger,
      storage,
      onPublicContentChanged: () => {
        changed();
        feed.publish();
      },
      close: async () => {
        await feed.close();
        await storage.close();
        await db.destroy();
      },
    });
  } catch (error) {
    await db.destroy().catch(() => {});
    throw error;
  }
}
