import { randomUUID } from "node:crypto";
import type { Kysely } from "kysely";
import { submissionFromRow, type ContactSubmission } from "~/notifications/enquiry-fields";
import type { DatabaseSchema, NotificationJobRow } from "~/db/schema";
import { enquiryPhotosOf } from "~/enquiry-photos/enquiry-photos.server";
import { every } from "~/lib/every";
import type { AppServices } from "~/services.server";
import { MailSendError, type MailSetup, type OutgoingMail } from "./mailer.server";
import { digestMail, enquiryMail, morePhotosMail } from "./enquiry-mails.server";
import { openEnquiryPhotoAttachments, type OpenedPhotos } from "./enquiry-photo-attachments.server";
import {
  enquiryMessageId,
  messageIdFor,
  OFFSITE_FAILING_KIND,
  offsiteFailingMail,
  securityNoticeMail,
  signInAlertMail,
  type MailContext,
} from "./messages.server";
import { notificationRecipient } from "./outbox-admin.server";
import { claimNextDue, recordFailure, recordSent, retryWaitingNow, type Claim } from "./outbox-claims.server";
import { HOUR_MS, holdForDigest, pruneHourlySends, releaseHourlySend, reserveHourlySend } from "./outbox-digest.server";
import { MORE_PHOTOS_KIND, morePhotosPayloadSchema, signInPayloadSchema } from "./outbox-queue.server";
import { securityNoticePayloadSchema } from "./security-notices.server";

/**
 * The mail outbox's worker (decision 0020): sends due notification_jobs rows under leases
 * (outbox-claims.server.ts), the hourly cap aside (outbox-digest.server.ts). Several may share a database.
 */

type Db = Kysely<DatabaseSchema>;
type OutboxServices = Pick<AppServices, "db" | "logger" | "clock" | "mail" | "outboxWake" | "env" | "storage">;

/** A claim lasts this long; a worker that dies mid-send leaves the job to be retried after it. */
export const LEASE_MS = 5 * 60_000;
/** Without a wake-up (e.g. a job queued by another instance), the worker looks this often. */
const POLL_INTERVAL_MS = 5_000;
/** On shutdown, a send in progress gets this long to finish and be recorded. */
const STOP_TIMEOUT_MS = 8_000;

async function mailContext(services: OutboxServices, mail: MailSetup): Promise<MailContext> {
  return { from: mail.from, to: await notificationRecipient(services), siteUrl: services.env.SITE_URL };
}

async function enquiriesFor(db: Db, submissionIds: string[]): Promise<ContactSubmission[]> {
  if (submissionIds.length === 0) return [];
  const rows = await db
    .selectFrom("contact_submissions")
    .selectAll()
    .where("id", "in", submissionIds)
    .orderBy("submitted_at")
    .orderBy("id")
    .execute();
  return rows.map(submissionFromRow);
}

function safeJson(text: string): unknown {
  try {
    return JSON.parse(text);
  } catch {
    return null;
  }
}

type RunSummary = { sent: number; retrying: number; failed: number; held: number };

// ---------------------------------------------------------------------------------------------
// The worker

export type Outbox = {
  /** Sends what is due now (jobs left from before a restart too), then on every wake-up and poll. */
  start(): void;
  /** Stops; a send in progress is finished and recorded first (up to `timeoutMs`). */
  stop(options?: { timeoutMs?: number }): Promise<void>;
  /** One pass over every job due now; a call during a pass runs one more pass after it. */
  runDue(): Promise<RunSummary>;
};

