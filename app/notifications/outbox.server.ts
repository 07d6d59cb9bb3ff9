import { randomUUID } from "node:crypto";
import type { ExpressionBuilder, Kysely } from "kysely";
import { readContent } from "~/content/content.server";
import { submissionFromRow, type ContactSubmission } from "~/contact/contact-fields";
import { canSkipLockedRows, tryLockForTransaction } from "~/db/database.server";
import type { DatabaseSchema, NotificationJobRow } from "~/db/schema";
import { identity } from "~/identity";
import { z } from "~/lib/zod";
import type { AppServices } from "~/services.server";
import { MailSendError, type MailSetup, type OutgoingMail } from "./mailer.server";
import {
  digestMail,
  enquiryMail,
  enquiryMessageId,
  messageIdFor,
  securityNoticeMail,
  signInAlertMail,
  testMail,
  type MailContext,
  type SignInForMail,
} from "./messages.server";
import type { NotificationsOverview } from "./notification-state";
import { afterFailure, giveUpTime } from "./retry-schedule";
import { securityNoticePayloadSchema } from "./security-notices.server";

/**
 * The mail outbox (issue 9, decision 0020). A notification is a row in
 * notification_jobs, written in the same transaction as what it reports, and a
 * worker sends due rows. Each send is claimed with a time-limited lease that
 * commits before any SMTP traffic; the result is recorded only while the lease
 * is still ours. Several workers (issue 12) may share the database safely.
 */

type Db = Kysely<DatabaseSchema>;
type OutboxServices = Pick<AppServices, "db" | "logger" | "clock" | "mail" | "outboxWake" | "env">;

/** A claim lasts this long; a worker that dies mid-send leaves the job to be retried after it. */
export const LEASE_MS = 5 * 60_000;
/** Issue 9 §1: at most this many notification e-mails per clock hour; the rest go in the hour's digest. */
export const HOURLY_CAP = 30;
/** Without a wake-up (e.g. a job queued by another instance), the worker looks this often. */
export const POLL_INTERVAL_MS = 5_000;
/** On shutdown, a send in progress gets this long to finish and be recorded. */
export const STOP_TIMEOUT_MS = 8_000;

const HOUR_MS = 60 * 60_000;
const hourStartOf = (time: Date) => new Date(Math.floor(time.getTime() / HOUR_MS) * HOUR_MS);

// ---------------------------------------------------------------------------------------------
// Queueing (inside the caller's transaction)

/**
 * Queues the e-mail about a new enquiry, in the transaction that stores it.
 * With notifications off the job is written as "off" and never sent, so
 * turning SMTP on later does not mail the backlog.
 */
export async function queueEnquiryNotification(
  trx: Db,
  services: Pick<AppServices, "mail">,
  submissionId: string,
  now: Date,
): Promise<void> {
  const at = now.toISOString();
  const on = services.mail !== null;
  await trx
    .insertInto("notification_jobs")
    .values({
      id: randomUUID(),
      kind: "enquiry",
      submission_id: submissionId,
      payload: "{}",
      status: on ? "pending" : "off",
      attempts: 0,
      next_attempt_at: on ? at : null,
      give_up_at: on ? giveUpTime(now) : null,
      // Stable: a retry after an unclear failure shows as the same mail.
      message_id: on ? enquiryMessageId(submissionId, services.mail!.from) : null,
      created_at: at,
      updated_at: at,
    })
    .execute();
}

const signInPayloadSchema = z.object({ at: z.string(), address: z.string(), userAgent: z.string() });

/**
 * Issue 9 §7: e-mails the owner about a sign-in (the sign-in route calls this
 * for a browser that has not signed in before). Goes through the outbox like
 * every notification; not queued at all while notifications are off.
 */
export async function queueSignInAlert(
  services: Pick<AppServices, "db" | "mail" | "outboxWake" | "clock">,
  signIn: { at: Date | string; address: string; userAgent: string },
): Promise<{ queued: boolean }> {
  if (!services.mail) return { queued: false };
  const now = services.clock.now();
  const id = randomUUID();
  const payload: SignInForMail = {
    at: new Date(signIn.at).toISOString(),
    address: signIn.address.slice(0, 100),
    userAgent: signIn.userAgent.slice(0, 500),
  };
  await services.db
    .insertInto("notification_jobs")
    .values({
      id,
      kind: "sign-in",
      submission_id: null,
      payload: JSON.stringify(payload),
      status: "pending",
      attempts: 0,
      next_attempt_at: now.toISOString(),
      give_up_at: giveUpTime(now),
      message_id: messageIdFor("sign-in", id, services.mail.from),
      created_at: now.toISOString(),
      updated_at: now.toISOString(),
    })
    .execute();
  services.outboxWake.notify();
  return { queued: true };
}

