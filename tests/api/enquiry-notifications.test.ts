import { sql, type KyselyPlugin } from "kysely";
import supertest from "supertest";
import { afterEach, describe, expect, it } from "vitest";
import { formatSubmittedAt } from "~/lib/format-date";
import { identity } from "~/identity";
import { claimNextDue } from "~/notifications/outbox-claims.server";
import { HOURLY_CAP } from "~/notifications/outbox-digest.server";
import { queueSignInAlert } from "~/notifications/outbox-queue.server";
import { LEASE_MS, createOutbox } from "~/notifications/outbox.server";
import { createLogger } from "~/lib/logger.server";
import { openServices } from "../../server/bootstrap";
import { startSmtpServer, type TestSmtpServer } from "../support/smtp";
import { until } from "../support/until";
import { ADMIN } from "./helpers";
import { MAIL_FROM, NOTIFY_EMAIL, SITE_URL, createMailContext, type MailContext } from "./mail-helpers";

/** Every enquiry reaches the owner's mailbox, through a real SMTP server. */

let ctx: MailContext | null = null;
let smtp: TestSmtpServer | null = null;
afterEach(async () => {
  await ctx?.close();
  await smtp?.stop();
  ctx = null;
  smtp = null;
});

async function setUp(options: { auth?: { user: string; pass: string }; smtpUrl?: string } = {}) {
  smtp = await startSmtpServer({ auth: options.auth });
  ctx = await createMailContext({ smtpUrl: options.smtpUrl ?? smtp.url });
  return { smtp, ctx };
}

/** Every row of every table of this run's database (either engine), as one text to search. */
async function everyTableAsText(services: MailContext["services"]): Promise<string> {
  const tables = await services.db.introspection.getTables();
  expect(tables.map((table) => table.name)).toContain("notification_jobs");
  const dumps: string[] = [];
  for (const table of tables) {
    const name = table.schema ? `${table.schema}.${table.name}` : table.name;
    const { rows } = await sql`select * from ${sql.table(name)}`.execute(services.db);
    dumps.push(`${name}: ${JSON.stringify(rows)}`);
  }
  return dumps.join("\n");
}

const SECOND = 1000;
const MINUTE = 60 * SECOND;
const HOUR = 60 * MINUTE;

