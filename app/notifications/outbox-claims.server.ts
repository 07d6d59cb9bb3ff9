import type { ExpressionBuilder, Kysely } from "kysely";
import { canSkipLockedRows, tryLockForTransaction } from "~/db/database.server";
import type { DatabaseSchema, NotificationJobRow } from "~/db/schema";
import { afterFailure } from "./retry-schedule";

/** Workers share notification_jobs by leases committed before any SMTP traffic (decision 0044). */

type Db = Kysely<DatabaseSchema>;

export type Claim = { now: string; leaseUntil: string; token: string };

const dueAndUnleased = (now: string) => (eb: ExpressionBuilder<DatabaseSchema, "notification_jobs">) =>
  eb.and([
    eb("status", "=", "pending"),
    eb("next_attempt_at", "<=", now),
    eb.or([eb("lease_until", "is", null), eb("lease_until", "<=", now)]),
  ]);

/**
 * Claims the next due job, or a whole hour's digest, before any mail is sent: FOR UPDATE SKIP LOCKED on
 * PostgreSQL, a conditional update on SQLite.
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
            if (busyHours.length)
              pick = pick.where((w) => w.or([w("digest_hour", "is", null), w("digest_hour", "not in", busyHours)]));
            return pick.orderBy("next_attempt_at").orderBy("id").limit(1).forUpdate().skipLocked();
          })
          .returningAll()
          .execute();
        const [job] = first;
        if (!job?.digest_hour) return first;
        // A digest is never split: one worker per hour claims the whole group. The others,
        // which may each hold one of its rows, roll back at once, so nobody waits in a cycle.
        if (!(await tryLockForTransaction(trx, `digest:${job.digest_hour}`)))
          throw new DigestTakenElsewhere(job.digest_hour);
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
      .where((eb) =>
        candidate.digest_hour ? eb("digest_hour", "=", candidate.digest_hour) : eb("id", "=", candidate.id),
      )
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

/** An ended job keeps nothing (a sign-in alert's address and browser were only for the mail). */
const ENDED_PAYLOAD = "{}";

/** Sent: recorded only while the lease is still this worker's. Returns how many rows it updated. */
export async function recordSent(db: Db, token: string, at: string, messageId: string): Promise<number> {
  const result = await db
    .updateTable("notification_jobs")
    .set((eb) => ({
      status: "sent",
      payload: ENDED_PAYLOAD,
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

export async function recordFailure(
  db: Db,
  job: NotificationJobRow,
  token: string,
  now: Date,
  error: string,
): Promise<"failed" | "pending"> {
  const next = afterFailure(job.attempts + 1, now, job.give_up_at);
  const at = now.toISOString();
  await db
    .updateTable("notification_jobs")
    .set((eb) => ({
      status: next.status,
      ...(next.status === "failed" ? { payload: ENDED_PAYLOAD } : {}),
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

/** After a restart or a good test mail, waiting retries go now, not up to an hour later; digests keep their hour. */
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
