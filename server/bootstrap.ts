import { loadSignInKeys } from "~/auth/keys.server";
import { migrateToLatest, openDatabase } from "~/db/database.server";
import type { Env } from "~/env.server";
import { createImageWorker, type ImageWorkerEntry } from "~/images/image-worker.server";
import type { Clock } from "~/lib/clock";
import type { Logger } from "~/lib/logger.server";
import { makeDataDirPrivate } from "~/lib/private-data-dir.server";
import type { MailSetup } from "~/notifications/mailer.server";
import { createServices, type AppServices } from "~/services.server";
import { openStorage, storageConfigFromEnv } from "~/storage/storage-config.server";

/**
 * Opens the data directory (database, migrations, storage) and builds the
 * services. Shared by the server, the npm scripts and the tests. First of
 * all, it makes the data directory private (umask 077, 0700/0600).
 */
export async function openServices(
  env: Env,
  logger: Logger,
  options: {
    onPublicContentChanged?: () => void;
    clock?: Clock;
    mail?: MailSetup | null;
    /** Where the image worker's code is; without it, `services.images` cannot start (scripts do not need it). */
    imageWorker?: ImageWorkerEntry;
  } = {},
): Promise<AppServices> {
  const tightened = makeDataDirPrivate(env.DATA_DIR);
  if (tightened > 0) logger.warn({ dataDir: env.DATA_DIR, files: tightened }, "made files in DATA_DIR private to this user (0600/0700)");
  const db = openDatabase(env.DATA_DIR);
  await migrateToLatest(db);
  const storageConfig = storageConfigFromEnv(env);
  const storage = openStorage(storageConfig);
  // The worker opens its own storage from the same configuration.
  const images = createImageWorker({ entry: options.imageWorker, storage: storageConfig, logger });
  return createServices({
    env,
    db,
    logger,
    storage,
    images,
    keys: loadSignInKeys(env),
    clock: options.clock,
    mail: options.mail,
    onPublicContentChanged: options.onPublicContentChanged,
  });
}
