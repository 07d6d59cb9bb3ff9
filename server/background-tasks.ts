import { pruneActivity } from "~/activity/activity-log.server";
import { refusalTallyFlush } from "~/activity/refusal-tally.server";
import { pruneExpiredSessions } from "~/auth/auth.server";
import { createBackupScheduler } from "~/backups/backup-scheduler.server";
import { createOffsiteSchedule, type OffsiteCopyRunner } from "~/backups/offsite-schedule.server";
import { createEnquiryPhotoRetention } from "~/enquiry-photos/enquiry-photo-retention.server";
import { every } from "~/lib/every";
import { pruneRateLimitCounters } from "~/db/rate-limit.server";
import { createOutbox } from "~/notifications/outbox.server";
import type { AppServices } from "~/services.server";
import { pruneStaleUploads } from "~/uploads/uploads.server";

/** One piece of background work: started once by server/start.ts, stopped once at shutdown. */
export type BackgroundTask = {
  name: string;
  /** Started once the server listens (the rest start before it does). */
  afterListening?: true;
  /** Resolves when the task is running (for some, after a first pass). */
  start(): Promise<void>;
  stop(): Promise<void>;
};

const HOUR_MS = 60 * 60_000;

/** Expired sessions, rate-limit counters, stale uploads, and security-log entries over a year old. */
async function housekeeping(services: AppServices): Promise<void> {
  await pruneExpiredSessions(services);
  await pruneRateLimitCounters(services);
  await pruneStaleUploads(services, services.clock);
  await pruneActivity(services);
}

/**
 * Every background task, in start order. At shutdown those started after listening stop first (a backup under
 * way is abandoned, leaving nothing half-made), then the others: a mail in progress finishes, counts are saved.
 */
export function backgroundTasks(
  services: AppServices,
  options: { offsiteRunner: OffsiteCopyRunner },
): BackgroundTask[] {
  const { env, logger } = services;
  const hourly = every(HOUR_MS, () => housekeeping(services), {
    runAtStart: true,
    onError: (error) => logger.warn({ err: error }, "housekeeping failed"),
  });
  // Notification e-mails; jobs left pending by the last run are sent at start.
  const outbox = createOutbox(services);
  const refusalTally = refusalTallyFlush(services);
  const retention = createEnquiryPhotoRetention(services);
  const backups = createBackupScheduler(services, { intervalHours: env.BACKUP_INTERVAL_HOURS, keep: env.BACKUP_KEEP });
  const offsite = createOffsiteSchedule(services, { runner: options.offsiteRunner });
  return [
    { name: "housekeeping", start: hourly.start, stop: hourly.stop },
    {
      name: "outbox",
      start: async () => {
        outbox.start();
        if (!services.mail)
          logger.warn("e-mail notifications are off: set SMTP_URL and MAIL_FROM to be e-mailed about enquiries");
      },
      stop: () => outbox.stop(),
    },
    // Visit counts: flushed every 10 s and at shutdown; each ended day's salt and visitor hashes deleted.
    { name: "analytics", start: () => services.analytics.start(), stop: () => services.analytics.stop() },
    // The security log's refused-attempt counts: written every 10 s and at shutdown.
    { name: "refusal tally", start: refusalTally.start, stop: refusalTally.stop },
    // Visitors' photos: deleted after ENQUIRY_PHOTO_DAYS, and when never sent with an enquiry (its first pass is not waited for).
    { name: "photo retention", start: async () => void retention.start(), stop: retention.stop },
    // Scheduled backups: claimed through the database, so one runs however many processes serve.
    { name: "backup scheduler", afterListening: true, start: async () => backups.start(), stop: () => backups.stop() },
    // Off-site copies: every BACKUP_OFFSITE_MINUTES and 5 minutes after this start, each in a process of its own.
    { name: "off-site copies", afterListening: true, start: () => offsite.start(), stop: () => offsite.stop() },
  ];
}

/** The order tasks stop in (see backgroundTasks). */
export function stopOrder(tasks: readonly BackgroundTask[]): BackgroundTask[] {
  return [...tasks.filter((task) => task.afterListening), ...tasks.filter((task) => !task.afterListening)];
}