export type ResendOutcome = "queued" | "not-found" | "off" | "busy";

/**
 * The admin's Send again: a new attempt now, with a new Message-ID (providers
 * drop a repeated one) and a fresh 24-hour retry window. Refused while a
 * worker holds the job (a send is in progress).
 */
export async function resendEnquiryNotification(
  services: Pick<AppServices, "db" | "mail" | "outboxWake" | "clock">,
  submissionId: string,
): Promise<ResendOutcome> {
  const exists = await services.db.selectFrom("contact_submissions").select("id").where("id", "=", submissionId).executeTakeFirst();
  if (!exists) return "not-found";
  if (!services.mail) return "off";
  const now = services.clock.now();
  const at = now.toISOString();
  const fresh = {
    status: "pending",
    attempts: 0,
    next_attempt_at: at,
    give_up_at: giveUpTime(now),
    digest_hour: null,
    message_id: enquiryMessageId(submissionId, services.mail.from, randomUUID().slice(0, 8)),
    last_error: null,
    sent_at: null,
    updated_at: at,
  };
  const result = await services.db
    .insertInto("notification_jobs")
    .values({ id: randomUUID(), kind: "enquiry", submission_id: submissionId, payload: "{}", created_at: at, ...fresh })
    .onConflict((oc) =>
      oc
        .column("submission_id")
        .doUpdateSet(fresh)
        .where((eb) => eb.or([eb("notification_jobs.lease_until", "is", null), eb("notification_jobs.lease_until", "<=", at)])),
    )
    .executeTakeFirst();
  if (Number(result.numInsertedOrUpdatedRows ?? 0) === 0) return "busy";
  services.outboxWake.notify();
  return "queued";
}

// ---------------------------------------------------------------------------------------------
// Claiming (row locks on PostgreSQL, compare-and-set on SQLite) and recording (compare-and-set on the lease)

type Claim = { now: string; leaseUntil: string; token: string };

const dueAndUnleased = (now: string) => (eb: ExpressionBuilder<DatabaseSchema, "notification_jobs">) =>
  eb.and([
    eb("status", "=", "pending"),
    eb("next_attempt_at", "<=", now),
    eb.or([eb("lease_until", "is", null), eb("lease_until", "<=", now)]),
  ]);

/**
 * Claims the next due work: one job, or every job held for the same hour's
 * digest at once, committed before any mail is sent. PostgreSQL locks the
 * rows it picks (FOR UPDATE SKIP LOCKED), so racing workers each take other
 * work without waiting; SQLite claims with a conditional update that succeeds
 * only while the jobs are pending, due, and unleased (or their lease expired).
 */
export async function claimNextDue(db: Db, claim: Claim): Promise<NotificationJobRow[]> {
  return canSkipLockedRows(db) ? claimSkippingLocked(db, claim) : claimByConditionalUpdate(db, claim);
}

/** Rolls a claim's transaction back: another worker is taking this digest. */
class DigestTakenElsewhere extends Error {
  constructor(readonly hour: string) {
    super(`the digest of ${hour} is being claimed by another worker`);
  }
}

async function claimSkippingLocked(db: Db, claim: Claim): Promise<NotificationJobRow[]> {
  // Hours whose digest another worker is claiming right now: skipped in this call.
  const busyHours: string[] = [];
  for (let attempt = 0; attempt < 10; attempt++) {
    try {
      return await db.transaction().execute(async (trx) => {
        const lease = { lease_until: claim.leaseUntil, lease_token: claim.token, updated_at: claim.now };
        const first = await trx
          .updateTable("notification_jobs")
          .set(lease)
          .where("id", "in", (eb) => {
            let pick = eb.selectFrom("notification_jobs").select("id").where(dueAndUnleased(claim.now));
            if (busyHours.length) pick = pick.where((w) => w.or([w("digest_hour", "is", null), w("digest_hour", "not in", busyHours)]));
            return pick.orderBy("next_attempt_at").orderBy("id").limit(1).forUpdate().skipLocked();
          })
          .returningAll()
          .execute();
        const [job] = first;
        if (!job?.digest_hour) return first;
        // A digest is never split: one worker per hour claims the whole group. The others,
        // which may each hold one of its rows, roll back at once, so nobody waits in a cycle.
        if (!(await tryLockForTransaction(trx, `digest:${job.digest_hour}`))) throw new DigestTakenElsewhere(job.digest_hour);
        const rest = await trx
          .updateTable("notification_jobs")
          .set(lease)
          .where("digest_hour", "=", job.digest_hour)
          .where("id", "!=", job.id)
          .where(dueAndUnleased(claim.now))
          .returningAll()
          .execute();
        return [...first, ...rest].sort((a, b) => a.created_at.localeCompare(b.created_at) || a.id.localeCompare(b.id));
      });
    } catch (error) {
      if (!(error instanceof DigestTakenElsewhere)) throw error;
      busyHours.push(error.hour);
    }
  }
  return [];
}

