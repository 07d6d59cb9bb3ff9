import { randomBytes } from "node:crypto";
import path from "node:path";
import { loadSignInKeys } from "~/auth/keys.server";
import { databaseTargetFor, openDatabaseAt } from "~/db/database.server";
import { parseEnv } from "~/env.server";
import { createLogger } from "~/lib/logger.server";
import type { AppServices } from "~/services.server";
import { openObjectStorage, storageConfigFor } from "~/storage/open-storage.server";
import { backupsDirOf } from "./backup-files.server";
import { offsiteLocation, openRestic, ResticError } from "./offsite-restic.server";
import { stageCopy } from "./offsite-stage.server";

export type OffsiteCopyResult = {
  snapshot: string;
  addedBytes: number;
  files: number;
  fileBytes: number;
  removedSnapshots: number;
  pruneProblem: string | null;
  peakRssMB?: number;
};
/** The copy process's code: the built file in production, the TypeScript source (with tsx) in dev and tests. */
export type OffsiteCopyEntry = { file: string; execArgv: string[] };
export type ToCopyProcess = { at: string; parent: string | null };
export type FromCopyProcess = { result: OffsiteCopyResult } | { failed: string };

export const resticCacheDirOf = (dataDir: string) => path.join(backupsDirOf(dataDir), ".restic-cache");

/**
 * One off-site copy (decision 0070): stale locks removed, the stage folder updated, a restic snapshot from `parent`,
 * then the keep policy and a prune (whose failure does not fail the copy).
 */
export async function takeOffsiteCopy(
  services: Pick<AppServices, "env" | "db" | "storage" | "logger">,
  request: { at: Date; parent: string | null; signal?: AbortSignal },
): Promise<OffsiteCopyResult> {
  const { env, logger } = services;
  const location = offsiteLocation(env);
  if (!location || !env.BACKUP_PASSPHRASE)
    throw new ResticError("Off-site copies need BACKUP_S3_BUCKET or BACKUP_OFFSITE_REPOSITORY, and BACKUP_PASSPHRASE");
  const restic = openRestic(location, { passphrase: env.BACKUP_PASSPHRASE, cacheDir: resticCacheDirOf(env.DATA_DIR) });
  await restic.open(request.parent === null, request.signal);
  const storage = storageConfigFor(env, "-".repeat(32));
  const stage = await stageCopy(services, {
    dataDir: env.DATA_DIR,
    uploadsDir: storage.kind === "local" ? storage.rootDir : null,
    twoStepKey: (await loadSignInKeys(env, env.DATABASE_URL ? services.db : null)).twoStep,
    at: request.at,
    signal: request.signal,
  });
  const made = await restic.backup([stage.dir], request);
  const policy = { hourly: env.BACKUP_KEEP_HOURLY, daily: env.BACKUP_KEEP_DAILY, monthly: env.BACKUP_KEEP_MONTHLY };
  const forgot = await restic.forget(policy, request.signal);
  if (forgot.problem) logger.warn({ problem: forgot.problem }, "old off-site copies were not all pruned");
  return {
    // backup's JSON names it by its short id; forget's lists it whole.
    snapshot: forgot.kept.find((snapshot) => snapshot.id.startsWith(made.id))?.id ?? made.id,
    addedBytes: made.addedBytes,
    files: stage.manifest.objects.count,
    fileBytes: stage.manifest.objects.bytes,
    removedSnapshots: forgot.removed,
    pruneProblem: forgot.problem,
  };
}

/** The forked copy process: opens its own database and storage, reports; SIGTERM stops restic, which unlocks. */
export async function copyProcessMain(): Promise<void> {
  if (!process.send) throw new Error("Started by the server; for a copy by hand: npm run backup -- --offsite");
  const stop = new AbortController();
  process.on("SIGTERM", () => stop.abort(new Error("The server is shutting down")));
  process.on("disconnect", () => stop.abort(new Error("The server went away")));
  const request = await new Promise<ToCopyProcess>((resolve) => process.once("message", resolve));
  const env = parseEnv();
  const logger = createLogger({ level: env.LOG_LEVEL });
  const db = openDatabaseAt(databaseTargetFor(env), {
    onIdleClientError: (error) => logger.warn({ err: error }, "an idle database connection failed"),
  });
  // Only reads: the signing secret is for upload URLs, which this process never makes.
  const storage = await openObjectStorage(storageConfigFor(env, randomBytes(32).toString("hex")));
  let reply: FromCopyProcess;
  try {
    const result = await takeOffsiteCopy(
      { env, db, storage, logger },
      { ...request, at: new Date(request.at), signal: stop.signal },
    );
    reply = { result: { ...result, peakRssMB: Math.round(process.resourceUsage().maxRSS / 1024) } };
  } catch (error) {
    reply = { failed: ((stop.signal.aborted ? stop.signal.reason : error) as Error).message };
  } finally {
    await storage.close();
    await db.destroy();
  }
  if (process.connected) await new Promise((resolve) => process.send!(reply, undefined, {}, resolve));
  if (process.connected) process.disconnect();
}
