// npm run backup [-- --out FILE] [--env-file /etc/cornerstone/cornerstone.env]
//            -- --offsite               an off-site copy now, as the server makes them (a restic snapshot; decision 0070)
//            -- --verify | --read-data  restic check of the off-site repository (--read-data: every file read)
//               [--passphrase-file PATH] (else BACKUP_PASSPHRASE, else a hidden prompt)
// With BACKUP_PASSPHRASE set the file is encrypted with age (.tar.gz.age).
// Writes one .tar.gz backup of DATA_DIR's database and images, safely while the server runs.
// Default: DATA_DIR/backups/cornerstone-YYYYMMDD-HHmmss-<random>-<tag>.tar.gz (UTC; decision 0046). --out may name a file or a folder.
// --env-file reads the service's settings as systemd does, over the shell's (decision 0050).
import { statSync } from "node:fs";
import path from "node:path";
import { backupsDirOf } from "~/backups/backup-files.server";
import { loadBackupNaming } from "~/backups/backup-names.server";
import { formatBytes } from "~/backups/backup-status";
import { ResticError } from "~/backups/offsite-restic.server";
import { ENCRYPTED_SUFFIX } from "~/backups/backup-encryption.server";
import { createBackup } from "~/backups/backup.server";
import { parseEnv } from "~/env.server";
import { systemClock } from "~/lib/clock";
import { DatabaseLockedError, lockDatabase } from "~/db/database-lock.server";
import { DataDirLockedError, lockDataDir, wrongUserProblem } from "~/lib/data-dir-lock.server";
import { createLogger } from "~/lib/logger.server";
import { openServices } from "../server/bootstrap";
import { applyEnvFileArgument } from "./lib/env-file";
import { copyOffsiteNow, verifyOffsite } from "./lib/offsite-commands";
import { PassphraseMissingError, passphraseSource } from "./lib/passphrase";

function valueArgument(args: string[], flag: string): string | undefined {
  const index = args.indexOf(flag);
  if (index >= 0) return args[index + 1];
  return args.find((arg) => arg.startsWith(`${flag}=`))?.slice(flag.length + 1);
}

function targetPath(out: string | undefined, dataDir: string, name: string): string {
  if (!out) return path.join(backupsDirOf(dataDir), name);
  const resolved = path.resolve(out);
  try {
    if (statSync(resolved).isDirectory()) return path.join(resolved, name);
  } catch {
    // Not there yet: a file name.
  }
  return resolved;
}

// The backup holds the password hash and the enquiries: readable by the service's user only.
process.umask(0o077);

async function main() {
  const args = applyEnvFileArgument(process.argv.slice(2));
  const env = parseEnv();
  if (args.includes("--verify") || args.includes("--read-data")) {
    const passphrase = passphraseSource({
      file: valueArgument(args, "--passphrase-file"),
      fromEnv: env.BACKUP_PASSPHRASE,
      what: "Checking the off-site copies needs the backup passphrase",
    });
    process.exitCode = await verifyOffsite(env, args.includes("--read-data"), passphrase);
    return;
  }
  const out = valueArgument(args, "--out");
  if (args.includes("--out") && !out)
    throw new Error("--out needs a file name: npm run backup -- --out /path/to/backup.tar.gz");
  const wrongUser = wrongUserProblem(env.DATA_DIR);
  if (wrongUser) throw new Error(wrongUser);
  // Shared with the server: a backup may run beside it, but not beside a restore.
  const lock = lockDataDir(env.DATA_DIR, "shared");
  // PostgreSQL: the same, on the database every instance shares (a restore takes it exclusive).
  const databaseLock = env.DATABASE_URL ? await lockDatabase(env.DATABASE_URL, "shared") : null;
  // Logs (JSON) go to stderr; the outcome is printed below.
  const logger = createLogger({ level: "warn", destination: process.stderr });
  const services = await openServices(env, logger, { checkBrowserUploads: false });
  try {
    if (args.includes("--offsite")) {
      process.exitCode = await copyOffsiteNow(services);
      return;
    }
    // Tagged with this installation's key: the scheduler's pruning may later count it among its own.
    const naming = await loadBackupNaming({ dataDir: env.DATA_DIR, sharedDb: env.DATABASE_URL ? services.db : null });
    const result = await createBackup(
      { ...services, clock: systemClock },
      {
        purpose: "manual",
        workDir: backupsDirOf(env.DATA_DIR),
        destination: {
          kind: "file",
          path: targetPath(
            out,
            env.DATA_DIR,
            `${naming.make("cornerstone", systemClock.now())}${env.BACKUP_PASSPHRASE ? ENCRYPTED_SUFFIX : ""}`,
          ),
        },
        passphrase: env.BACKUP_PASSPHRASE,
      },
    );
    if (result.status === "skipped") {
      console.error(result.reason);
      process.exitCode = 1;
      return;
    }
    const { manifest } = result;
    const rows = Object.values(manifest.tables).reduce((sum, table) => sum + table.rows, 0);
    console.log(
      `Backup written: ${result.path} (${formatBytes(result.bytes)}: ${rows} rows in ${Object.keys(manifest.tables).length} tables, ` +
        `${manifest.objects.count} image files, schema ${manifest.schema.migration})`,
    );
    if (manifest.missingObjects.length) {
      console.error(
        `Warning: ${manifest.missingObjects.length} image file(s) the database refers to were missing from storage.`,
      );
    }
  } finally {
    await services.close();
    await databaseLock?.release();
    lock.release();
  }
}

main().catch((error: Error) => {
  console.error(
    error instanceof DataDirLockedError || error instanceof DatabaseLockedError
      ? `${error.message}: wait for it to finish.`
      : error instanceof PassphraseMissingError || error instanceof ResticError
        ? error.message
        : `The backup failed: ${error.message}`,
  );
  process.exit(1);
});