async function claimByConditionalUpdate(db: Db, claim: Claim): Promise<NotificationJobRow[]> {
  const candidates = await db
    .selectFrom("notification_jobs")
    .select(["id", "digest_hour"])
    .where(dueAndUnleased(claim.now))
    .orderBy("next_attempt_at")
    .orderBy("id")
    .limit(10)
    .execute();
  for (const candidate of candidates) {
    const result = await db
      .updateTable("notification_jobs")
      .set({ lease_until: claim.leaseUntil, lease_token: claim.token, updated_at: claim.now })
      // A digest's jobs are claimed together, in one statement, so two workers never split one hour's digest.
      .where((eb) => (candidate.digest_hour ? eb("digest_hour", "=", candidate.digest_hour) : eb("id", "=", candidate.id)))
      .where(dueAndUnleased(claim.now))
      .executeTakeFirst();
    // Another worker won this one: try the next.
    if (Number(result.numUpdatedRows) === 0) continue;
    const jobs = await db
      .selectFrom("notification_jobs")
      .selectAll()
      .where("lease_token", "=", claim.token)
      .orderBy("created_at")
      .orderBy("id")
      .execute();
    if (jobs.length > 0) return jobs;
  }
  return [];
}

/** Sent: recorded only while the lease is still this worker's. Returns how many rows it updated. */
async function recordSent(db: Db, token: string, at: string, messageId: string): Promise<number> {
  const result = await db
    .updateTable("notification_jobs")
    .set((eb) => ({
      status: "sent",
      attempts: eb("attempts", "+", 1),
      sent_at: at,
      last_attempt_at: at,
      last_error: null,
      next_attempt_at: null,
      message_id: messageId,
      lease_until: null,
      lease_token: null,
      updated_at: at,
    }))
    .where("lease_token", "=", token)
    .executeTakeFirst();
  return Number(result.numUpdatedRows);
}

async function recordFailure(db: Db, job: NotificationJobRow, token: string, now: Date, error: string): Promise<"failed" | "pending"> {
  const next = afterFailure(job.attempts + 1, now, job.give_up_at);
  const at = now.toISOString();
  await db
    .updateTable("notification_jobs")
    .set((eb) => ({
      status: next.status,
      attempts: eb("attempts", "+", 1),
      next_attempt_at: next.nextAttemptAt,
      last_error: error,
      last_attempt_at: at,
      lease_until: null,
      lease_token: null,
      updated_at: at,
    }))
    .where("lease_token", "=", token)
    .execute();
  return next.status;
}

/** Over the cap: the job waits for the digest at the end of this clock hour. */
async function holdForDigest(db: Db, token: string, now: Date): Promise<void> {
  const hour = hourStartOf(now);
  const end = new Date(hour.getTime() + HOUR_MS);
  await db
    .updateTable("notification_jobs")
    .set({
      digest_hour: hour.toISOString(),
      next_attempt_at: end.toISOString(),
      give_up_at: giveUpTime(end),
      lease_until: null,
      lease_token: null,
      updated_at: now.toISOString(),
    })
    .where("lease_token", "=", token)
    .execute();
}

/**
 * Takes one of this hour's sends, counted in the database so that every
 * worker shares the cap: a conditional increment that fails at the cap.
 */
async function reserveHourlySend(db: Db, now: Date): Promise<boolean> {
  const hour = hourStartOf(now).toISOString();
  await db.insertInto("notification_hourly_sends").values({ hour, sends: 0 }).onConflict((oc) => oc.column("hour").doNothing()).execute();
  const result = await db
    .updateTable("notification_hourly_sends")
    .set((eb) => ({ sends: eb("sends", "+", 1) }))
    .where("hour", "=", hour)
    .where("sends", "<", HOURLY_CAP)
    .executeTakeFirst();
  return Number(result.numUpdatedRows) === 1;
}

/** A failed send did not use the provider's quota: its slot is given back. */
async function releaseHourlySend(db: Db, now: Date): Promise<void> {
  await db
    .updateTable("notification_hourly_sends")
    .set((eb) => ({ sends: eb("sends", "-", 1) }))
    .where("hour", "=", hourStartOf(now).toISOString())
    .where("sends", ">", 0)
    .execute();
}

