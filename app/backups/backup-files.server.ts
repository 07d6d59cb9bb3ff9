import fs from "node:fs/promises";
import path from "node:path";
import type { ObjectStorage } from "~/storage/storage.server";
import { formatBytes } from "./backup-status";

/** Backups the server and `npm run backup` write: DATA_DIR/backups/cornerstone-YYYYMMDD-HHmmss.tar.gz (UTC). */
export const BACKUP_FILE_PATTERN = /^cornerstone-\d{8}-\d{6}(-\d+)?\.tar\.gz$/;

export function backupsDirOf(dataDir: string): string {
  return path.join(dataDir, "backups");
}

const pad = (value: number) => String(value).padStart(2, "0");

/** YYYYMMDD-HHmmss in UTC: names sort by time and mean the same on every server. */
export function timestampForFileName(date: Date): string {
  return (
    `${date.getUTCFullYear()}${pad(date.getUTCMonth() + 1)}${pad(date.getUTCDate())}-` +
    `${pad(date.getUTCHours())}${pad(date.getUTCMinutes())}${pad(date.getUTCSeconds())}`
  );
}

export function backupFileName(date: Date): string {
  return `cornerstone-${timestampForFileName(date)}.tar.gz`;
}

// ---------------------------------------------------------------------------------------------
// Free space

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

// ---------------------------------------------------------------------------------------------
// Files

/**
 * Moves a finished temporary file to `target`, never over an existing file:
 * a second backup in the same second gets "-1", "-2", … Returns the path used.
 */
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

/** Keeps the newest `keep` scheduled-style backups in dir; returns the names deleted. */
export async function pruneOldBackups(dir: string, keep: number): Promise<string[]> {
  let names: string[];
  try {
    names = await fs.readdir(dir);
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === "ENOENT") return [];
    throw error;
  }
  // The names sort by time; "-1" suffixes sort after their plain twin.
  const backups = names.filter((name) => BACKUP_FILE_PATTERN.test(name)).sort(compareBackupNames);
  const doomed = backups.slice(0, Math.max(0, backups.length - keep));
  for (const name of doomed) await fs.rm(path.join(dir, name), { force: true });
  return doomed;
}

/** Where backups go in a bucket (issue 12). A backup holds only objects its rows refer to, so never these. */
export const BUCKET_BACKUPS_PREFIX = "backups/";

/** The bucket's counterpart of pruneOldBackups: keeps the newest `keep` under backups/; returns the keys deleted. */
export async function pruneOldBucketBackups(storage: ObjectStorage, keep: number): Promise<string[]> {
  const names = (await storage.list(BUCKET_BACKUPS_PREFIX))
    .map((object) => object.key.slice(BUCKET_BACKUPS_PREFIX.length))
    // Scheduled-style names only: pre-restore-… backups and anything else stay.
    .filter((name) => BACKUP_FILE_PATTERN.test(name))
    .sort(compareBackupNames);
  const doomed = names.slice(0, Math.max(0, names.length - keep)).map((name) => `${BUCKET_BACKUPS_PREFIX}${name}`);
  for (const key of doomed) await storage.delete(key);
  return doomed;
}

function compareBackupNames(a: string, b: string): number {
  const key = (name: string) => {
    const match = /^cornerstone-(\d{8}-\d{6})(?:-(\d+))?\.tar\.gz$/.exec(name)!;
    return [match[1]!, Number(match[2] ?? 0)] as const;
  };
  const [stampA, suffixA] = key(a);
  const [stampB, suffixB] = key(b);
  return stampA === stampB ? suffixA - suffixB : stampA < stampB ? -1 : 1;
}
