import { createHash, randomBytes } from "node:crypto";
import { createReadStream, createWriteStream } from "node:fs";
import fs from "node:fs/promises";
import path from "node:path";
import { pipeline } from "node:stream/promises";
import { loadSignInKeys } from "~/auth/keys.server";
import { databaseTargetFor, openDatabaseAt } from "~/db/database.server";
import { parseEnv } from "~/env.server";
import { createLogger } from "~/lib/logger.server";
import type { AppServices } from "~/services.server";
import { openObjectStorage, storageConfigFor } from "~/storage/open-storage.server";
import { backupsDirOf } from "./backup-files.server";
import { MANIFEST_NAME, objectFileName, tableFileName } from "./backup-format.server";
import type { BackupManifest, ManifestFiles } from "./backup-format.server";
import { snapshotManifest, writeTableFiles } from "./backup.server";
import { resticFor } from "./offsite-restic.server";
import { TWO_STEP_KEY_ENTRY, twoStepKeyEntry } from "./two-step-carry.server";

export type OffsiteCopyResult = Awaited<ReturnType<typeof takeOffsiteCopy>> & { peakRssMB?: number };
/** The copy process's code: the built file in production, the TypeScript source (with tsx) in dev and tests. */
export type OffsiteCopyEntry = { file: string; execArgv: string[] };
export type ToCopyProcess = { at: string; parent: string | null };
/** One copy: from `parent` (the last snapshot this site made), at `at`; stopped by `signal`. */
export type CopyRequest = { at: Date; parent: string | null; signal?: AbortSignal };
export type FromCopyProcess = { result: OffsiteCopyResult } | { failed: string };

/**
 * One off-site copy (decision 0070): stale locks removed, the stage folder updated, a restic snapshot from `parent`,
 * then the keep policy and a prune (whose failure does not fail the copy).
 */
export async function takeOffsiteCopy(
  services: Pick<AppServices, "env" | "db" | "storage" | "logger">,
  request: CopyRequest,
) {
  const { env, logger } = services;
  const restic = resticFor(env, env.BACKUP_PASSPHRASE);
  await restic.open(request.parent === null, request.signal);
  const stage = await stageCopy(services, request);
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
    const copy = { ...request, at: new Date(request.at), signal: stop.signal };
    const result = await takeOffsiteCopy({ env, db, storage, logger }, copy);
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

/**
 * The folder each off-site copy is a restic snapshot of (decision 0070): the archive unpacked, always at one path so
 * restic finds its parent. Tables are written afresh; stored files are linked in (or downloaded once and kept), so
 * restic reads only what changed. Called under the off-site lease: nothing the rows name is deleted meanwhile.
 */
export const stageDirOf = (dataDir: string) => path.join(backupsDirOf(dataDir), ".offsite-copy");

const sha256Of = async (file: string) => {
  const hash = createHash("sha256");
  for await (const chunk of createReadStream(file)) hash.update(chunk as Buffer);
  return hash.digest("hex");
};

async function stageCopy(services: Pick<AppServices, "env" | "db" | "storage">, options: CopyRequest) {
  const { env } = services;
  const dir = stageDirOf(env.DATA_DIR);
  const stored = storageConfigFor(env, "-".repeat(32));
  const at = (name: string) => path.join(dir, name);
  const previous: ManifestFiles = await fs
    .readFile(at(MANIFEST_NAME), "utf8")
    .then((text) => (JSON.parse(text) as BackupManifest).files)
    .catch(() => ({}));
  const files: ManifestFiles = {};
  const add = async (name: string, reuse = false) => {
    const { size } = await fs.stat(at(name));
    files[name] =
      reuse && previous[name]?.bytes === size ? previous[name]! : { bytes: size, sha256: await sha256Of(at(name)) };
    return size;
  };

  // The tables, from one read transaction, in place of the last copy's.
  await fs.rm(at("tables.new"), { recursive: true, force: true });
  await fs.mkdir(at("tables.new"), { recursive: true, mode: 0o700 });
  const snapshot = await writeTableFiles(services.db, at("tables.new"));
  await fs.rm(at("tables"), { recursive: true, force: true });
  await fs.rename(at("tables.new"), at("tables"));
  for (const { table } of snapshot.tables) await add(tableFileName(table));
  // A copy is always encrypted, so it carries the two-step key (decision 0058).
  const { twoStep } = await loadSignInKeys(env, env.DATABASE_URL ? services.db : null);
  const carried = twoStepKeyEntry({ twoStepKey: twoStep, encrypted: true });
  await fs.rm(at(TWO_STEP_KEY_ENTRY), { force: true });
  await fs.mkdir(path.dirname(at(TWO_STEP_KEY_ENTRY)), { recursive: true, mode: 0o700 });
  if (carried) await fs.writeFile(at(TWO_STEP_KEY_ENTRY), carried, { mode: 0o600 }).then(() => add(TWO_STEP_KEY_ENTRY));

  // The stored files: what no row names any more goes (older snapshots keep it); the rest is added by key.
  const named = new Set(snapshot.objectKeys.map((key) => at(objectFileName(key))));
  for (const entry of await fs.readdir(at("objects"), { recursive: true, withFileTypes: true }).catch(() => []))
    if (entry.isFile() && !named.has(path.join(entry.parentPath, entry.name)))
      await fs.rm(path.join(entry.parentPath, entry.name));
  const missingObjects: string[] = [];
  let bytes = 0;
  for (const key of snapshot.objectKeys) {
    options.signal?.throwIfAborted();
    if (await placed(services, stored.kind === "local" ? stored.rootDir : null, key, at(objectFileName(key))))
      bytes += await add(objectFileName(key), true);
    else missingObjects.push(key);
  }
  const manifest: BackupManifest = { ...snapshotManifest(snapshot, options.at, missingObjects, bytes), files };
  await fs.writeFile(at(`${MANIFEST_NAME}.new`), `${JSON.stringify(manifest, null, 2)}\n`);
  await fs.rename(at(`${MANIFEST_NAME}.new`), at(MANIFEST_NAME));
  return { dir, manifest };
}

/** The stored file at `file`: a link to DATA_DIR/uploads' (relinked when that is another file now), or downloaded once. False when storage has none. */
async function placed(services: Pick<AppServices, "storage">, uploadsDir: string | null, key: string, file: string) {
  const staged = await fs.stat(file).catch(() => null);
  await fs.mkdir(path.dirname(file), { recursive: true, mode: 0o700 });
  if (!uploadsDir) {
    const object = staged ? null : await services.storage.read(key);
    if (object) await pipeline(object.stream, createWriteStream(`${file}.part`, { mode: 0o600 }));
    if (object) await fs.rename(`${file}.part`, file);
    return Boolean(staged ?? object);
  }
  const source = path.join(uploadsDir, key);
  const stored = await fs.stat(source).catch(() => null);
  if (staged && stored?.ino === staged.ino) return true;
  await fs.rm(file, { force: true });
  if (stored) await fs.link(source, file).catch(() => fs.copyFile(source, file));
  return Boolean(stored);
}
