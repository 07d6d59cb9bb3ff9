import fs from "node:fs";
import path from "node:path";
import SQLite from "better-sqlite3";
import { PRIVATE_DIR_MODE, PRIVATE_FILE_MODE } from "./private-data-dir.server";

/**
 * A lock on DATA_DIR that cannot go stale: SQLite's file lock on DATA_DIR/server.lock, held by an open
 * transaction, which the OS drops however the process ends. "shared": servers and backups; "exclusive": a restore.
 */
export const LOCK_FILE_NAME = "server.lock";

export class DataDirLockedError extends Error {
  override name = "DataDirLockedError";
}

export type DataDirLock = { release(): void };

// Held here so the connections (and with them the locks) live as long as the process wants them.
const held = new Set<SQLite.Database>();

export function lockDataDir(dataDir: string, mode: "shared" | "exclusive"): DataDirLock {
  // The lock is taken before anything else runs (and sets the private umask), so it makes DATA_DIR
  // and its own file private itself: a first start then has nothing to tighten.
  fs.mkdirSync(dataDir, { recursive: true, mode: PRIVATE_DIR_MODE });
  const lockFile = path.join(dataDir, LOCK_FILE_NAME);
  fs.closeSync(fs.openSync(lockFile, "a", PRIVATE_FILE_MODE));
  const connection = new SQLite(lockFile);
  try {
    connection.pragma("busy_timeout = 0");
    if (mode === "exclusive") {
      connection.exec("BEGIN EXCLUSIVE");
    } else {
      // A read inside an open transaction keeps SQLite's SHARED lock until the connection closes.
      connection.exec("BEGIN");
      connection.prepare("SELECT count(*) FROM sqlite_master").get();
    }
  } catch (error) {
    connection.close();
    if ((error as { code?: string }).code === "SQLITE_BUSY" || (error as { code?: string }).code === "SQLITE_LOCKED") {
      throw new DataDirLockedError(
        mode === "exclusive"
          ? `A Cornerstone server (or npm run backup) is running on ${dataDir}`
          : `A restore is running on ${dataDir}`,
      );
    }
    throw error;
  }
  held.add(connection);
  return {
    release() {
      if (!held.delete(connection)) return;
      connection.close();
    },
  };
}

/** Scripts writing DATA_DIR must run as its owner (root's files would be unreadable): what to do, or null. */
export function wrongUserProblem(dataDir: string, processUid: number | undefined = process.getuid?.()): string | null {
  let ownerUid: number;
  try {
    ownerUid = fs.statSync(dataDir).uid;
  } catch {
    return null; // Not there yet: whoever creates it owns it.
  }
  if (processUid === undefined || processUid !== 0 || ownerUid === 0) return null;
  return (
    `${dataDir} belongs to another user (uid ${ownerUid}); run this as that user, as the server runs, ` +
    `for example: sudo -u cornerstone -H sh -c 'set -a && . /etc/cornerstone/cornerstone.env && exec npm run …' (docs/DEPLOY.md). Nothing was changed.`
  );
}
