// npm run restore -- FILE | --from-offsite [NAME] | --list  [--passphrase-file PATH] [--allow-unencrypted] [--env-file /etc/cornerstone/cornerstone.env]
// --from-offsite: the newest off-site copy (BACKUP_S3_*; decision 0060) that opens with the
// passphrase, or the one named; a full archive copied there before (cornerstone-….tar.gz[.age],
// decision 0052) by its name. It reads only the bucket, so nothing kept on the lost server is
// needed. --list shows the copies, with their times and sizes. The passphrase comes from a
// hidden prompt, the first line of --passphrase-file, or BACKUP_PASSPHRASE when the environment
// has it. A wrong passphrase, or a changed or missing object, changes nothing. With a passphrase
// set or given, an unencrypted backup is refused unless --allow-unencrypted (restore-rules.server.ts).
// Restores a backup into DATA_DIR, or with DATABASE_URL set into that PostgreSQL database and
// the configured storage (S3_BUCKET or DATA_DIR/uploads). Stop the server(s) first; run it as
// the service's user (docs/DEPLOY.md shows the exact command). The data it replaces is kept
// under DATA_DIR/backups/pre-restore-YYYYMMDD-HHmmss/ (PostgreSQL: a pre-restore backup
// file, in the bucket under backups/ when S3_BUCKET is set).
import { randomBytes } from "node:crypto";
import fs from "node:fs/promises";
import { TWO_STEP_LOST_IN_RESTORE } from "~/auth/sign-in-methods";
import { backupsDirOf } from "~/backups/backup-files.server";
import { openOffsiteTarget } from "~/backups/offsite-target.server";
import { openRestoreSource } from "~/backups/restore-source.server";
import { describePostgresTarget, postgresRestoreDestination } from "~/backups/restore-postgres.server";
import { ALLOW_UNENCRYPTED } from "~/backups/restore-rules.server";
import { localRestoreDestination, RestoreRefusedError, restoreBackup } from "~/backups/restore.server";
import { parseEnv } from "~/env.server";
import { wrongUserProblem } from "~/lib/data-dir-lock.server";
import { createLogger } from "~/lib/logger.server";
import { mailSetupFromEnv } from "~/notifications/mailer.server";
import { openObjectStorage, storageConfigFor } from "~/storage/open-storage.server";
import { openOffsiteStore } from "~/backups/offsite-store.server";
import { applyEnvFileArgument, EnvFileError } from "./lib/env-file";
import { isFullArchiveName, printOffsiteList, rebuildOffsiteCopy } from "./lib/offsite-restore-commands";
import { PassphraseMissingError, passphraseSource } from "./lib/passphrase";

const USAGE =
  "Usage: npm run restore -- /path/to/cornerstone-YYYYMMDD-HHmmss.tar.gz.age\n" +
  "   or: npm run restore -- --from-offsite [NAME]   (the newest copy in the off-site bucket, or the one named)\n" +
  "   or: npm run restore -- --list                  (the copies in the off-site bucket, with their times and sizes)\n" +
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
  const offsite = args.fromOffsite || args.list ? openOffsiteTarget(env) : null;
  const store = offsite ? openOffsiteStore(env) : null;
  if ((args.fromOffsite || args.list) && (!offsite || !store)) {
    throw new RestoreRefusedError(
      "--from-offsite and --list need the off-site bucket's settings: set BACKUP_S3_BUCKET and its BACKUP_S3_* (docs/DEPLOY.md). Nothing was changed.",
    );
  }
  try {
    if (args.list) return await printOffsiteList(store!, offsite!, passphrase);
    const workDir = backupsDirOf(env.DATA_DIR);
    // A copy of decision 0060 (unless a full archive is named), else the newest full archive there.
    if (store && !(args.offsiteName && isFullArchiveName(args.offsiteName))) {
      console.log(`Reading ${args.offsiteName ?? "the newest copy"} from ${store.description} …`);
      const rebuilt = await rebuildOffsiteCopy(store, {
        name: args.offsiteName,
        workDir,
        passphrase,
        onChosen: (name) => console.log(`Rebuilding ${name} on this server …`),
      });
      if (rebuilt) {
        try {
          await restoreFrom(env, rebuilt.file, rebuilt.name);
        } finally {
          await fs.rm(rebuilt.file, { force: true });
        }
        return;
      }
      if (args.offsiteName)
        throw new RestoreRefusedError(
          `There is no copy named ${args.offsiteName} in ${store.description}. Nothing was changed.`,
        );
    }
    if (offsite) console.log(`Reading ${args.offsiteName ?? "the newest backup"} from ${offsite.description} …`);
    const source = await openRestoreSource({
      file: args.file,
      offsite: offsite ? { target: offsite, name: args.offsiteName } : undefined,
      workDir,
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
  } finally {
    offsite?.close();
    store?.close();
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
      : `The restore failed: ${error.message}. The live data was left as it was.`,
  );
  process.exit(1);
});
