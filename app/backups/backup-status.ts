/** The dashboard's backup card (GET /api/admin/backups/status), for the server and the browser. */
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
  /** Copies kept off the server: a restic repository and BACKUP_PASSPHRASE (decision 0070). */
  offsite: OffsiteStatus;
  /** Backups whose name this installation did not sign (decision 0046): never deleted, listed. */
  foreignBackups: { location: "server" | "bucket"; name: string }[];
};

/** The off-site copies (decision 0070); offsiteSummary() turns `state` into the owner's sentence. */
export type OffsiteStatus = {
  /** BACKUP_S3_BUCKET or BACKUP_OFFSITE_REPOSITORY is set. */
  configured: boolean;
  /** BACKUP_PASSPHRASE is set: without it no copy leaves the server. */
  encrypted: boolean;
  /** Red: no-passphrase and no-restic (nothing leaves), failing (for 3 hours or more). */
  state: "off" | "no-passphrase" | "no-restic" | "waiting" | "ok" | "failing";
  /** BACKUP_OFFSITE_MINUTES. */
  intervalMinutes: number;
  /** When the next copy is due (null when none will leave). */
  nextCopyAt: string | null;
  /** The newest copy that left the server, and what it sent (null for a copy of the older, full-archive kind). */
  lastCopy: { at: string; name: string; sentBytes: number | null } | null;
  /** Set while state is "failing": since when, how many attempts, and the last error (for whoever runs the site). */
  failing: { failures: number; since: string; lastFailedAt: string; message: string } | null;
};

/** Copies failing for this long turn the dashboard red (and e-mail the owner once). */
export const OFFSITE_RED_AFTER_MS = 3 * 60 * 60 * 1000;

/** How to set the passphrase, for the red notice shown when there is none. */
export const PASSPHRASE_HOW_TO =
  "Add BACKUP_PASSPHRASE=<four or five random words> to the site's settings file (/etc/cornerstone/cornerstone.env), " +
  "keep a copy of it away from the server, then restart the site (systemctl restart cornerstone). docs/DEPLOY.md, step 9, shows each step.";

/** How to install restic, for the red notice shown while it is missing. */
export const RESTIC_HOW_TO =
  "Install restic, the program that makes the copies: apt-get install restic (as root). No restart is needed.";

/** "12 minutes ago", "3 hours ago", "2 days ago": how long ago, in the owner's words. */
export function timeAgo(iso: string, now: Date): string {
  const seconds = Math.max(0, Math.round((now.getTime() - new Date(iso).getTime()) / 1000));
  if (seconds < 60) return "just now";
  const units: [number, string][] = [
    [60 * 60 * 24, "day"],
    [60 * 60, "hour"],
    [60, "minute"],
  ];
  for (const [size, unit] of units) {
    const count = Math.floor(seconds / size);
    if (count >= 1) return `${count} ${unit}${count === 1 ? "" : "s"} ago`;
  }
  return "just now";
}

/** "Last copy off the server: 12 minutes ago", and whether it shows red. */
export function offsiteSummary(offsite: OffsiteStatus, now: Date): { text: string; tone: "ok" | "danger" | "neutral" } {
  const last = offsite.lastCopy
    ? `Last copy off the server: ${timeAgo(offsite.lastCopy.at, now)}`
    : "No copy has left the server yet";
  switch (offsite.state) {
    case "off":
      return { text: "Backups are kept on this server only", tone: "neutral" };
    case "no-passphrase":
      return { text: `${last}. No copy leaves the server until a backup passphrase is set`, tone: "danger" };
    case "no-restic":
      return { text: `${last}. No copy can leave the server until restic is installed`, tone: "danger" };
    case "failing":
      return { text: last, tone: "danger" };
    case "waiting":
      return { text: last, tone: "neutral" };
    default:
      return { text: last, tone: "ok" };
  }
}

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