describe("the notification e-mail", () => {
  it("reaches NOTIFY_EMAIL with the subject, Reply-To, Message-ID and a plain-text and HTML body", async () => {
    const { smtp, ctx } = await setUp();
    const res = await ctx.api
      .post("/api/contact")
      .send({
        name: "Aroha Smith",
        email: "aroha@example.co.nz",
        phone: "027 123 4567",
        message: "Kia ora,\nWe need a basalt wall <about 12 m> & steps.",
      })
      .expect(201);
    const id = res.body.id as string;
    expect((await ctx.item(id)).notification).toMatchObject({ status: "pending", attempts: 0 });

    expect(await ctx.outbox.runDue()).toMatchObject({ sent: 1 });
    const [mail] = await smtp.waitForMessages(1);
    expect(mail!.envelope).toEqual({ from: "website@cornerstone.example.nz", to: [NOTIFY_EMAIL] });
    expect(mail!.subject).toBe("New enquiry from Aroha Smith");
    expect(mail!.header("reply-to")).toBe("Aroha Smith <aroha@example.co.nz>");
    expect(mail!.header("from")).toBe(MAIL_FROM);
    expect(mail!.header("to")).toBe(NOTIFY_EMAIL);
    expect(mail!.header("message-id")).toBe(`<enquiry-${id}@cornerstone.example.nz>`);

    // 20:00 UTC on 28 February is 9:00 AM on 1 March in New Zealand (daylight time).
    const when = "March 1st, 2026 at 9:00 AM (New Zealand Daylight Time)";
    expect(formatSubmittedAt(ctx.clock.now(), { timeZone: identity.timeZone })).toBe("March 1st, 2026 at 9:00 AM");
    for (const part of [
      "Aroha Smith",
      "aroha@example.co.nz",
      "027 123 4567",
      "tel:0271234567",
      when,
      "Kia ora,\nWe need a basalt wall <about 12 m> & steps.",
      `${SITE_URL}/admin?view=submissions`,
    ]) {
      expect(mail!.text).toContain(part);
    }
    expect(mail!.html).toContain('href="tel:0271234567"');
    expect(mail!.html).toContain('href="mailto:aroha@example.co.nz"');
    expect(mail!.html).toContain(when);
    expect(mail!.html).toContain("We need a basalt wall &lt;about 12 m&gt; &amp; steps.");
    expect(mail!.html).toContain(`href="${SITE_URL}/admin?view=submissions"`);

    const item = await ctx.item(id);
    expect(item.notification).toEqual({
      status: "sent",
      attempts: 1,
      lastError: null,
      nextAttemptAt: null,
      sentAt: ctx.clock.now().toISOString(),
      inDigest: false,
    });
    // Nothing more to send: a second pass sends nothing.
    expect(await ctx.outbox.runDue()).toMatchObject({ sent: 0 });
    expect(smtp.messages).toHaveLength(1);
  });

  it("escapes visitor text in the HTML, and CR/LF in a name or e-mail can add no header or recipient", async () => {
    const { smtp, ctx } = await setUp();
    const name = "Eve\r\nBcc: victim@evil.example\r\nX-Injected: yes";
    await ctx.api
      .post("/api/contact")
      .send({ name, email: "eve@example.com", message: "<img src=x onerror=alert(1)> please call" })
      .expect(201);
    // An address with CR/LF never passes the form's schema; stored anyway (an older record, a bug), it must still be harmless.
    const stored = await ctx.enquire({ name: "Mallory", email: "mallory@example.com" });
    await ctx.services.db
      .updateTable("contact_submissions")
      .set({ email: "mallory@example.com\r\nBcc: victim2@evil.example", name: "Mallory\nCc: victim3@evil.example" })
      .where("id", "=", stored.id)
      .execute();

    await ctx.outbox.runDue();
    const mails = await smtp.waitForMessages(2);
    expect(mails).toHaveLength(2);
    for (const mail of mails) {
      expect(mail.envelope.to).toEqual([NOTIFY_EMAIL]);
      expect(mail.headerCount("bcc")).toBe(0);
      expect(mail.headerCount("cc")).toBe(0);
      expect(mail.headerCount("x-injected")).toBe(0);
      const head = mail.raw.slice(0, mail.raw.indexOf("\r\n\r\n"));
      expect(head).not.toMatch(/^(bcc|cc|x-injected):/im);
      expect(mail.text).not.toMatch(/^(bcc|cc):/im);
    }
    const eve = mails.find((mail) => mail.subject.startsWith("New enquiry from Eve"))!;
    expect(eve.subject).toBe("New enquiry from Eve Bcc: victim@evil.example X-Injected: yes");
    expect(eve.header("reply-to")).toMatch(/<eve@example\.com>$/);
    expect(eve.html).toContain("&lt;img src=x onerror=alert(1)&gt; please call");
    expect(eve.html).not.toContain("<img");
    const mallory = mails.find((mail) => mail.subject.startsWith("New enquiry from Mallory"))!;
    expect(mallory.subject).toBe("New enquiry from Mallory Cc: victim3@evil.example");
    // Not a valid single address: no Reply-To at all rather than a forged one.
    expect(mallory.headerCount("reply-to")).toBe(0);
  });

  it("goes to the contact e-mail the owner keeps in the site's text when NOTIFY_EMAIL is unset, then to the identity's", async () => {
    smtp = await startSmtpServer();
    ctx = await createMailContext({ smtpUrl: smtp.url, env: { NOTIFY_EMAIL: "" } });
    await ctx.enquire({ name: "First" });
    await ctx.outbox.runDue();
    expect((await smtp.waitForMessages(1))[0]!.envelope.to).toEqual([identity.email]);

    await ctx.admin.put("/api/admin/content/contact.email").send({ content: "mark@stone.example.nz" }).expect(200);
    await ctx.enquire({ name: "Second" });
    await ctx.outbox.runDue();
    // The change of address is itself e-mailed (to the old and the new address), in its own time: pick the enquiry's mail.
    const server = smtp;
    const secondMail = () => server.messages.find((mail) => mail.subject.startsWith("New enquiry from Second"));
    await until(() => secondMail() !== undefined);
    const second = secondMail()!;
    expect(second.envelope.to).toEqual(["mark@stone.example.nz"]);
  });
});

describe("the enquiry and its job: one transaction", () => {
  it("when the job cannot be written, the enquiry is not stored either, and the visitor gets a JSON 500", async () => {
    const { ctx } = await setUp();
    // Break the outbox table's insert: the transaction must roll the enquiry back with it.
    await ctx.services.db.schema.alterTable("notification_jobs").renameTo("notification_jobs_gone").execute();
    const res = await ctx.api
      .post("/api/contact")
      .send({ name: "Half", email: "half@example.nz", message: "Store me whole or not at all." })
      .expect(500);
    expect(res.body).toEqual({ message: "Something went wrong on our side. Please try again." });
    expect(await ctx.services.db.selectFrom("contact_submissions").selectAll().execute()).toEqual([]);
    await ctx.services.db.schema.alterTable("notification_jobs_gone").renameTo("notification_jobs").execute();
  });
});

