import { describe, expect, it } from "vitest";
import type { AnalyticsReport } from "~/analytics/report";
import type { SecuritySummary } from "~/auth/security-summary";
import type { SignInMethods } from "~/auth/sign-in-methods";
import type { BackupStatus } from "~/backups/backup-status";
import {
  accountStatus,
  activityStatus,
  backupsStatus,
  emailStatus,
  lastCopyOffServer,
  timeAgo,
  visitsStatus,
} from "./settings-status";

const NOW = new Date("2026-06-10T09:00:00.000Z");
const minutesAgo = (minutes: number) => new Date(NOW.getTime() - minutes * 60_000).toISOString();

describe("the Settings and reports rows' statuses", () => {
  it("E-mail: on and where enquiries go; off or failing needs attention", () => {
    const on = {
      enabled: true,
      recipient: "mark@example.nz",
      lastAttempt: { at: minutesAgo(5), ok: true, error: null },
      failed: 0,
    };
    expect(emailStatus(on)).toEqual({ text: "On: enquiries go to mark@example.nz", attention: null });
    expect(emailStatus({ ...on, enabled: false })).toEqual({
      text: "Off: enquiries are not e-mailed",
      attention: "warning",
    });
    expect(emailStatus({ ...on, lastAttempt: { at: minutesAgo(5), ok: false, error: "535" } })).toEqual({
      text: "Failing: the last e-mail was not sent",
      attention: "danger",
    });
  });

  it("Your account: the ways in, and the temporary password as a reason to look", () => {
    const methods = (passkeys: number, twoStep: SignInMethods["twoStep"]["status"]): SignInMethods => ({
      passkeys: {
        available: true,
        unavailableReason: null,
        list: Array.from({ length: passkeys }, (_, i) => ({
          id: `p${i}`,
          name: "Phone",
          createdAt: minutesAgo(9),
          lastUsedAt: null,
        })),
        signedInWith: null,
      },
      twoStep: { status: twoStep, recoveryCodesLeft: 10 },
    });
    const summary = (temporaryPassword: boolean): SecuritySummary => ({
      failedSignInsBeforeThisSession: {
        failedAttempts: 0,
        addresses: 0,
        moreAddresses: false,
        firstFailedAt: null,
        lastFailedAt: null,
      },
      temporaryPassword,
    });
    expect(accountStatus(methods(2, "on"), summary(false))).toEqual({
      text: "Password, passkeys, two-step: on",
      attention: null,
    });
    expect(accountStatus(methods(0, "off"), summary(false))).toEqual({
      text: "Password, two-step: off",
      attention: null,
    });
    expect(accountStatus(methods(0, "off"), summary(true)).attention).toBe("warning");
    expect(accountStatus(methods(0, "unreadable"), summary(false))).toEqual({
      text: "Two-step is off since a restore",
      attention: "warning",
    });
  });

  const backups: BackupStatus = {
    lastBackup: { at: minutesAgo(60), bytes: 1000, fileName: "x.tar.gz" },
    problem: null,
    lastDownloadAt: null,
    downloadReminder: false,
    schedule: { intervalHours: 24, keep: 7, nextDueAt: null },
    running: false,
    offsite: {
      configured: true,
      encrypted: true,
      state: "ok",
      intervalMinutes: 60,
      nextCopyAt: null,
      lastCopy: { at: minutesAgo(12), name: "x", sentBytes: 4096 },
      failing: null,
    },
    foreignBackups: [],
  };

  it("Backups: when the last copy left the server, the newer of the off-site copy and a download", () => {
    expect(backupsStatus(backups, NOW)).toEqual({ text: "Last copy off the server: 12 minutes ago", attention: null });
    expect(lastCopyOffServer({ ...backups, lastDownloadAt: minutesAgo(3) })).toBe(minutesAgo(3));
    expect(lastCopyOffServer({ ...backups, lastDownloadAt: minutesAgo(300) })).toBe(minutesAgo(12));
    const onlyDownloads = { ...backups, offsite: { ...backups.offsite, configured: false, lastCopy: null } };
    expect(backupsStatus({ ...onlyDownloads, lastDownloadAt: minutesAgo(2 * 24 * 60) }, NOW).text).toBe(
      "Last copy off the server: 2 days ago",
    );
    expect(
      backupsStatus({ ...onlyDownloads, lastDownloadAt: minutesAgo(45 * 24 * 60), downloadReminder: true }, NOW),
    ).toEqual({
      text: "Last copy off the server: 1 month ago",
      attention: "warning",
    });
    expect(backupsStatus(onlyDownloads, NOW)).toEqual({ text: "No copy off the server yet", attention: "warning" });
  });

  it("Backups: no download reminder while off-site copies leave, however long since the last download", () => {
    const remindedLongAgo = { ...backups, lastDownloadAt: minutesAgo(90 * 24 * 60), downloadReminder: true };
    expect(backupsStatus(remindedLongAgo, NOW)).toEqual({
      text: "Last copy off the server: 12 minutes ago",
      attention: null,
    });
  });

  it("Backups: a failed backup, failing off-site copies, no passphrase or no restic come first, in red", () => {
    expect(
      backupsStatus({ ...backups, problem: { at: minutesAgo(5), kind: "failed", message: "EACCES" } }, NOW),
    ).toEqual({
      text: "The last backup failed",
      attention: "danger",
    });
    const failing = { failures: 3, since: minutesAgo(200), lastFailedAt: minutesAgo(5), message: "503" };
    expect(backupsStatus({ ...backups, offsite: { ...backups.offsite, state: "failing", failing } }, NOW)).toEqual({
      text: "Copies are not leaving the server",
      attention: "danger",
    });
    const noPassphrase = { ...backups.offsite, encrypted: false, state: "no-passphrase" as const, lastCopy: null };
    expect(backupsStatus({ ...backups, offsite: noPassphrase }, NOW)).toEqual({
      text: "No copy leaves the server",
      attention: "danger",
    });
    const noRestic = { ...backups.offsite, state: "no-restic" as const };
    expect(backupsStatus({ ...backups, offsite: noRestic }, NOW)).toEqual({
      text: "No copy leaves the server",
      attention: "danger",
    });
  });

  it("Visits: this week's visitors, from Sunday", () => {
    const report = {
      enabled: true,
      today: "2026-06-10",
      days: [
        { day: "2026-06-06", visitors: 40, views: 80 },
        { day: "2026-06-07", visitors: 100, views: 200 },
        { day: "2026-06-10", visitors: 32, views: 50 },
      ],
      enquiriesPerWeek: [
        { weekStart: "2026-05-31", enquiries: 1 },
        { weekStart: "2026-06-07", enquiries: 2 },
      ],
    } as AnalyticsReport;
    expect(visitsStatus(report)).toEqual({ text: "132 visits this week", attention: null });
    expect(visitsStatus({ ...report, days: [{ day: "2026-06-10", visitors: 1, views: 1 }] }).text).toBe(
      "1 visit this week",
    );
    expect(visitsStatus({ ...report, enabled: false }).text).toBe("Visit counting is off");
  });

  it("Activity: failed sign-ins since the last one need a look", () => {
    const summary = (failedAttempts: number): SecuritySummary => ({
      failedSignInsBeforeThisSession: {
        failedAttempts,
        addresses: 1,
        moreAddresses: false,
        firstFailedAt: null,
        lastFailedAt: null,
      },
      temporaryPassword: false,
    });
    expect(activityStatus(summary(0))).toEqual({ text: "No failed sign-ins", attention: null });
    expect(activityStatus(summary(5))).toEqual({ text: "5 failed sign-ins since last time", attention: "warning" });
  });

  it("says how long ago in words", () => {
    expect(timeAgo(minutesAgo(0.5), NOW)).toBe("just now");
    expect(timeAgo(minutesAgo(1), NOW)).toBe("1 minute ago");
    expect(timeAgo(minutesAgo(12), NOW)).toBe("12 minutes ago");
    expect(timeAgo(minutesAgo(3 * 60 + 50), NOW)).toBe("3 hours ago");
  });
});
