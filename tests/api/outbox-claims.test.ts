// @same-on-every-backend: it picks its own database and storage, or runs scripts on a data directory
import { randomUUID } from "node:crypto";
import os from "node:os";
import { sql } from "kysely";
import { afterEach, beforeEach, describe, expect, inject, it } from "vitest";
import { openPostgresDatabase, type Database } from "~/db/database.server";
import { parseEnv } from "~/env.server";
import { createManualClock } from "~/lib/clock";
import { createLogger } from "~/lib/logger.server";
import { createSignal } from "~/lib/signal";
import { mailSetupFromEnv } from "~/notifications/mailer.server";
import { createLocalStorage } from "~/storage/local-storage.server";
import { claimNextDue } from "~/notifications/outbox-claims.server";
import { LEASE_MS, createOutbox } from "~/notifications/outbox.server";
import { createTestDatabase, type TestDatabase } from "../support/backends";
import { startSmtpServer } from "../support/smtp";

/**
 * Outbox workers on several instances share one PostgreSQL
 * database. Each claim is UPDATE … WHERE id IN (SELECT … FOR UPDATE SKIP
 * LOCKED) … RETURNING *, committed before any mail is sent. Two workers are
 * two connection pools (as two processes have), racing over the same rows.
 * PostgreSQL is chosen explicitly, so these run in both runs.
 */

const NOW = new Date("2026-03-01T10:00:00.000Z");
const HOUR = 60 * 60_000;

let database: TestDatabase;
let a: Database;
let b: Database;
beforeEach(async () => {
  const { postgresUrl, postgresTemplate } = inject("backends");
  database = await createTestDatabase(postgresUrl, { template: postgresTemplate });
  a = openPostgresDatabase(database.url);
  b = openPostgresDatabase(database.url);
});
afterEach(async () => {
  await a.destroy();
  await b.destroy();
  await database.drop();
});

const claimAt = (at: Date, token: string = randomUUID()) => ({
  now: at.toISOString(),
  leaseUntil: new Date(at.getTime() + LEASE_MS).toISOString(),
  token,
});

/**
 * Pending jobs, due at NOW (or, with a digest hour, held for that hour's digest). Their ids come
 * back in the order claims take them (due time, then id), so a test knows which job is first.
 */
async function queueJobs(
  count: number,
  options: { digestHour?: string; dueAt?: Date; payload?: string } = {},
): Promise<string[]> {
  const ids = Array.from({ length: count }, () => randomUUID()).toSorted();
  const at = (options.dueAt ?? NOW).toISOString();
  await a
    .insertInto("notification_jobs")
    .values(
      ids.map((id) => ({
        id,
        kind: options.digestHour ? "enquiry" : "sign-in",
        submission_id: null,
        payload: options.payload ?? "{}",
        status: "pending",
        attempts: 0,
        next_attempt_at: at,
        give_up_at: new Date(NOW.getTime() + 24 * HOUR).toISOString(),
        digest_hour: options.digestHour ?? null,
        created_at: NOW.toISOString(),
        updated_at: NOW.toISOString(),
      })),
    )
    .execute();
  return ids;
}

/**
 * Resolves "waiting" once `count` connections to the test database wait for a lock, or
 * "went on" once `wentOn()` holds (the claims did not wait). Polls pg_stat_activity.
 */
async function lockWaitersOr(db: Database, count: number, wentOn: () => boolean): Promise<"waiting" | "went on"> {
  for (;;) {
    if (wentOn()) return "went on";
    const { rows } = await sql<{ waiting: number }>`select count(*)::int as waiting from pg_stat_activity
      where datname = current_database() and wait_event_type = 'Lock'`.execute(db);
    if (rows[0]!.waiting >= count) return "waiting";
    await new Promise((resolve) => setTimeout(resolve, 5));
  }
}