describe("delivery: retries, restarts and exactly one copy", () => {
  it("with the SMTP server down: the visitor sees success, the admin shows the retry, and the mail arrives once it is back", async () => {
    const { smtp, ctx } = await setUp();
    await smtp.stop();
    const res = await ctx.api
      .post("/api/contact")
      .send({ name: "Tama", email: "tama@example.nz", message: "Retaining wall quote please." })
      .expect(201);
    expect(res.body).toEqual({ message: "Message received", id: expect.any(String) });
    expect(await ctx.outbox.runDue()).toMatchObject({ sent: 0, retrying: 1 });

    const retrying = await ctx.item(res.body.id);
    expect(retrying.notification).toMatchObject({
      status: "pending",
      attempts: 1,
      nextAttemptAt: new Date(ctx.clock.now().getTime() + 30 * SECOND).toISOString(),
      lastError: expect.stringContaining("ECONNREFUSED"),
    });
    // Not due yet: nothing is tried before its time.
    ctx.clock.advance(29 * SECOND);
    expect(await ctx.outbox.runDue()).toMatchObject({ sent: 0, retrying: 0 });

    await smtp.start();
    ctx.clock.advance(1 * SECOND);
    expect(await ctx.outbox.runDue()).toMatchObject({ sent: 1 });
    const [mail] = await smtp.waitForMessages(1);
    expect(mail!.subject).toBe("New enquiry from Tama");
    // The same Message-ID a first success would have had.
    expect(mail!.header("message-id")).toBe(`<enquiry-${res.body.id}@cornerstone.example.nz>`);
    expect((await ctx.item(res.body.id)).notification).toMatchObject({ status: "sent", attempts: 2, lastError: null });
  });

  it("a restart of our server while retrying: the mail arrives after it", async () => {
    const setup = await setUp();
    await setup.smtp.stop();
    const { id } = await setup.ctx.enquire({ name: "Hemi" });
    await setup.ctx.outbox.runDue();
    expect((await setup.ctx.item(id)).notification).toMatchObject({ status: "pending", attempts: 1 });

    ctx = await setup.ctx.restart();
    await setup.smtp.start();
    ctx.clock.advance(30 * SECOND);
    ctx.outbox.start();
    const [mail] = await setup.smtp.waitForMessages(1);
    expect(mail!.subject).toBe("New enquiry from Hemi");
    await ctx.outbox.stop();
    expect((await ctx.item(id)).notification).toMatchObject({ status: "sent" });
  });

  it("after a restart or a successful test e-mail (how a setting gets fixed), a retry waiting for its hour goes at once", async () => {
    const auth = { user: "website", pass: "right" };
    smtp = await startSmtpServer({ auth });
    const broken = await createMailContext({ smtpUrl: `smtp://website:wrong@127.0.0.1:${smtp.port}` });
    const { id } = await broken.enquire({ name: "Waiting an hour" });
    // Four failures: the next try is an hour away.
    for (const wait of [0, 30 * SECOND, 2 * MINUTE, 10 * MINUTE]) {
      broken.clock.advance(wait);
      await broken.outbox.runDue();
    }
    expect((await broken.item(id)).notification).toMatchObject({
      status: "pending",
      attempts: 4,
      nextAttemptAt: new Date(broken.clock.now().getTime() + HOUR).toISOString(),
    });

    // The owner fixes SMTP_URL and restarts: no waiting for the hour.
    ctx = await broken.restart({ smtpUrl: smtp.url });
    ctx.outbox.start();
    await smtp.waitForMessages(1);
    await ctx.outbox.stop();
    expect((await ctx.item(id)).notification).toMatchObject({ status: "sent", attempts: 5 });

    // A test e-mail that goes through does the same.
    await smtp.stop();
    const { id: second } = await ctx.enquire({ name: "After the test" });
    const worker = createOutbox(ctx.services);
    await worker.runDue();
    expect((await ctx.item(second)).notification).toMatchObject({ status: "pending", attempts: 1 });
    await smtp.start();
    await ctx.admin.post("/api/admin/notifications/test").expect(200);
    expect((await ctx.item(second)).notification).toMatchObject({
      status: "pending",
      nextAttemptAt: ctx.clock.now().toISOString(),
    });
    await worker.runDue();
    const mails = await smtp.waitForMessages(3);
    expect(mails.map((mail) => mail.subject).slice(1)).toEqual([
      `Test e-mail from the ${identity.businessName} website`,
      "New enquiry from After the test",
    ]);
  });

  it("jobs pending at a restart are sent when the outbox starts again", async () => {
    const setup = await setUp();
    const { id } = await setup.ctx.enquire({ name: "Queued before the restart" });
    ctx = await setup.ctx.restart();
    ctx.outbox.start();
    await setup.smtp.waitForMessages(1);
    await ctx.outbox.stop();
    expect((await ctx.item(id)).notification).toMatchObject({ status: "sent" });
  });

  it("a graceful restart during a send finishes and records it: one copy, never sent again", async () => {
    const setup = await setUp();
    const { id } = await setup.ctx.enquire({ name: "Only once" });
    const held = setup.smtp.holdNext();
    const pass = setup.ctx.outbox.runDue();
    await held.arrived;
    // SIGTERM arrives mid-send: stop waits for the send to finish and be recorded.
    const stopped = setup.ctx.outbox.stop();
    held.release();
    await stopped;
    expect(await pass).toMatchObject({ sent: 1 });
    expect((await setup.ctx.item(id)).notification).toMatchObject({ status: "sent" });

    ctx = await setup.ctx.restart();
    ctx.clock.advance(2 * HOUR);
    expect(await ctx.outbox.runDue()).toMatchObject({ sent: 0 });
    expect(setup.smtp.messages).toHaveLength(1);
  });

  it("two workers on one database send each mail once: a job is claimed with a lease", async () => {
    const { smtp, ctx } = await setUp();
    for (let i = 0; i < 6; i++) await ctx.enquire({ name: `Visitor ${i}` });
    const other = createOutbox(ctx.services);
    const [a, b] = await Promise.all([ctx.outbox.runDue(), other.runDue()]);
    expect(a.sent + b.sent).toBe(6);
    expect(smtp.messages.map((mail) => mail.subject).sort()).toEqual(
      [0, 1, 2, 3, 4, 5].map((i) => `New enquiry from Visitor ${i}`).sort(),
    );
  });

  it("retries after 30 s, 2 min, 10 min, 1 h, then hourly; after 24 h the job is failed, and Send again uses a new Message-ID", async () => {
    const { smtp, ctx } = await setUp();
    await smtp.stop();
    const { id } = await ctx.enquire({ name: "Patient" });
    const start = ctx.clock.now().getTime();
    await ctx.outbox.runDue();
    const gaps: number[] = [];
    let previous = start;
    for (let attempt = 2; attempt <= 40; attempt++) {
      const { notification } = await ctx.item(id);
      if (notification.status !== "pending") break;
      const next = new Date(notification.nextAttemptAt as string).getTime();
      gaps.push(next - previous);
      previous = next;
      ctx.clock.set(next);
      await ctx.outbox.runDue();
    }
    expect(gaps.slice(0, 5)).toEqual([30 * SECOND, 2 * MINUTE, 10 * MINUTE, HOUR, HOUR]);
    expect(new Set(gaps.slice(3))).toEqual(new Set([HOUR]));
    // The last attempt is the first at or after 24 h.
    expect(previous - start).toBeGreaterThanOrEqual(24 * HOUR);
    expect(previous - start).toBeLessThan(25 * HOUR);
    const failed = await ctx.item(id);
    expect(failed.notification).toMatchObject({
      status: "failed",
      attempts: gaps.length + 1,
      nextAttemptAt: null,
      lastError: expect.stringContaining("ECONNREFUSED"),
    });

    const overview = await ctx.admin.get("/api/admin/notifications/status").expect(200);
    expect(overview.body).toMatchObject({
      enabled: true,
      failed: 1,
      lastAttempt: { ok: false, error: expect.stringContaining("ECONNREFUSED") },
    });

    await smtp.start();
    const resent = await ctx.admin.post(`/api/admin/contact-submissions/${id}/resend`).expect(202);
    expect(resent.body.notification).toMatchObject({ status: "pending", attempts: 0, lastError: null });
    await ctx.outbox.runDue();
    const [mail] = await smtp.waitForMessages(1);
    expect(mail!.header("message-id")).toMatch(
      new RegExp(`^<enquiry-${id}\\.[0-9a-f]{8}@cornerstone\\.example\\.nz>$`),
    );
    expect((await ctx.item(id)).notification).toMatchObject({ status: "sent" });
    expect((await ctx.admin.get("/api/admin/notifications/status").expect(200)).body).toMatchObject({
      failed: 0,
      lastAttempt: { ok: true },
    });
  });

  it("an SMTP authentication failure shows the server's reason in the admin", async () => {
    const auth = { user: "website", pass: "right password" };
    smtp = await startSmtpServer({ auth });
    ctx = await createMailContext({ smtpUrl: `smtp://website:wrong@127.0.0.1:${smtp.port}` });
    const { id } = await ctx.enquire({ name: "Locked out" });
    await ctx.outbox.runDue();
    expect(smtp.authAttempts).toEqual([{ username: "website", secure: false }]);
    const { notification } = await ctx.item(id);
    expect(notification).toMatchObject({ status: "pending", attempts: 1 });
    expect(notification.lastError).toMatch(/535.*Authentication credentials invalid/);
    expect((await ctx.admin.get("/api/admin/notifications/status").expect(200)).body.lastAttempt).toMatchObject({
      ok: false,
      error: expect.stringMatching(/535.*Authentication credentials invalid/),
    });
    expect(smtp.messages).toHaveLength(0);

    // With the right password (a restart with the fixed setting), the retry goes through.
    ctx = await ctx.restart({ smtpUrl: smtp.url });
    ctx.clock.advance(30 * SECOND);
    await ctx.outbox.runDue();
    expect(await smtp.waitForMessages(1)).toHaveLength(1);
  });

  it("POST /api/contact answers as soon as the enquiry is stored, without waiting for SMTP", async () => {
    const { smtp, ctx } = await setUp();
    ctx.outbox.start();
    const held = smtp.holdNext();
    await ctx.api
      .post("/api/contact")
      .send({ name: "Quick answer", email: "q@example.nz", message: "Answer me before the mail goes." })
      .expect(201);
    // The answer is in while the SMTP server still holds the message.
    await held.arrived;
    expect(smtp.messages).toHaveLength(0);
    held.release();
    await smtp.waitForMessages(1);
  });
});