export function createOutbox(
  services: OutboxServices,
  options: { pollIntervalMs?: number; leaseMs?: number } = {},
): Outbox {
  const { db, logger, clock } = services;
  const leaseMs = options.leaseMs ?? LEASE_MS;
  let stopping = false;
  let unsubscribe: (() => void) | null = null;
  let tail: Promise<unknown> = Promise.resolve();
  let queued: Promise<RunSummary> | null = null;
  let lastPrune = 0;

  const newClaim = (): Claim => {
    const now = clock.now();
    return { now: now.toISOString(), leaseUntil: new Date(now.getTime() + leaseMs).toISOString(), token: randomUUID() };
  };

  /** Sends one claimed job (or one hour's digest group) and records the outcome; never throws for a send failure. */
  async function processJobs(
    group: NotificationJobRow[],
    claim: Claim,
    mail: MailSetup,
    summary: RunSummary,
  ): Promise<void> {
    const job = group[0]!;
    let outgoing: OutgoingMail;
    let capped = false;
    let photos: OpenedPhotos | null = null;
    const ctx = await mailContext(services, mail);

    if (job.digest_hour) {
      const enquiries = await enquiriesFor(
        db,
        group.map((member) => member.submission_id).filter((id): id is string => id !== null),
      );
      // Every enquiry of the group was deleted since (their jobs went with them).
      if (enquiries.length === 0) return;
      const messageId = messageIdFor("digest", job.digest_hour.replace(/\D/g, "").slice(0, 12), mail.from);
      // A digest carries no photos: it says how many and links to the inbox.
      const photos = await enquiryPhotosOf(
        services,
        enquiries.map((enquiry) => enquiry.id),
      );
      const photoCounts = new Map([...photos].map(([id, list]) => [id, list.length]));
      outgoing = digestMail(ctx, enquiries, job.digest_hour, messageId, photoCounts);
    } else if (job.kind === "enquiry") {
      const [enquiry] = await enquiriesFor(db, job.submission_id ? [job.submission_id] : []);
      if (!enquiry) return;
      if (!(await reserveHourlySend(db, clock.now()))) {
        await holdForDigest(db, claim.token, clock.now());
        summary.held += 1;
        return;
      }
      capped = true;
      photos = await openEnquiryPhotoAttachments(services, enquiry.id);
      outgoing = enquiryMail(ctx, enquiry, job.message_id ?? enquiryMessageId(enquiry.id, mail.from), photos);
    } else if (job.kind === MORE_PHOTOS_KIND) {
      const more = morePhotosPayloadSchema.safeParse(safeJson(job.payload));
      const [enquiry] = await enquiriesFor(db, more.success ? [more.data.submissionId] : []);
      // The enquiry was deleted since: there is nothing left to send.
      if (!enquiry) {
        await db.deleteFrom("notification_jobs").where("id", "=", job.id).execute();
        return;
      }
      photos = await openEnquiryPhotoAttachments(services, enquiry.id, more.data!.from);
      outgoing = morePhotosMail(ctx, enquiry, job.message_id ?? messageIdFor(job.kind, job.id, mail.from), photos);
    } else if (job.kind === OFFSITE_FAILING_KIND) {
      outgoing = offsiteFailingMail(
        ctx,
        safeJson(job.payload),
        job.message_id ?? messageIdFor(job.kind, job.id, mail.from),
      );
    } else {
      const payload = job.kind === "sign-in" ? signInPayloadSchema.safeParse(safeJson(job.payload)) : null;
      const notice = job.kind === "security" ? securityNoticePayloadSchema.safeParse(safeJson(job.payload)) : null;
      if (!payload?.success && !notice?.success) {
        // Nothing a retry could fix: failed at once.
        await recordFailure(
          db,
          { ...job, give_up_at: claim.now },
          claim.token,
          clock.now(),
          `Unreadable ${job.kind} notification`,
        );
        summary.failed += 1;
        return;
      }
      outgoing = notice?.success
        ? securityNoticeMail(
            { ...ctx, to: notice.data.to ?? ctx.to },
            notice.data,
            job.message_id ?? messageIdFor("security", job.id, mail.from),
          )
        : signInAlertMail(ctx, payload!.data!, job.message_id ?? messageIdFor("sign-in", job.id, mail.from));
    }

    // No transaction is open here: the claim committed, and the result is written after.
    try {
      const sent = await mail.mailer.send(outgoing);
      const at = clock.now().toISOString();
      const recorded = await recordSent(db, claim.token, at, outgoing.messageId);
      summary.sent += group.length;
      if (recorded === 0)
        logger.warn({ jobId: job.id }, "notification sent, but its lease had passed to another worker");
      logger.info(
        { jobId: job.id, kind: job.kind, jobs: group.length, messageId: outgoing.messageId, response: sent.response },
        "notification sent",
      );
    } catch (error) {
      if (capped) await releaseHourlySend(db, clock.now());
      const reason = error instanceof MailSendError ? error.message : String((error as Error)?.message ?? error);
      const status = await recordFailure(db, job, claim.token, clock.now(), reason);
      if (status === "failed") summary.failed += group.length;
      else summary.retrying += group.length;
      logger.warn(
        { jobId: job.id, kind: job.kind, attempt: job.attempts + 1, status, err: reason },
        "notification not sent",
      );
    } finally {
      photos?.close();
    }
  }

  async function pass(): Promise<RunSummary> {
    const summary: RunSummary = { sent: 0, retrying: 0, failed: 0, held: 0 };
    const mail = services.mail;
    if (!mail) return summary;
    try {
      while (!stopping) {
        const claim = newClaim();
        const jobs = await claimNextDue(db, claim);
        if (jobs.length === 0) break;
        await processJobs(jobs, claim, mail, summary);
      }
      const now = clock.now().getTime();
      if (now - lastPrune >= HOUR_MS) {
        lastPrune = now;
        await pruneHourlySends(db, clock.now());
      }
    } catch (error) {
      // A database hiccup: the claimed job's lease runs out and it is tried again.
      logger.error({ err: error }, "mail outbox pass failed");
    }
    return summary;
  }

  function runDue(): Promise<RunSummary> {
    if (queued) return queued;
    const next = tail.then(() => {
      queued = null;
      return pass();
    });
    queued = next;
    tail = next;
    return next;
  }

  // The poll is a safety net behind the wake-ups; pass() reports its own failures.
  const poll = every(options.pollIntervalMs ?? POLL_INTERVAL_MS, runDue, {
    onError: (error) => logger.error({ err: error }, "mail outbox pass failed"),
  });

  return {
    start() {
      if (!services.mail || unsubscribe) return;
      stopping = false;
      unsubscribe = services.outboxWake.subscribe(() => void runDue());
      void poll.start();
      logger.info({ transport: services.mail.mailer.description }, "mail outbox started");
      // A restart is often the fix for a broken setting: retries waiting for their time go now.
      tail = tail
        .then(() => retryWaitingNow(db, clock.now()))
        .catch((error: unknown) => logger.warn({ err: error }, "could not bring retries forward"));
      void runDue();
    },
    async stop({ timeoutMs = STOP_TIMEOUT_MS } = {}) {
      stopping = true;
      void poll.stop();
      unsubscribe?.();
      unsubscribe = null;
      let timeout: NodeJS.Timeout | undefined;
      const gaveUp = new Promise<"timeout">((resolve) => (timeout = setTimeout(() => resolve("timeout"), timeoutMs)));
      const result = await Promise.race([tail.then(() => "done" as const), gaveUp]);
      clearTimeout(timeout);
      if (result === "timeout")
        logger.warn("a notification was still being sent at shutdown; it is retried after its lease");
    },
    runDue,
  };
}
