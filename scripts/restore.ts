// npm run restore -- FILE | FOLDER | --from-offsite [SNAPSHOT] | --list  [--passphrase-file PATH] [--allow-unencrypted] [--env-file /etc/cornerstone/cornerstone.env]
// FILE: a backup (.tar.gz[.age]); FOLDER: an off-site copy restored by plain `restic restore` (decision 0070).
// --from-offsite: the newest off-site copy (a restic snapshot; BACKUP_S3_* or BACKUP_OFFSITE_REPOSITORY), or
// the one named; it reads only the repository, so nothing kept on the lost server is needed. --list shows
// them. The passphrase comes from a hidden prompt, the first line of --passphrase-file, or BACKUP_PASSPHRASE.
// With a passphrase set or given, an unencrypted backup file is refused unless --allow-unencrypted
// (restore-rules.server.ts). Anything that does not check out changes nothing.
// Restores into DATA_DIR, or with DATABASE_URL set into that PostgreSQL database and
// the configured storage (S3_BUCKET or DATA_DIR/uploads). Stop the server(s) first; run it as
// the service's user (docs/DEPLOY.md shows the exact command). The data it replaces is kept
// under DATA_DIR/backups/pre-restore-YYYYMMDD-HHmmss/ (PostgreSQL: a pre-restore backup
// file, in the bucket under backups/ when S3_BUCKET is set).
import { randomBytes } from "node:crypto";
import { TWO_STEP_LOST_IN_RESTORE } from "~/notifications/two-step-lost";
import { backupsDirOf } from "~/backups/backup-files.server";
import { ResticError } from "~/backups/offsite-restic.server";
import { openRestoreSource } from "~/backups/restore-source.server";
import { describePostgresTarget, postgresRestoreDestination } from "~/backups/restore-postgres.server";
import { ALLOW_UNENCRYPTED } from "~/backups/restore-rules.server";
import { localRestoreDestination, RestoreRefusedError, restoreBackup } from "~/backups/restore.server";
import { parseEnv } from "~/env.server";
import { wrongUserProblem } from "~/lib/data-dir-lock.server";
import { createLogger } from "~/lib/logger.server";
import { mailSetupFromEnv } from "~/notifications/mailer.server";
import { openObjectStorage, storageConfigFor } from "~/storage/open-storage.server";
import { applyEnvFileArgument, EnvFileError } from "./lib/env-file";
import { listOffsiteCopies, withOffsiteCopy } from "./lib/offsite-commands";
import { PassphraseMissingError, passphraseSource } from "./lib/passphrase";

const USAGE =
  "Usage: npm run restore -- /path/to/cornerstone-YYYYMMDD-HHmmss.tar.gz.age   (or a folder restic restored)\n" +
  "   or: npm run restore -- --from-offsite [SNAPSHOT]   (the newest off-site copy, or the one named)\n" +
  "   or: npm run restore -- --list                      (the off-site copies, with their times)\n" +
  "       add --passphrase-file PATH for an encrypted backup (otherwise it asks),\n" +
  `       ${ALLOW_UNENCRYPTED} to restore an unencrypted backup when a passphrase is set,\n` +
  "       and --env-file /etc/cornerstone/cornerstone.env to read the service's settings";
/** Flags followed by a value (which is therefore not the backup file). */
const VALUE_FLAGS = new Set(["--passphrase-file", "--env-file"]);

function restoreArguments(args: string[]) {
  const positional: string[] = [];
  const values: Record<string, string> = {};
  for (let i = 0; i < args.length; i++) {
    const [flag, inline] = args[i]!.split(/=(.*)/s, 2) as [string, string | undefined];
    if (VALUE_FLAGS.has(flag)) values[flag] = inline ?? args[++i] ?? "";
    else if (!flag.startsWith("--")) positional.push(flag);
  }
  const fromOffsite = args.includes("--from-offsite");
  return {
    file: fromOffsite ? undefined : positional[0],
    offsiteName: fromOffsite ? positional[0] : undefined,
    fromOffsite,
    list: args.includes("--list"),
    passphraseFile: values["--passphrase-file"],
    allowUnencrypted: args.includes(ALLOW_UNENCRYPTED),
  };
}

// Everything the restore writes (the database, the image files, what it keeps) is the service's alone.
process.umask(0o077);