/** Holds a row lock on a job, as a worker in the middle of claiming it does, until `release()`; then rolls back. */
async function holdJob(db: Database, id: string): Promise<{ release(): Promise<void> }> {
  let release!: () => void;
  const released = new Promise<void>((resolve) => (release = resolve));
  let locked!: () => void;
  const lockTaken = new Promise<void>((resolve) => (locked = resolve));
  const holding = db
    .transaction()
    .execute(async (trx) => {
      await sql`select id from notification_jobs where id = ${id} for update`.execute(trx);
      locked();
      await released;
      throw new Error("rolled back on purpose");
    })
    .catch(() => {});
  await lockTaken;
  return {
    async release() {
      release();
      await holding;
    },
  };
}

/** Claims until nothing is left, as a worker's pass does; each claim's job ids. */
async function drain(db: Database, at: Date): Promise<string[][]> {
  const claims: string[][] = [];
  for (;;) {
    const jobs = await claimNextDue(db, claimAt(at));
    if (jobs.length === 0) return claims;
    claims.push(jobs.map((job) => job.id));
  }
}

describe("outbox claims on PostgreSQL", () => {
  it("two workers racing over 60 due jobs claim each exactly once", async () => {
    const ids = await queueJobs(60);
    const [fromA, fromB] = await Promise.all([drain(a, NOW), drain(b, NOW)]);
    const claimed = [...fromA, ...fromB].flat();
    expect(claimed.toSorted()).toEqual(ids.toSorted());
    // Without a digest, one claim is one job.
    expect([...fromA, ...fromB].every((claim) => claim.length === 1)).toBe(true);
    // Every row carries the lease of the claim that took it.
    const leased = await a
      .selectFrom("notification_jobs")
      .select(["lease_token"])
      .where("lease_token", "is not", null)
      .execute();
    expect(leased).toHaveLength(60);
  });

  it("a job locked by another transaction is skipped at once, not waited for", async () => {
    // The ids sort in claim order: the locked job is the one a claim looks at first.
    const [first, second] = await queueJobs(2);
    const held = await holdJob(a, first!);
    let settled = false;
    const claimed = claimNextDue(b, claimAt(NOW)).finally(() => (settled = true));
    // A claim that waits for the lock shows in pg_stat_activity until the holder lets go.
    const outcome = await lockWaitersOr(a, 1, () => settled);
    await held.release();
    expect(outcome).toBe("went on");
    expect((await claimed).map((job) => job.id)).toEqual([second]);
  });

  it("one hour's digest is never split between workers", async () => {
    const hours = ["2026-03-01T07:00:00.000Z", "2026-03-01T08:00:00.000Z", "2026-03-01T09:00:00.000Z"];
    const groups = new Map<string, string[]>();
    for (const hour of hours)
      groups.set(hour, await queueJobs(8, { digestHour: hour, dueAt: new Date(new Date(hour).getTime() + HOUR) }));
    const singles = await queueJobs(10);

    const claims = (await Promise.all([drain(a, NOW), drain(b, NOW), drain(a, NOW), drain(b, NOW)])).flat();
    // Each digest came in one claim, whole; each single job in a claim of its own.
    const expected = [...[...groups.values()].map((group) => group.toSorted()), ...singles.map((id) => [id])];
    expect(claims.map((claim) => claim.toSorted()).toSorted((x, y) => x[0]!.localeCompare(y[0]!))).toEqual(
      expected.toSorted((x, y) => x[0]!.localeCompare(y[0]!)),
    );
  });

  it("a digest whose first row another worker holds is still claimed whole, by one of them", async () => {
    const hour = "2026-03-01T09:00:00.000Z";
    const group = await queueJobs(5, { digestHour: hour });
    // Many rounds of racing claims, from a fresh start each time.
    for (let round = 0; round < 10; round++) {
      await a.updateTable("notification_jobs").set({ lease_until: null, lease_token: null }).execute();
      const results = await Promise.all([
        claimNextDue(a, claimAt(NOW)),
        claimNextDue(b, claimAt(NOW)),
        claimNextDue(a, claimAt(NOW)),
      ]);
      const nonEmpty = results.filter((jobs) => jobs.length > 0);
      expect(nonEmpty).toHaveLength(1);
      expect(nonEmpty[0]!.map((job) => job.id).toSorted()).toEqual(group.toSorted());
    }
  });

  it("an expired lease is claimed again by another worker; an unexpired one is not", async () => {
    const [id] = await queueJobs(1);
    const first = await claimNextDue(a, claimAt(NOW, "worker-a"));
    expect(first.map((job) => [job.id, job.lease_token])).toEqual([[id, "worker-a"]]);
    expect(await claimNextDue(b, claimAt(new Date(NOW.getTime() + LEASE_MS - 1)))).toEqual([]);

    // Worker A died mid-send: once its lease has passed, B takes the job over.
    const takeover = await claimNextDue(b, claimAt(new Date(NOW.getTime() + LEASE_MS), "worker-b"));
    expect(takeover.map((job) => [job.id, job.lease_token])).toEqual([[id, "worker-b"]]);
  });

  it("jobs not yet due, or no longer pending, are left alone", async () => {
    await queueJobs(1, { dueAt: new Date(NOW.getTime() + 1) });
    const [done] = await queueJobs(1);
    await a.updateTable("notification_jobs").set({ status: "sent" }).where("id", "=", done!).execute();
    expect(await claimNextDue(a, claimAt(NOW))).toEqual([]);
  });
});

