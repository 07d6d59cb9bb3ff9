import { formatDistanceStrict } from "date-fns/formatDistanceStrict";
import type { AnalyticsReport } from "~/analytics/report";
import type { SecuritySummary } from "~/auth/security-summary";
import type { SignInMethods } from "~/auth/sign-in-methods";
import type { BackupStatus } from "~/backups/backup-status";
import { plural } from "~/lib/plural";
import type { NotificationsOverview } from "~/notifications/notification-state";

/** Each row's one-line status in the owner's words, one phone line (a long address is cut with "…"). */
export type RowStatus = { text: string; attention: "warning" | "danger" | null };

const fine = (text: string): RowStatus => ({ text, attention: null });

/** "just now", "12 minutes ago", "3 days ago". */
export function timeAgo(iso: string, now: Date = new Date()): string {
  const at = new Date(iso);
  if (now.getTime() - at.getTime() < 60_000) return "just now";
  return formatDistanceStrict(at, now, { addSuffix: true, roundingMethod: "floor" });
}

export function emailStatus(status: NotificationsOverview): RowStatus {
  if (!status.enabled) return { text: "Off: enquiries are not e-mailed", attention: "warning" };
  if (status.lastAttempt && !status.lastAttempt.ok)
    return { text: "Failing: the last e-mail was not sent", attention: "danger" };
  return fine(`On: enquiries go to ${status.recipient}`);
}

export function accountStatus(methods: SignInMethods | undefined, summary: SecuritySummary | undefined): RowStatus {
  if (summary?.temporaryPassword) return { text: "Temporary password: change it", attention: "warning" };
  if (methods?.twoStep.status === "unreadable")
    return { text: "Two-step is off since a restore", attention: "warning" };
  const ways = ["Password", ...(methods?.passkeys.list.length ? ["passkeys"] : [])];
  const twoStep = methods?.twoStep.status === "on" ? "on" : "off";
  return fine(`${ways.join(", ")}, two-step: ${twoStep}`);
}

/** When a copy last left the server: the newer of the off-site copy and the owner's download. */
export function lastCopyOffServer(status: BackupStatus): string | null {
  const times = [status.offsite.lastCopy?.at, status.lastDownloadAt].filter((at): at is string => Boolean(at));
  return times.length ? times.reduce((newest, at) => (at > newest ? at : newest)) : null;
}

const PROBLEM_STATUS: Record<NonNullable<BackupStatus["problem"]>["kind"], RowStatus> = {
  failed: { text: "The last backup failed", attention: "danger" },
  skipped: { text: "The last backup was skipped", attention: "danger" },
  warning: { text: "The last backup had a warning", attention: "warning" },
};

export function backupsStatus(status: BackupStatus, now: Date = new Date()): RowStatus {
  if (status.problem) return PROBLEM_STATUS[status.problem.kind];
  if (status.offsite.failing) return { text: "Copies are not leaving the server", attention: "danger" };
  if (status.offsite.state === "no-passphrase" || status.offsite.state === "no-restic")
    return { text: "No copy leaves the server", attention: "danger" };
  const lastCopy = lastCopyOffServer(status);
  if (!lastCopy) return { text: "No copy off the server yet", attention: "warning" };
  const text = `Last copy off the server: ${timeAgo(lastCopy, now)}`;
  // Without off-site copies, the owner's downloads are the only copies elsewhere: after 30 days, a reminder.
  return { text, attention: !status.offsite.configured && status.downloadReminder ? "warning" : null };
}

/** Visits in the current week (starting Sunday, as the report's weeks do). */
export function visitsStatus(report: AnalyticsReport): RowStatus {
  const weekStart = report.enquiriesPerWeek.at(-1)?.weekStart ?? report.today;
  const visits = report.days.filter((day) => day.day >= weekStart).reduce((sum, day) => sum + day.visitors, 0);
  return fine(report.enabled ? `${plural(visits, "visit", "visits")} this week` : "Visit counting is off");
}

export function activityStatus(summary: SecuritySummary): RowStatus {
  const failed = summary.failedSignInsBeforeThisSession.failedAttempts;
  if (failed === 0) return fine("No failed sign-ins");
  return { text: `${plural(failed, "failed sign-in", "failed sign-ins")} since last time`, attention: "warning" };
}