async function main() {
  // The service's settings, read as systemd reads them (decision 0050).
  const args = restoreArguments(applyEnvFileArgument(process.argv.slice(2)));
  if (!args.file && !args.fromOffsite && !args.list) {
    console.error(USAGE);
    process.exit(2);
  }
  const env = parseEnv();
  const wrongUser = wrongUserProblem(env.DATA_DIR);
  if (wrongUser) {
    console.error(wrongUser);
    process.exit(1);
  }
  const passphrase = passphraseSource({
    file: args.passphraseFile,
    fromEnv: env.BACKUP_PASSPHRASE,
    what: "This backup is encrypted",
  });
  if (args.list) return listOffsiteCopies(env, passphrase);
  if (args.fromOffsite)
    return withOffsiteCopy(env, args.offsiteName, passphrase, (folder, name) => restoreFrom(env, folder, name));
  const source = await openRestoreSource({
    file: args.file!,
    workDir: backupsDirOf(env.DATA_DIR),
    encryption: {
      passphraseExpected: Boolean(args.passphraseFile || env.BACKUP_PASSPHRASE),
      allowUnencrypted: args.allowUnencrypted,
    },
    passphrase,
  });
  try {
    await restoreFrom(env, source.file, source.name);
  } finally {
    await source.cleanup();
  }
}

async function restoreFrom(env: ReturnType<typeof parseEnv>, file: string, name: string) {
  console.log(`Checking ${name} …`);
  // SQLite with a bucket: the photos go to the bucket, the database to DATA_DIR.
  const bucket =
    !env.DATABASE_URL && env.S3_BUCKET
      ? await openObjectStorage(storageConfigFor(env, randomBytes(32).toString("hex")))
      : null;
  const destination = env.DATABASE_URL
    ? postgresRestoreDestination({ env, logger: createLogger({ level: "warn", destination: process.stderr }) })
    : localRestoreDestination(env.DATA_DIR, bucket ?? undefined);
  const mail = mailSetupFromEnv(env);
  const result = await restoreBackup({ dataDir: env.DATA_DIR, file, destination, mail }).finally(() => bucket?.close());
  const { manifest } = result;
  const tables = Object.entries(result.rows)
    .map(([table, rows]) => `${table} ${rows}`)
    .join(", ");
  console.log(
    `Restored ${name} (made ${manifest.createdAt} by Cornerstone ${manifest.appVersion}, schema ${manifest.schema.migration}) into ${env.DATABASE_URL ? describePostgresTarget(env) : env.S3_BUCKET ? `${env.DATA_DIR} and the bucket ${env.S3_BUCKET}` : env.DATA_DIR}.`,
  );
  console.log(`  Rows: ${tables}. Image files: ${result.objects}.`);
  console.log(`  The administrator is ${result.administrator}.`);
  if (result.migrationsApplied.length)
    console.log(`  Then ran the newer migrations: ${result.migrationsApplied.join(", ")}.`);
  if (env.DATABASE_URL) {
    console.log(
      result.previousKeptAt
        ? `A backup of the data it replaced was written first: ${result.previousKeptAt}`
        : "The database was empty: there was nothing to keep.",
    );
  } else {
    console.log(
      result.previousKeptAt
        ? `The previous database and uploads are kept in ${result.previousKeptAt}`
        : "There was no previous database or uploads folder to keep.",
    );
  }
  console.log("Sessions are never restored: everyone signs in again. Every sign-in lock-out is cleared.");
  if (result.twoStep === "kept")
    console.log("Two-step verification stays on: the same app and the same recovery codes work.");
  if (result.twoStep === "lost") {
    const warning = [
      `WARNING: ${TWO_STEP_LOST_IN_RESTORE}`,
      "  The backup was not encrypted, so it could not carry the key two-step verification needs: the password alone signs in now.",
      `  The dashboard shows this in red until it is on again${mail ? ", and the owner is e-mailed once the server starts" : ""}.`,
    ].join("\n");
    console.log(warning);
  }
  if (result.removedStalePasswordFile)
    console.log("The first start's password file was removed: its password belonged to the data the restore replaced.");
  console.log(
    `The administrator's password is now the one it was when the backup was made (${manifest.createdAt}).` +
      (env.ADMIN_PASSWORD ? " ADMIN_PASSWORD is set, so the server sets that password again when it starts." : ""),
  );
  console.log("Start the server again (for example: sudo systemctl start cornerstone).");
}

main().catch((error: Error) => {
  console.error(
    error instanceof RestoreRefusedError || error instanceof EnvFileError || error instanceof PassphraseMissingError
      ? error.message
      : error instanceof ResticError
        ? `${error.message.replace(/[^.]$/, "$&.")} Nothing was changed.`
        : `The restore failed: ${error.message}. The live data was left as it was.`,
  );
  process.exit(1);
});
