import { randomBytes } from "node:crypto";
import path from "node:path";
import { databaseTargetFor, openDatabaseAt } from "~/db/database.server";
import { parseEnv } from "~/env.server";
import { createLogger } from "~/lib/logger.server";
import { openObjectStorage, storageConfigFor } from "~/storage/open-storage.server";
import { backupsDirOf } from "./backup-files.server";
import { keepPolicyOf, runOffsiteCopy, type OffsiteRunResult } from "./offsite-run.server";
import { openOffsiteStore } from "./offsite-store.server";

/**
 * The off-site copy's own process (decision 0060): the server forks it for
 * each copy (offsite-copy-runner.server.ts), so the copy's memory (scrypt's
 * 256 MiB, the snapshot, sealing) never counts against the web process. It
 * opens the database and storage from the same settings, takes one copy,
 * reports, and exits. A SIGTERM (the server stopping) or the server going
 * away stops it; the manifest is written last, so nothing half-made counts.
 */
export type ToCopyProcess = { type: "copy"; at: string };
export type FromCopyProcess =
  | { type: "done"; result: OffsiteRunResult; peakRssMB: number }
  | { type: "failed"; message: string; peakRssMB: number };

/** Where the copy process's code is: the built file in production, the TypeScript source (with tsx) in dev and tests. */
export type OffsiteCopyEntry = { file: string; execArgv: string[] };

const peakRssMB = () => Math.round(process.resourceUsage().maxRSS / 1024);

export async function copyProcessMain(): Promise<void> {
  const send = process.send?.bind(process);
  if (!send) {
    console.error(
      "The off-site copy process is started by the server; for a copy by hand, run: npm run backup -- --offsite",
    );
    process.exit(1);
  }
  const stop = new AbortController();
  process.on("SIGTERM", () => stop.abort(new Error("The server is shutting down")));
  process.on("disconnect", () => stop.abort(new Error("The server went away")));
  const request = await new Promise<ToCopyProcess>((resolve) =>
    process.once("message", (message: ToCopyProcess) => resolve(message)),
  );
  const reply = (message: FromCopyProcess) =>
    new Promise<void>((resolve) => {
      if (!process.connected) return resolve();
      send(message, undefined, {}, () => resolve());
    });

  const env = parseEnv();
  const logger = createLogger({ level: env.LOG_LEVEL });
  const store = openOffsiteStore(env);
  const db = openDatabaseAt(databaseTargetFor(env), {
    onIdleClientError: (error) => logger.warn({ err: error }, "an idle database connection failed"),
  });
  // Only reads: the signing secret is for upload URLs, which this process never makes.
  const storage = await openObjectStorage(storageConfigFor(env, randomBytes(32).toString("hex")));
  try {
    if (!store || !env.BACKUP_PASSPHRASE)
      throw new Error("Off-site copies need BACKUP_S3_BUCKET and BACKUP_PASSPHRASE");
    const workDir = backupsDirOf(env.DATA_DIR);
    const result = await runOffsiteCopy(
      { env, db, storage, logger },
      {
        store,
        passphrase: env.BACKUP_PASSPHRASE,
        policy: keepPolicyOf(env),
        workDir,
        cacheDir: path.join(workDir, ".offsite-cache"),
      },
      { at: new Date(request.at), signal: stop.signal },
    );
    await reply({ type: "done", result, peakRssMB: peakRssMB() });
  } catch (error) {
    await reply({
      type: "failed",
      message: stop.signal.aborted ? String((stop.signal.reason as Error).message) : (error as Error).message,
      peakRssMB: peakRssMB(),
    });
    process.exitCode = 1;
  } finally {
    store?.close();
    await storage.close();
    await db.destroy();
    if (process.connected) process.disconnect();
  }
}
