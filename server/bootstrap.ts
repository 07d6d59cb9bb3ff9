import path from "node:path";
import { loadSignInKeys } from "~/auth/keys.server";
import { migrateToLatest, openDatabase } from "~/db/database.server";
import type { Env } from "~/env.server";
import type { Clock } from "~/lib/clock";
import type { Logger } from "~/lib/logger.server";
import { makeDataDirPrivate } from "~/lib/private-data-dir.server";
import { loadOrCreateSecret } from "~/lib/secrets.server";
import type { MailSetup } from "~/notifications/mailer.server";
import { createServices, type AppServices } from "~/services.server";
import { createLocalStorage } from "~/storage/storage.server";

/**
 * Opens the data directory (database, migrations, storage) and builds the
 * services. Shared by the server, the npm scripts and the tests. First of
 * all, it makes the data directory private (umask 077, 0700/0600).
 */
export async function openServices(
  env: Env,
  logger: Logger,
  options: { onPublicContentChanged?: () => void; clock?: Clock; mail?: MailSetup | null } = {},
): Promise<AppServices> {
  const tightened = makeDataDirPrivate(env.DATA_DIR);
  if (tightened > 0) logger.warn({ dataDir: env.DATA_DIR, files: tightened }, "made files in DATA_DIR private to this user (0600/0700)");
  const db = openDatabase(env.DATA_DIR);
  await migrateToLatest(db);
  const storage = createLocalStorage({
    rootDir: path.join(env.DATA_DIR, "uploads"),
    signingSecret: loadOrCreateSecret(env.DATA_DIR, "upload-signing", env.UPLOAD_SIGNING_SECRET),
  });
  return createServices({
    env,
    db,
    logger,
    storage,
    keys: loadSignInKeys(env),
    clock: options.clock,
    mail: options.mail,
    onPublicContentChanged: options.onPublicContentChanged,
  });
}
