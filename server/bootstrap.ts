import { migrateToLatest, openDatabase } from "~/db/database.server";
import type { Env } from "~/env.server";
import { createImageWorker, type ImageWorkerEntry } from "~/images/image-worker.server";
import type { Logger } from "~/lib/logger.server";
import { createServices, type AppServices } from "~/services.server";
import { openStorage, storageConfigFromEnv } from "~/storage/storage-config.server";

/**
 * Opens the data directory (database, migrations, storage) and builds the
 * services. Shared by the server, the npm scripts and the tests.
 */
export async function openServices(
  env: Env,
  logger: Logger,
  options: {
    onPublicContentChanged?: () => void;
    /** Where the image worker's code is; without it, `services.images` cannot start (scripts do not need it). */
    imageWorker?: ImageWorkerEntry;
  } = {},
): Promise<AppServices> {
  const db = openDatabase(env.DATA_DIR);
  await migrateToLatest(db);
  const storageConfig = storageConfigFromEnv(env);
  const storage = openStorage(storageConfig);
  // The worker opens its own storage from the same configuration.
  const images = createImageWorker({ entry: options.imageWorker, storage: storageConfig, logger });
  return createServices({ env, db, logger, storage, images, onPublicContentChanged: options.onPublicContentChanged });
}
