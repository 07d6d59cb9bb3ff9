import fs from "node:fs/promises";
import path from "node:path";
import type { ObjectStorage } from "~/storage/storage.server";
import { BUCKET_BACKUPS_PREFIX } from "~/storage/storage-keys.server";
import { timestampForFileName, type BackupNaming } from "./backup-names.server";
import { formatBytes, type BackupStatus } from "./backup-status";

export function backupsDirOf(dataDir: string): string {
  return path.join(dataDir, "backups");
}

/** A download's suggested file name (it is never stored on the server, so it carries no tag). */
export function downloadFileName(date: Date): string {
  return `cornerstone-${timestampForFileName(date)}.tar.gz`;
}

export type FreeSpace = { freeBytes: number; totalBytes: number };
/** How much room the filesystem holding `dir` has. Injected in tests. */
export type FreeSpaceProbe = (dir: string) => Promise<FreeSpace>;

export const statfsProbe: FreeSpaceProbe = async (dir) => {
  const stats = await fs.statfs(dir);
  return { freeBytes: stats.bavail * stats.bsize, totalBytes: stats.blocks * stats.bsize };
};

/** A backup must leave at least this much free: a full disk would make SQLite refuse new enquiries. */
export function minimumFreeBytes(totalBytes: number): number {
  return Math.max(totalBytes * 0.1, 1024 ** 3);
}

/** Null when `neededBytes` fits with the margin left over; otherwise why not, for the log and the dashboard. */
export async function spaceProblem(probe: FreeSpaceProbe, dir: string, neededBytes: number): Promise<string | null> {
  const { freeBytes, totalBytes } = await probe(dir);
  const margin = minimumFreeBytes(totalBytes);
  if (freeBytes - neededBytes >= margin) return null;
  return (
    `Not enough free disk space for a backup: it needs about ${formatBytes(neededBytes)}, ` +
    `${formatBytes(freeBytes)} is free, and at least ${formatBytes(margin)} must stay free ` +
    `(10 % of the disk or 1 GB) so the site keeps working. Free some space or move old backups off the server.`
  );
}

/** Never over an existing file: a second backup in the same second gets "-1", "-2", … Returns the path used. */
export async function moveIntoPlace(temporary: string, target: string): Promise<string> {
  const ext = target.endsWith(".tar.gz") ? ".tar.gz" : path.extname(target);
  const base = target.slice(0, target.length - ext.length);
  for (let attempt = 0; attempt < 100; attempt++) {
    const candidate = attempt === 0 ? target : `${base}-${attempt}${ext}`;
    try {
      // link() fails if the name exists, unlike rename().
      await fs.link(temporary, candidate);
      await fs.unlink(temporary);
      return candidate;
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code !== "EEXIST") throw error;
    }
  }
  throw new Error(`Could not find a free file name next to ${target}`);
}

/** Backups this installation made (their tag verifies), oldest first; everything else is left alone. */
function ownBackupsOldestFirst(names: readonly string[], naming: BackupNaming): string[] {
  return names
    .map((name) => ({ name, verified: naming.verify(name) }))
    .filter((entry) => entry.verified?.kind === "cornerstone" && /\.tar\.gz(\.age)?$/.test(entry.name))
    .sort((a, b) => a.verified!.stamp.localeCompare(b.verified!.stamp) || a.name.localeCompare(b.name))
    .map((entry) => entry.name);
}

async function bucketBackupNames(storage: ObjectStorage): Promise<string[]> {
  return (await storage.list(BUCKET_BACKUPS_PREFIX)).map((object) => object.key.slice(BUCKET_BACKUPS_PREFIX.length));
}

async function namesIn(dir: string): Promise<string[]> {
  try {
    return await fs.readdir(dir);
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === "ENOENT") return [];
    throw error;
  }
}

/** Keeps the newest `keep` backups this installation named (decision 0046); returns the names deleted. */
export async function pruneOldBackups(dir: string, keep: number, naming: BackupNaming): Promise<string[]> {
  const backups = ownBackupsOldestFirst(await namesIn(dir), naming);
  const doomed = backups.slice(0, Math.max(0, backups.length - keep));
  for (const name of doomed) await fs.rm(path.join(dir, name), { force: true });
  return doomed;
}

/** The bucket's counterpart of pruneOldBackups: keeps the newest `keep` under backups/; returns the keys deleted. */
export async function pruneOldBucketBackups(
  storage: ObjectStorage,
  keep: number,
  naming: BackupNaming,
): Promise<string[]> {
  const backups = ownBackupsOldestFirst(await bucketBackupNames(storage), naming);
  const doomed = backups.slice(0, Math.max(0, backups.length - keep)).map((name) => `${BUCKET_BACKUPS_PREFIX}${name}`);
  for (const key of doomed) await storage.delete(key);
  return doomed;
}

export type ForeignBackup = BackupStatus["foreignBackups"][number];

/**
 * What lies in DATA_DIR/backups/ and, with a bucket, under backups/ that this installation did
 * not name: never deleted, listed on the dashboard. Its own working files (".work-…", ".…partial-…") are skipped.
 */
export async function listForeignBackups(
  dir: string,
  bucket: ObjectStorage | null,
  naming: BackupNaming,
): Promise<ForeignBackup[]> {
  const foreign = (names: string[], location: ForeignBackup["location"]) =>
    names
      .filter((name) => !name.startsWith(".") && !naming.verify(name))
      .sort()
      .map((name) => ({ location, name }));
  const bucketNames = bucket ? await bucketBackupNames(bucket) : [];
  return [...foreign(await namesIn(dir), "server"), ...foreign(bucketNames, "bucket")];
}