describe("leases: how several workers share one outbox", () => {
  it("a claimed job is nobody else's until its lease runs out; then another worker may take it over", async () => {
    const { ctx } = await setUp();
    const { id } = await ctx.enquire({ name: "Leased" });
    const claim = (token: string, at: Date) => ({
      now: at.toISOString(),
      leaseUntil: new Date(at.getTime() + LEASE_MS).toISOString(),
      token,
    });
    const now = ctx.clock.now();
    const first = await claimNextDue(ctx.services.db, claim("worker-a", now));
    expect(first.map((job) => [job.submission_id, job.lease_token])).toEqual([[id, "worker-a"]]);
    expect(await claimNextDue(ctx.services.db, claim("worker-b", now))).toEqual([]);
    expect(await claimNextDue(ctx.services.db, claim("worker-b", new Date(now.getTime() + LEASE_MS - 1)))).toEqual([]);
    const takeover = await claimNextDue(ctx.services.db, claim("worker-b", new Date(now.getTime() + LEASE_MS)));
    expect(takeover.map((job) => job.lease_token)).toEqual(["worker-b"]);
  });

  it("two workers racing for one job, the second paused between reading the due jobs and claiming them: one claim holds it", async () => {
    const { ctx } = await setUp();
    const { id } = await ctx.enquire({ name: "Raced" });
    const pending = await ctx.services.db
      .selectFrom("notification_jobs")
      .select("submission_id")
      .where("status", "=", "pending")
      .execute();
    expect(pending).toEqual([{ submission_id: id }]);
    // Worker B, on another instance (its own connection), stops after its first statement until A is done:
    // on SQLite after reading the due jobs, on PostgreSQL inside its claim, the row locked.
    const other = await openServices(ctx.services.env, createLogger({ level: "silent" }), { clock: ctx.clock });
    let reachedPause!: () => void;
    const paused = new Promise<void>((resolve) => (reachedPause = resolve));
    let release!: () => void;
    const released = new Promise<void>((resolve) => (release = resolve));
    let firstStatement = true;
    const pauseAfterFirstStatement: KyselyPlugin = {
      transformQuery: (args) => args.node,
      transformResult: async (args) => {
        if (firstStatement) {
          firstStatement = false;
          reachedPause();
          await released;
        }
        return args.result;
      },
    };
    const now = ctx.clock.now();
    const claim = (token: string) => ({
      now: now.toISOString(),
      leaseUntil: new Date(now.getTime() + LEASE_MS).toISOString(),
      token,
    });
    let claimedByA, claimedByB;
    try {
      const workerB = claimNextDue(other.db.withPlugin(pauseAfterFirstStatement), claim("worker-b"));
      await paused;
      claimedByA = await claimNextDue(ctx.services.db, claim("worker-a"));
      release();
      claimedByB = await workerB;
    } finally {
      release();
      await other.close();
    }
    const claimed = [...claimedByA, ...claimedByB];
    expect(claimed.map((job) => job.submission_id)).toEqual([id]);
    const job = await ctx.services.db
      .selectFrom("notification_jobs")
      .select("lease_token")
      .where("submission_id", "=", id)
      .executeTakeFirstOrThrow();
    expect(job.lease_token).toBe(claimed[0]!.lease_token);
  });

  it("Send again is refused (409) while a worker holds the job, and accepted once the lease has passed", async () => {
    const { ctx } = await setUp();
    const { id } = await ctx.enquire({ name: "Busy" });
    const now = ctx.clock.now();
    await claimNextDue(ctx.services.db, {
      now: now.toISOString(),
      leaseUntil: new Date(now.getTime() + LEASE_MS).toISOString(),
      token: "worker-a",
    });
    const busy = await ctx.admin.post(`/api/admin/contact-submissions/${id}/resend`).expect(409);
    expect(busy.body).toEqual({ message: "This enquiry's e-mail is being sent right now. Try again in a minute." });
    ctx.clock.advance(LEASE_MS);
    await ctx.admin.post(`/api/admin/contact-submissions/${id}/resend`).expect(202);
  });

  it("a worker whose lease ran out mid-send cannot record over the worker that took the job over", async () => {
    const { smtp, ctx } = await setUp();
    const { id } = await ctx.enquire({ name: "Slow server" });
    const slow = createOutbox(ctx.services, { leaseMs: MINUTE });
    const held = smtp.holdNext();
    const slowPass = slow.runDue();
    await held.arrived;
    // The lease passes while the slow worker still waits on the server; another worker sends it again.
    ctx.clock.advance(MINUTE);
    const other = createOutbox(ctx.services);
    const otherPass = other.runDue();
    await smtp.waitForMessages(1);
    await otherPass;
    held.release();
    await slowPass;
    // At-least-once: both copies went out, but only the lease holder's result counts.
    expect(smtp.messages).toHaveLength(2);
    expect((await ctx.item(id)).notification).toMatchObject({ status: "sent", attempts: 1 });
    const job = await ctx.services.db
      .selectFrom("notification_jobs")
      .selectAll()
      .where("submission_id", "=", id)
      .executeTakeFirstOrThrow();
    expect(job.lease_token).toBeNull();
  });
});