/**
 * Retries waiting for their time are made due now: after a restart or a
 * successful test e-mail (the usual ways a broken setting gets fixed), the
 * queue flows at once instead of after up to an hour. Held digests keep their hour.
 */
export async function retryWaitingNow(db: Db, now: Date): Promise<number> {
  const at = now.toISOString();
  const result = await db
    .updateTable("notification_jobs")
    .set({ next_attempt_at: at, updated_at: at })
    .where("status", "=", "pending")
    .where("next_attempt_at", ">", at)
    .where("digest_hour", "is", null)
    .where((eb) => eb.or([eb("lease_until", "is", null), eb("lease_until", "<=", at)]))
    .executeTakeFirst();
  return Number(result.numUpdatedRows);
}

// ---------------------------------------------------------------------------------------------
// What each job sends

/** NOTIFY_EMAIL, else the e-mail the owner keeps in the contact.email text, else the business e-mail. */
export async function notificationRecipient(services: Pick<AppServices, "db" | "logger" | "mail">): Promise<string> {
  if (services.mail?.notifyEmail) return services.mail.notifyEmail;
  const { "contact.email": stored } = await readContent(services, ["contact.email"]);
  return z.email().safeParse(stored.trim()).success ? stored.trim() : identity.email;
}

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

export type RunSummary = { sent: number; retrying: number; failed: number; held: number };

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

