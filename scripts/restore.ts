// npm run restore -- FILE [--env-file /etc/cornerstone/cornerstone.env]
// Restores a backup into DATA_DIR, or with DATABASE_URL set into that PostgreSQL database and
// the configured storage (S3_BUCKET or DATA_DIR/uploads). Stop the server(s) first; run it as
// the service's user (docs/DEPLOY.md shows the exact command). The data it replaces is kept
// under DATA_DIR/backups/pre-restore-YYYYMMDD-HHmmss/ (PostgreSQL: a pre-restore backup
// file, in the bucket under backups/ when S3_BUCKET is set).
import { randomBytes } from "node:crypto";
import path from "node:path";
import { describePostgresTarget, postgresRestoreDestination } from "~/backups/restore-postgres.server";
import { localRestoreDestination, RestoreRefusedError, restoreBackup } from "~/backups/restore.server";
import { parseEnv } from "~/env.server";
import { wrongUserProblem } from "~/lib/data-dir-lock.server";
import { createLogger } from "~/lib/logger.server";
import { openObjectStorage, storageConfigFor } from "~/storage/open-storage.server";
import { applyEnvFileArgument, EnvFileError } from "./lib/env-file";

async function main() {
  // The service's settings, read as systemd reads them (decision 0050).
  const args = applyEnvFileArgument(process.argv.slice(2));
  const file = args.find((arg) => !arg.startsWith("--"));
  if (!file) {
    console.error("Usage: npm run restore -- /path/to/cornerstone-YYYYMMDD-HHmmss.tar.gz [--env-file /etc/cornerstone/cornerstone.env]");
    process.exit(2);
  }
  const env = parseEnv();
  const wrongUser = wrongUserProblem(env.DATA_DIR);
  if (wrongUser) {
    console.error(wrongUser);
    process.exit(1);
  }
  console.log(`Checking ${file} …`);
  // SQLite with a bucket: the photos go to the bucket, the database to DATA_DIR.
  const bucket = !env.DATABASE_URL && env.S3_BUCKET ? await openObjectStorage(storageConfigFor(env, randomBytes(32).toString("hex"))) : null;
  const destination = env.DATABASE_URL
    ? postgresRestoreDestination({ env, logger: createLogger({ level: "warn", destination: process.stderr }) })
    : localRestoreDestination(env.DATA_DIR, bucket ?? undefined);
  const result = await restoreBackup({ dataDir: env.DATA_DIR, file: path.resolve(file), destination }).finally(() => bucket?.close());
  const { manifest } = result;
  const tables = Object.entries(result.rows)
    .map(([table, rows]) => `${table} ${rows}`)
    .join(", ");
  console.log(
    `Restored ${path.basename(file)} (made ${manifest.createdAt} by Cornerstone ${manifest.appVersion}, schema ${manifest.schema.migration}) into ${env.DATABASE_URL ? describePostgresTarget(env) : env.S3_BUCKET ? `${env.DATA_DIR} and the bucket ${env.S3_BUCKET}` : env.DATA_DIR}.`,
  );
  console.log(`  Rows: ${tables}. Image files: ${result.objects}.`);
  if (result.migrationsApplied.length) console.log(`  Then ran the newer migrations: ${result.migrationsApplied.join(", ")}.`);
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
  console.log("Sessions are never restored: everyone signs in again.");
  console.log(
    `The administrator's password is now the one it was when the backup was made (${manifest.createdAt}).` +
      (env.ADMIN_PASSWORD ? " ADMIN_PASSWORD is set, so the server sets that password again when it starts." : ""),
  );
  console.log("Start the server again (for example: sudo systemctl start cornerstone).");
}

main().catch((error: Error) => {
  console.error(error instanceof RestoreRefusedError || error instanceof EnvFileError ? error.message : `The restore failed: ${error.message}. The live data was left as it was.`);
  process.exit(1);
});