describe("notifications off", () => {
  it("stores enquiries as 'off', and turning SMTP on later does not mail that backlog", async () => {
    ctx = await createMailContext();
    const { id } = await ctx.enquire({ name: "While off" });
    expect((await ctx.item(id)).notification).toEqual({
      status: "off",
      attempts: 0,
      lastError: null,
      nextAttemptAt: null,
      sentAt: null,
      inDigest: false,
    });
    expect((await ctx.admin.get("/api/admin/notifications/status").expect(200)).body).toEqual({
      enabled: false,
      recipient: identity.email,
      lastAttempt: null,
      failed: 0,
    });
    await ctx.admin.post(`/api/admin/contact-submissions/${id}/resend`).expect(409);
    const test = await ctx.admin.post("/api/admin/notifications/test").expect(409);
    expect(test.body.message).toMatch(/set SMTP_URL and MAIL_FROM/);

    smtp = await startSmtpServer();
    ctx = await ctx.restart({ smtpUrl: smtp.url });
    ctx.clock.advance(HOUR);
    expect(await ctx.outbox.runDue()).toEqual({ sent: 0, retrying: 0, failed: 0, held: 0 });
    expect(smtp.messages).toHaveLength(0);
    expect((await ctx.item(id)).notification).toMatchObject({ status: "off" });
    // The owner can still ask for that one by hand.
    await ctx.admin.post(`/api/admin/contact-submissions/${id}/resend`).expect(202);
    await ctx.outbox.runDue();
    expect((await smtp.waitForMessages(1))[0]!.subject).toBe("New enquiry from While off");
  });
});