export function createOutbox(services: OutboxServices, options: { pollIntervalMs?: number; leaseMs?: number } = {}): Outbox {
  const { db, logger, clock } = services;
  const leaseMs = options.leaseMs ?? LEASE_MS;
  let stopping = false;
  let timer: NodeJS.Timeout | null = null;
  let unsubscribe: (() => void) | null = null;
  let tail: Promise<unknown> = Promise.resolve();
  let queued: Promise<RunSummary> | null = null;
  let lastPrune = 0;

  const newClaim = (): Claim => {
    const now = clock.now();
    return { now: now.toISOString(), leaseUntil: new Date(now.getTime() + leaseMs).toISOString(), token: randomUUID() };
  };

  /** Sends one claimed job (or one hour's digest group) and records the outcome; never throws for a send failure. */
  async function processJobs(group: NotificationJobRow[], claim: Claim, mail: MailSetup, summary: RunSummary): Promise<void> {
    const job = group[0]!;
    let outgoing: OutgoingMail;
    let capped = false;
    const ctx = await mailContext(services, mail);

    if (job.digest_hour) {
      const enquiries = await enquiriesFor(db, group.map((member) => member.submission_id).filter((id): id is string => id !== null));
      // Every enquiry of the group was deleted since (their jobs went with them).
      if (enquiries.length === 0) return;
      const messageId = messageIdFor("digest", job.digest_hour.replace(/\D/g, "").slice(0, 12), mail.from);
      outgoing = digestMail(ctx, enquiries, job.digest_hour, messageId);
    } else if (job.kind === "enquiry") {
      const [enquiry] = await enquiriesFor(db, job.submission_id ? [job.submission_id] : []);
      if (!enquiry) return;
      if (!(await reserveHourlySend(db, clock.now()))) {
        await holdForDigest(db, claim.token, clock.now());
        summary.held += 1;
        return;
      }
      capped = true;
      outgoing = enquiryMail(ctx, enquiry, job.message_id ?? enquiryMessageId(enquiry.id, mail.from));
    } else {
      const payload = job.kind === "sign-in" ? signInPayloadSchema.safeParse(safeJson(job.payload)) : null;
      const notice = job.kind === "security" ? securityNoticePayloadSchema.safeParse(safeJson(job.payload)) : null;
      if (!payload?.success && !notice?.success) {
        // Nothing a retry could fix: failed at once.
        await recordFailure(db, { ...job, give_up_at: claim.now }, claim.token, clock.now(), `Unreadable ${job.kind} notification`);
        summary.failed += 1;
        return;
      }
      outgoing = notice?.success
        ? securityNoticeMail(ctx, notice.data, job.message_id ?? messageIdFor("security", job.id, mail.from))
        : signInAlertMail(ctx, payload!.data!, job.message_id ?? messageIdFor("sign-in", job.id, mail.from));
    }

    // No transaction is open here: the claim committed, and the result is written after.
    try {
      const sent = await mail.mailer.send(outgoing);
      const at = clock.now().toISOString();
      const recorded = await recordSent(db, claim.token, at, outgoing.messageId);
      summary.sent += group.length;
      if (recorded === 0) logger.warn({ jobId: job.id }, "notification sent, but its lease had passed to another worker");
      logger.info({ jobId: job.id, kind: job.kind, jobs: group.length, messageId: outgoing.messageId, response: sent.response }, "notification sent");
    } catch (error) {
      if (capped) await releaseHourlySend(db, clock.now());
      const reason = error instanceof MailSendError ? error.message : String((error as Error)?.message ?? error);
      const status = await recordFailure(db, job, claim.token, clock.now(), reason);
      if (status === "failed") summary.failed += group.length;
      else summary.retrying += group.length;
      logger.warn({ jobId: job.id, kind: job.kind, attempt: job.attempts + 1, status, err: reason }, "notification not sent");
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
        const before = new Date(hourStartOf(clock.now()).getTime() - 2 * HOUR_MS).toISOString();
        await db.deleteFrom("notification_hourly_sends").where("hour", "<", before).execute();
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

  return {
    start() {
      if (!services.mail || timer) return;
      stopping = false;
      unsubscribe = services.outboxWake.subscribe(() => void runDue());
      timer = setInterval(() => void runDue(), options.pollIntervalMs ?? POLL_INTERVAL_MS);
      timer.unref();
      logger.info({ transport: services.mail.mailer.description }, "mail outbox started");
      // A restart is often the fix for a broken setting: retries waiting for their time go now.
      tail = tail.then(() => retryWaitingNow(db, clock.now())).catch((error: unknown) => logger.warn({ err: error }, "could not bring retries forward"));
      void runDue();
    },
    async stop({ timeoutMs = STOP_TIMEOUT_MS } = {}) {
      stopping = true;
      if (timer) clearInterval(timer);
      timer = null;
      unsubscribe?.();
      unsubscribe = null;
      let timeout: NodeJS.Timeout | undefined;
      const gaveUp = new Promise<"timeout">((resolve) => (timeout = setTimeout(() => resolve("timeout"), timeoutMs)));
      const result = await Promise.race([tail.then(() => "done" as const), gaveUp]);
      clearTimeout(timeout);
      if (result === "timeout") logger.warn("a notification was still being sent at shutdown; it is retried after its lease");
    },
    runDue,
  };
}

// ---------------------------------------------------------------------------------------------
// The admin's view of it

/** For the dashboard's notice: on or off, where mail goes, and how the last attempt went. */
export async function notificationsOverview(services: Pick<AppServices, "db" | "logger" | "mail">): Promise<NotificationsOverview> {
  const last = await services.db
    .selectFrom("notification_jobs")
    .select(["last_attempt_at", "last_error", "status"])
    .where("last_attempt_at", "is not", null)
    .orderBy("last_attempt_at", "desc")
    .limit(1)
    .executeTakeFirst();
  const failed = await services.db
    .selectFrom("notification_jobs")
    .select((eb) => eb.fn.countAll().as("count"))
    .where("status", "=", "failed")
    .executeTakeFirstOrThrow();
  return {
    enabled: services.mail !== null,
    recipient: await notificationRecipient(services),
    lastAttempt: last?.last_attempt_at
      ? { at: last.last_attempt_at, ok: last.status === "sent" || last.last_error === null, error: last.last_error }
      : null,
    failed: Number(failed.count),
  };
}

/** The dashboard's Send test e-mail: sent at once (not queued), reporting the server's exact error. */
export async function sendTestMail(
  services: Pick<AppServices, "db" | "logger" | "mail" | "clock" | "env" | "outboxWake">,
): Promise<{ ok: true; to: string } | { ok: false; message: string }> {
  const mail = services.mail;
  if (!mail) return { ok: false, message: "E-mail notifications are off: set SMTP_URL and MAIL_FROM, then restart the server." };
  const to = await notificationRecipient(services);
  const outgoing = testMail({ from: mail.from, to, siteUrl: services.env.SITE_URL }, services.clock.now().toISOString(), messageIdFor("test", randomUUID(), mail.from));
  try {
    await mail.mailer.send(outgoing);
    services.logger.info({ to }, "test e-mail sent");
    // Mail goes through again: whatever waits for a retry is sent now.
    if ((await retryWaitingNow(services.db, services.clock.now())) > 0) services.outboxWake.notify();
    return { ok: true, to };
  } catch (error) {
    const message = error instanceof MailSendError ? error.message : String((error as Error)?.message ?? error);
    services.logger.warn({ err: message }, "test e-mail not sent");
    return { ok: false, message };
  }
}
