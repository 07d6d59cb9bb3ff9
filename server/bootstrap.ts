import { AdministratorRequiredError } from "~/auth/initial-admin.server";
import { loadSignInKeys } from "~/auth/keys.server";
import { assertSingleAdministrator, SeveralAdministratorsError } from "~/auth/single-administrator.server";
import { openChangeFeed } from "~/db/change-feed.server";
import {
  DatabaseUnreachableError,
  assertDatabaseReachable,
  type Database,
  databaseTargetFor,
  migrateToLatest,
  openDatabaseAt,
} from "~/db/database.server";
import type { Env } from "~/env.server";
import { createImageWorker, type ImageWorkerEntry } from "~/images/image-worker.server";
import type { Clock } from "~/lib/clock";
import type { Logger } from "~/lib/logger.server";
import { makeDataDirPrivate } from "~/lib/private-data-dir.server";
import { loadOrCreateDatabaseSecret, loadOrCreateSecret } from "~/db/secrets.server";
import type { MailSetup } from "~/notifications/mailer.server";
import { createServices, type AppServices } from "~/services.server";
import type { BucketPrivacy } from "~/storage/bucket-privacy";
import { checkBucketPrivacy, mediaAddresses } from "~/storage/bucket-privacy.server";
import { openObjectStorage, storageConfigFor } from "~/storage/open-storage.server";
import { requiredCorsRule } from "~/storage/s3-cors-check.server";
import { StorageCheckError } from "~/storage/storage-errors.server";
import type { PartUploadSupport } from "~/storage/storage.server";

/** A start-up check failed: the message says what to fix (no stack trace needed). */
export function isStartupCheckError(error: unknown): error is Error {
  return (
    error instanceof DatabaseUnreachableError ||
    error instanceof StorageCheckError ||
    error instanceof AdministratorRequiredError ||
    error instanceof SeveralAdministratorsError
  );
}

/**
 * Makes DATA_DIR private, opens and migrates the database and storage, checking both (a failure is a start-up
 * check error; a bucket serving private objects is logged and shown on the dashboard), and builds the services.
 */
export async function openServices(
  env: Env,
  logger: Logger,
  options: {
    /** Called after every local write that changes public pages, and when another instance announces one. */
    onPublicContentChanged?: () => void;
    clock?: Clock;
    mail?: MailSetup | null;
    /** Where the image worker's code is; without it, `services.images` cannot start (scripts do not need it). */
    imageWorker?: ImageWorkerEntry;
    /** Before migrations: `admin:password --keep` removes extra users, which migration 0008 would refuse. */
    beforeMigrations?: (db: Database) => Promise<void>;
    /** Check the bucket's CORS rule for SITE_URL: only the server takes uploads (decision 0050). */
    checkBrowserUploads?: boolean;
  } = {},
): Promise<AppServices> {
  const tightened = makeDataDirPrivate(env.DATA_DIR);
  if (tightened > 0)
    logger.warn({ dataDir: env.DATA_DIR, files: tightened }, "made files in DATA_DIR private to this user (0600/0700)");
  const target = databaseTargetFor(env);
  const db = openDatabaseAt(target, {
    onIdleClientError: (error) => logger.warn({ err: error }, "an idle database connection failed"),
  });
  try {
    await assertDatabaseReachable(db, target);
    await options.beforeMigrations?.(db);
    // A database from before migration 0008 that holds two users is refused here, naming them and the fix
    // (SeveralAdministratorsError); the migration would refuse it too, but with a plain error.
    await assertSingleAdministrator(db);
    await migrateToLatest(db);
    // With PostgreSQL there may be several instances: the secret is shared through the database.
    const signingSecret =
      target.kind === "postgres"
        ? await loadOrCreateDatabaseSecret(db, "upload-signing", env.UPLOAD_SIGNING_SECRET)
        : loadOrCreateSecret(env.DATA_DIR, "upload-signing", env.UPLOAD_SIGNING_SECRET);
    const storageConfig = storageConfigFor(env, signingSecret);
    const storage = await openObjectStorage(storageConfig);
    let bucketPrivacy: BucketPrivacy;
    let partUploads: PartUploadSupport | undefined;
    try {
      const siteOrigin = options.checkBrowserUploads === false ? null : new URL(env.SITE_URL).origin;
      await storage.check({ siteOrigin, siteUrlGiven: env.SITE_URL_GIVEN });
      // Resumable uploads need more of a bucket's CORS rule (the ETag exposed); without it, photos go up in one piece.
      if (siteOrigin !== null) {
        partUploads = await storage.parts.check({ siteOrigin });
        if (!partUploads.available)
          logger.warn(
            { rule: requiredCorsRule(siteOrigin) },
            `photos cannot resume after a dropped connection: ${partUploads.reason}`,
          );
      }
      // Every bucket the site writes to (a later one joins this list); the dashboard shows what it found.
      bucketPrivacy = await checkBucketPrivacy({
        targets: [{ storage, alsoServedAt: mediaAddresses(env.MEDIA_BASE_URL) }],
        enabled: env.S3_PRIVACY_CHECK === "on",
        logger,
      });
    } catch (error) {
      await storage.close();
      throw error;
    }
    const changed = options.onPublicContentChanged ?? (() => {});
    const feed = await openChangeFeed({ target, db, logger, onRemoteChange: changed });
    // The worker opens its own storage from the same configuration.
    const images = createImageWorker({ entry: options.imageWorker, storage: storageConfig, logger });
    return createServices({
      env,
      db,
      logger,
      storage,
      bucketPrivacy,
      partUploads,
      images,
      keys: await loadSignInKeys(env, target.kind === "postgres" ? db : null),
      clock: options.clock,
      mail: options.mail,
      onPublicContentChanged: () => {
        changed();
        feed.publish();
      },
      close: async () => {
        await images.stop();
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