describe("the hourly cap", () => {
  it(`sends ${HOURLY_CAP} an hour, then the rest of that hour's enquiries as one digest at the end of the hour, across workers`, async () => {
    const { smtp, ctx } = await setUp();
    // 1 March, 9:00 AM NZDT; the hour ends at 21:00 UTC.
    const names = Array.from({ length: HOURLY_CAP + 5 }, (_, i) => `Bot ${String(i).padStart(2, "0")}`);
    for (const name of names) {
      await ctx.enquire({ name });
      ctx.clock.advance(SECOND);
    }
    const other = createOutbox(ctx.services);
    const [a, b] = await Promise.all([ctx.outbox.runDue(), other.runDue()]);
    expect(a.sent + b.sent).toBe(HOURLY_CAP);
    expect(a.held + b.held).toBe(5);
    expect(smtp.messages).toHaveLength(HOURLY_CAP);

    const list = (await ctx.admin.get("/api/admin/contact-submissions?limit=100").expect(200)).body as {
      name: string;
      notification: { status: string; inDigest: boolean; nextAttemptAt: string };
    }[];
    const held = list.filter((item) => item.notification.inDigest);
    expect(held).toHaveLength(5);
    for (const item of held)
      expect(item.notification).toMatchObject({ status: "pending", nextAttemptAt: "2026-02-28T21:00:00.000Z" });

    // Later in the same hour: still held, even from another worker.
    await ctx.enquire({ name: "Bot late" });
    ctx.clock.set("2026-02-28T20:59:00.000Z");
    expect(await other.runDue()).toMatchObject({ sent: 0, held: 1 });

    ctx.clock.set("2026-02-28T21:00:00.000Z");
    const [c, d] = await Promise.all([ctx.outbox.runDue(), other.runDue()]);
    expect(c.sent + d.sent).toBe(6);
    const mails = await smtp.waitForMessages(HOURLY_CAP + 1);
    expect(mails).toHaveLength(HOURLY_CAP + 1);
    const digest = mails[HOURLY_CAP]!;
    expect(digest.subject).toBe("6 more enquiries from the website");
    expect(digest.envelope.to).toEqual([NOTIFY_EMAIL]);
    // Two workers take slots at once, so which 30 went alone is theirs to decide: the digest holds the others.
    const sentAlone = mails.slice(0, HOURLY_CAP).map((mail) => mail.subject.replace("New enquiry from ", ""));
    expect(new Set(sentAlone).size).toBe(HOURLY_CAP);
    for (const name of [...names.filter((name) => !sentAlone.includes(name)), "Bot late"]) {
      expect(digest.text).toContain(name);
      expect(digest.html).toContain(name);
    }
    for (const name of sentAlone) expect(digest.text).not.toContain(`${name}\n`);
    const after = (await ctx.admin.get("/api/admin/contact-submissions?limit=100").expect(200)).body as {
      notification: { status: string };
    }[];
    expect(after.every((item) => item.notification.status === "sent")).toBe(true);

    // A new hour, a new allowance.
    await ctx.enquire({ name: "Next hour" });
    await ctx.outbox.runDue();
    expect((await smtp.waitForMessages(HOURLY_CAP + 2))[HOURLY_CAP + 1]!.subject).toBe("New enquiry from Next hour");
  });
});

