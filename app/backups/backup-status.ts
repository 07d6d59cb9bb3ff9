/**
 * What the dashboard's backup card shows: GET /api/admin/backups/status.
 * Shared by the server (which builds it) and the browser (which shows it).
 */
export type BackupStatus = {
  /** The newest backup that finished: a scheduled one, `npm run backup`, or a download. */
  lastBackup: { at: string; bytes: number; fileName: string } | null;
  /** The newest failed or skipped backup, when it came after the last one that worked. */
  problem: { at: string; kind: "failed" | "skipped" | "warning"; message: string } | null;
  lastDownloadAt: string | null;
  /** No download for DOWNLOAD_REMINDER_DAYS: the card suggests taking a copy off the server. */
  downloadReminder: boolean;
  schedule: { intervalHours: number; keep: number; nextDueAt: string | null };
  /** A backup is running now (on any instance, or `npm run backup`). */
  running: boolean;
  /** Copies kept off the server (issue 18): BACKUP_S3_BUCKET, and BACKUP_PASSPHRASE for encryption. */
  offsite: {
    configured: boolean;
    encrypted: boolean;
    lastCopy: { at: string; name: string } | null;
    /** Two or more uploads failed in a row: the card's red notice. */
    failing: { failures: number; lastFailedAt: string; message: string } | null;
  };
  /**
   * Files in DATA_DIR/backups/ or the bucket's backups/ whose name this installation did not
   * sign (decision 0046): never deleted, shown as "Backups this site did not make".
   */
  foreignBackups: { location: "server" | "bucket"; name: string }[];
};

export const DOWNLOAD_REMINDER_DAYS = 30;

export const BACKUP_STATUS_URL = "/api/admin/backups/status";
export const BACKUP_DOWNLOAD_URL = "/api/admin/backups/download";

/** 12.3 MB, for people. */
export function formatBytes(bytes: number): string {
  if (bytes < 1024) return `${bytes} B`;
  const units = ["KB", "MB", "GB", "TB"];
  let value = bytes / 1024;
  let unit = 0;
  while (value >= 1024 && unit < units.length - 1) {
    value /= 1024;
    unit += 1;
  }
  return `${value.toFixed(value < 10 ? 1 : 0)} ${units[unit]}`;
}