describe("two outbox workers on PostgreSQL", () => {
  it("send each sign-in alert exactly once, racing each other while a third holds the first job mid-claim", async () => {
    const smtp = await startSmtpServer();
    const c = openPostgresDatabase(database.url);
    try {
      const payload = JSON.stringify({ at: NOW.toISOString(), address: "192.0.2.10", userAgent: "Firefox" });
      const ids = await queueJobs(24, { payload });
      const env = parseEnv({
        DATA_DIR: os.tmpdir(),
        NODE_ENV: "test",
        LOG_LEVEL: "silent",
        SITE_URL: "http://stone.example.nz",
      });
      const mail = mailSetupFromEnv({
        SMTP_URL: smtp.url,
        MAIL_FROM: "Cornerstone <website@cornerstone.example.nz>",
        NOTIFY_EMAIL: "owner@example.nz",
      });
      const clock = createManualClock(NOW);
      const logger = createLogger({ level: "silent" });
      // Two workers, each with its own connection pool, as on two instances.
      // Sign-in alerts attach nothing: the store is never read.
      const storage = createLocalStorage({
        rootDir: os.tmpdir(),
        signingSecret: "unused-by-sign-in-alerts-0123456789",
      });
      const [workerA, workerB] = [a, b].map((db) =>
        createOutbox({ db, logger, clock, mail, env, storage, outboxWake: createSignal() }),
      );

      const held = await holdJob(c, ids[0]!);
      let passesEnded = false;
      const passes = Promise.all([workerA!.runDue(), workerB!.runDue()]).finally(() => (passesEnded = true));
      // Both passes either go past the held job, or (claims that wait for row locks) both wait for it.
      const outcome = await lockWaitersOr(c, 2, () => passesEnded);
      await held.release();
      const [fromA, fromB] = await passes;
      // The held job was let go unclaimed: the next passes send it.
      const [laterA, laterB] = await Promise.all([workerA!.runDue(), workerB!.runDue()]);

      // Exactly once: every alert's Message-ID arrived, none twice.
      const messageIds = smtp.messages.map((received) => received.header("message-id"));
      expect(messageIds.toSorted()).toEqual(ids.map((id) => `<sign-in-${id}@cornerstone.example.nz>`).toSorted());
      expect(messageIds).toHaveLength(24);
      const jobs = await a.selectFrom("notification_jobs").select(["status", "attempts"]).distinct().execute();
      expect(jobs).toEqual([{ status: "sent", attempts: 1 }]);
      // And without waiting: the held job was passed over, then sent once let go.
      expect(outcome).toBe("went on");
      expect([fromA!.sent + fromB!.sent, laterA!.sent + laterB!.sent]).toEqual([23, 1]);
    } finally {
      await c.destroy();
      await smtp.stop();
    }
  });
});