describe("Send test e-mail", () => {
  it("sends to NOTIFY_EMAIL and answers 200, or 502 with the SMTP server's exact error", async () => {
    const auth = { user: "website", pass: "secret" };
    smtp = await startSmtpServer({ auth });
    ctx = await createMailContext({ smtpUrl: smtp.url });
    expect((await ctx.admin.post("/api/admin/notifications/test").expect(200)).body).toEqual({ ok: true });
    const [mail] = await smtp.waitForMessages(1);
    expect(mail!.envelope.to).toEqual([NOTIFY_EMAIL]);
    expect(mail!.subject).toBe(`Test e-mail from the ${identity.businessName} website`);

    ctx = await ctx.restart({ smtpUrl: `smtp://website:nope@127.0.0.1:${smtp.port}` });
    const refused = await ctx.admin.post("/api/admin/notifications/test").expect(502);
    expect(refused.body.message).toMatch(/535.*Authentication credentials invalid/);

    await smtp.stop();
    const down = await ctx.admin.post("/api/admin/notifications/test").expect(502);
    expect(down.body.message).toMatch(/ECONNREFUSED/);
  });
});

describe("the sign-in alert", () => {
  it("e-mails the time, the address and the browser through the outbox", async () => {
    const { smtp, ctx } = await setUp();
    const userAgent =
      "Mozilla/5.0 (Linux; Android 14; Pixel 7) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/126.0.0.0 Mobile Safari/537.36";
    expect(
      await queueSignInAlert(ctx.services, { at: "2026-02-28T20:30:00.000Z", address: "203.0.113.7", userAgent }),
    ).toEqual({ queued: true });
    await ctx.outbox.runDue();
    const [mail] = await smtp.waitForMessages(1);
    expect(mail!.subject).toBe(`New sign-in to the ${identity.businessName} website admin`);
    expect(mail!.envelope.to).toEqual([NOTIFY_EMAIL]);
    expect(mail!.text).toContain("March 1st, 2026 at 9:30 AM (New Zealand Daylight Time)");
    expect(mail!.text).toContain("203.0.113.7");
    expect(mail!.text).toContain("Browser: Chrome on an Android phone");
    expect(mail!.text).toContain(`User agent: ${userAgent}`);
    expect(mail!.header("message-id")).toMatch(/^<sign-in-[0-9a-f-]{36}@cornerstone\.example\.nz>$/);
    // It is no enquiry: the inbox stays empty.
    expect((await ctx.admin.get("/api/admin/contact-submissions").expect(200)).body).toEqual([]);
  });

  it("retries like every notification when the SMTP server is down", async () => {
    const { smtp, ctx } = await setUp();
    await smtp.stop();
    await queueSignInAlert(ctx.services, { at: ctx.clock.now(), address: "198.51.100.2", userAgent: "" });
    expect(await ctx.outbox.runDue()).toMatchObject({ retrying: 1 });
    await smtp.start();
    ctx.clock.advance(30 * SECOND);
    await ctx.outbox.runDue();
    expect((await smtp.waitForMessages(1))[0]!.text).toContain("an unknown browser");
  });

  it("is queued by a sign-in from a new browser, and not by one with a device cookie", async () => {
    const { smtp, ctx } = await setUp();
    const userAgent =
      "Mozilla/5.0 (iPhone; CPU iPhone OS 18_0 like Mac OS X) AppleWebKit/605.1.15 (KHTML, like Gecko) Version/18.0 Mobile/15E148 Safari/604.1";
    const phone = supertest.agent(ctx.app);
    await phone
      .post("/api/login")
      .set("User-Agent", userAgent)
      .set("X-Forwarded-For", "203.0.113.9")
      .send(ADMIN)
      .expect(200);
    await ctx.outbox.runDue();
    const [mail] = await smtp.waitForMessages(1);
    expect(mail!.subject).toBe(`New sign-in to the ${identity.businessName} website admin`);
    expect(mail!.text).toContain(userAgent);

    // The same browser again: it carries its device cookie now, so no second alert.
    await phone.post("/api/logout").expect(204);
    await phone.post("/api/login").set("User-Agent", userAgent).send(ADMIN).expect(200);
    const jobs = await ctx.services.db
      .selectFrom("notification_jobs")
      .select("kind")
      .where("kind", "=", "sign-in")
      .execute();
    expect(jobs).toHaveLength(1);
    await ctx.outbox.runDue();
    expect(smtp.messages).toHaveLength(1);
  });

  it("keeps the address and browser only until the mail is sent: then no table holds them", async () => {
    smtp = await startSmtpServer();
    ctx = await createMailContext({ smtpUrl: smtp.url, env: { TRUST_PROXY: "loopback" } });
    const address = "203.0.113.58";
    const userAgent = "Mozilla/5.0 (X11; Linux x86_64; rv:131.0) Gecko/20100101 Firefox/131.0 AlertScan/7";
    await supertest(ctx.app)
      .post("/api/login")
      .set("User-Agent", userAgent)
      .set("X-Forwarded-For", address)
      .send(ADMIN)
      .expect(200);
    // Until it is sent, the job holds what the mail needs (and the scan can see it).
    const before = await everyTableAsText(ctx.services);
    expect(before).toContain(address);
    expect(before).toContain(userAgent);

    expect(await ctx.outbox.runDue()).toMatchObject({ sent: 1 });
    const [mail] = await smtp.waitForMessages(1);
    expect(mail!.text).toContain(address);
    const after = await everyTableAsText(ctx.services);
    expect(after).not.toContain(address);
    // The browser stays only where the owner reads it on purpose: the security log (decision 0054)
    // keeps the user agent, cut to 256 characters; the alert's job no longer does.
    const jobs = await ctx.services.db.selectFrom("notification_jobs").select(["kind", "payload"]).execute();
    expect(jobs).toEqual([{ kind: "sign-in", payload: "{}" }]);
    expect(after.replaceAll(/"user_agent":"[^"]*"/g, "")).not.toContain(userAgent);
  });

  it("clears the address and browser when the alert fails for good too", async () => {
    const { smtp, ctx } = await setUp();
    await smtp.stop();
    const address = "198.51.100.77";
    const userAgent =
      "Mozilla/5.0 (Macintosh; Intel Mac OS X 14_6) AppleWebKit/605.1.15 (KHTML, like Gecko) Version/18.0 Safari/605.1.15 AlertScan/8";
    await queueSignInAlert(ctx.services, { at: ctx.clock.now(), address, userAgent });
    expect(await ctx.outbox.runDue()).toMatchObject({ retrying: 1 });
    expect(await everyTableAsText(ctx.services)).toContain(address);
    // Retries for 24 hours, then the job is failed.
    let summary = { failed: 0 };
    for (let hour = 0; hour < 26 && summary.failed === 0; hour++) {
      ctx.clock.advance(HOUR);
      summary = await ctx.outbox.runDue();
    }
    expect(summary).toMatchObject({ failed: 1 });
    const after = await everyTableAsText(ctx.services);
    expect(after).not.toContain(address);
    // The browser stays only where the owner reads it on purpose: the security log (decision 0054)
    // keeps the user agent, cut to 256 characters; the alert's job no longer does.
    const jobs = await ctx.services.db.selectFrom("notification_jobs").select(["kind", "payload"]).execute();
    expect(jobs).toEqual([{ kind: "sign-in", payload: "{}" }]);
    expect(after.replaceAll(/"user_agent":"[^"]*"/g, "")).not.toContain(userAgent);
  });

  it("is not queued while notifications are off", async () => {
    ctx = await createMailContext();
    expect(
      await queueSignInAlert(ctx.services, { at: ctx.clock.now(), address: "203.0.113.7", userAgent: "x" }),
    ).toEqual({ queued: false });
    const jobs = await ctx.services.db.selectFrom("notification_jobs").selectAll().execute();
    expect(jobs).toEqual([]);
  });
});
