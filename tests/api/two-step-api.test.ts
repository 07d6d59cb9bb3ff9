import { Secret, TOTP } from "otpauth";
import supertest from "supertest";
import { afterEach, describe, expect, it } from "vitest";
import { claimCeremonyAttempt } from "~/auth/ceremonies.server";
import { createManualClock, type ManualClock } from "~/lib/clock";
import { SIGN_IN_LOCKED_MESSAGE } from "../../server/api/auth-routes";
import { ADMIN, createAdminContext, type AdminContext } from "./helpers";

/**
 * Two-step verification through the real API, on this
 * run's back end, with an injected clock (no waiting for codes to change).
 */
let ctx: AdminContext | undefined;
afterEach(async () => {
  await ctx?.close();
  ctx = undefined;
});

const MAIL_ON = {
  SMTP_URL: "smtp://127.0.0.1:9",
  MAIL_FROM: "Cornerstone <website@cornerstone.example.nz>",
  NOTIFY_EMAIL: "owner@example.nz",
};

const codeAt = (secret: string, clock: ManualClock, offsetSteps = 0) =>
  new TOTP({ secret: Secret.fromBase32(secret) }).generate({ timestamp: clock.now().getTime() + offsetSteps * 30_000 });

async function setUp(env: Record<string, string> = {}) {
  const clock = createManualClock("2026-03-02T09:00:10.000Z");
  ctx = await createAdminContext(env, { clock });
  return { ctx, clock };
}

/** Turns two-step on through the dashboard's API; the secret and the recovery codes. */
async function enrol(admin: AdminContext["admin"], clock: ManualClock) {
  const setup = await admin.post("/api/admin/two-step/setup").send({ currentPassword: ADMIN.password }).expect(200);
  const secret = setup.body.secret as string;
  const enabled = await admin
    .post("/api/admin/two-step/enable")
    .send({ code: codeAt(secret, clock) })
    .expect(200);
  return {
    secret,
    recoveryCodes: enabled.body.recoveryCodes as string[],
    setup: setup.body as { qrSvg: string; otpauthUrl: string },
  };
}

/** A fresh browser that typed the right password; it now waits for the code. */
async function passwordStep(app: AdminContext["app"]) {
  const agent = supertest.agent(app);
  const res = await agent.post("/api/login").send(ADMIN).expect(200);
  expect(res.body).toEqual({ twoFactorRequired: true });
  return { agent, res };
}

const securityMails = async (c: AdminContext) =>
  (await c.services.db.selectFrom("notification_jobs").select("payload").where("kind", "=", "security").execute()).map(
    (row) => (JSON.parse(row.payload) as { kind: string }).kind,
  );

describe("turning two-step verification on", () => {
  it("needs the current password, shows a QR code and the secret, and is on only after a code from the app", async () => {
    const { ctx, clock } = await setUp();
    const wrong = await ctx.admin.post("/api/admin/two-step/setup").send({ currentPassword: "not it" }).expect(400);
    expect(wrong.body.errors.currentPassword).toBe("The current password is not right");

    const setup = await ctx.admin
      .post("/api/admin/two-step/setup")
      .send({ currentPassword: ADMIN.password })
      .expect(200);
    expect(setup.body.secret).toMatch(/^[A-Z2-7]{32}$/);
    expect(setup.body.qrSvg).toMatch(/^<svg[^>]*>/);
    expect(setup.body.otpauthUrl).toMatch(/^otpauth:\/\/totp\/.*secret=/);
    // Not on yet: a password alone still signs in.
    expect((await supertest(ctx.app).post("/api/login").send(ADMIN).expect(200)).body.username).toBe(ADMIN.username);

    const bad = await ctx.admin.post("/api/admin/two-step/enable").send({ code: "000000" }).expect(400);
    expect(bad.body.errors.code).toBe("That code is not right");
    const enabled = await ctx.admin
      .post("/api/admin/two-step/enable")
      .send({ code: codeAt(setup.body.secret as string, clock) })
      .expect(200);
    expect(enabled.body.recoveryCodes).toHaveLength(10);
    expect(new Set(enabled.body.recoveryCodes).size).toBe(10);
    const methods = await ctx.admin.get("/api/admin/sign-in-methods").expect(200);
    expect(methods.body.twoStep).toEqual({ status: "on", recoveryCodesLeft: 10 });
    // Stored sealed: neither the secret nor a recovery code is in the database as it is.
    const row = await ctx.services.db.selectFrom("two_factor").selectAll().executeTakeFirstOrThrow();
    expect(row.secret_encrypted).not.toContain(setup.body.secret);
    const hashes = await ctx.services.db.selectFrom("recovery_codes").select("code_hash").execute();
    expect(hashes.map((h) => h.code_hash)).not.toContain(enabled.body.recoveryCodes[0]);
  });
});

describe("signing in with two-step verification on", () => {
  it("a right password answers { twoFactorRequired: true } with no session; the code then signs in; a used code is refused", async () => {
    const { ctx, clock } = await setUp();
    const { secret } = await enrol(ctx.admin, clock);
    clock.advance(30_000);

    const { agent, res } = await passwordStep(ctx.app);
    const cookies = ([] as string[]).concat(res.headers["set-cookie"] ?? []);
    expect(cookies.some((c) => c.startsWith("cornerstone_session="))).toBe(false);
    await agent.get("/api/auth/user").expect(401);

    const wrong = await agent.post("/api/login/two-factor").send({ code: "123456" }).expect(401);
    expect(wrong.body).toEqual({ message: "Invalid authentication code" });
    const code = codeAt(secret, clock);
    const signedIn = await agent.post("/api/login/two-factor").send({ code }).expect(200);
    expect(signedIn.body).toMatchObject({ username: ADMIN.username });
    await agent.get("/api/auth/user").expect(200);

    // The same code, in another sign-in within its 30 seconds: refused.
    const again = await passwordStep(ctx.app);
    await again.agent
      .post("/api/login/two-factor")
      .send({ code })
      .expect(401, { message: "Invalid authentication code" });
  });

  it("accepts a code one time step either side of now, not two", async () => {
    const { ctx, clock } = await setUp();
    const { secret } = await enrol(ctx.admin, clock);
    clock.advance(5 * 30_000);
    const first = await passwordStep(ctx.app);
    await first.agent
      .post("/api/login/two-factor")
      .send({ code: codeAt(secret, clock, -2) })
      .expect(401);
    await first.agent
      .post("/api/login/two-factor")
      .send({ code: codeAt(secret, clock, -1) })
      .expect(200);
    const second = await passwordStep(ctx.app);
    await second.agent
      .post("/api/login/two-factor")
      .send({ code: codeAt(secret, clock, 2) })
      .expect(401);
    await second.agent
      .post("/api/login/two-factor")
      .send({ code: codeAt(secret, clock, 1) })
      .expect(200);
  });

  it("a recovery code signs in once, is then gone, and the owner is e-mailed", async () => {
    const { ctx, clock } = await setUp(MAIL_ON);
    const { recoveryCodes } = await enrol(ctx.admin, clock);
    const { agent } = await passwordStep(ctx.app);
    await agent.post("/api/login/two-factor").send({ code: recoveryCodes[3]!.toUpperCase() }).expect(200);
    const methods = await agent.get("/api/admin/sign-in-methods").expect(200);
    expect(methods.body.twoStep.recoveryCodesLeft).toBe(9);
    expect(await securityMails(ctx)).toEqual(["two-step-on", "recovery-code-used"]);

    const again = await passwordStep(ctx.app);
    await again.agent
      .post("/api/login/two-factor")
      .send({ code: recoveryCodes[3] })
      .expect(401, { message: "Invalid authentication code" });
  });

  it("counts each code against the password lock-out: the password and 4 wrong codes use up the address's 5, then even the right code gets 429", async () => {
    const { ctx, clock } = await setUp();
    const { secret } = await enrol(ctx.admin, clock);
    clock.advance(30_000);
    const { agent } = await passwordStep(ctx.app);
    for (let i = 0; i < 4; i++) {
      await agent
        .post("/api/login/two-factor")
        .send({ code: String(100000 + i) })
        .expect(401, { message: "Invalid authentication code" });
    }
    const refused = await agent
      .post("/api/login/two-factor")
      .send({ code: codeAt(secret, clock) })
      .expect(429);
    expect(refused.body.message).toMatch(/Too many failed sign-in attempts/);
    await agent.get("/api/auth/user").expect(401);
    const locked = await supertest(ctx.app).post("/api/login").send(ADMIN).expect(429);
    expect(locked.body.message).toMatch(/Too many failed sign-in attempts/);
  });

  it("while the address is locked out, a code gets 429 as a password does, and none is checked", async () => {
    const { ctx, clock } = await setUp();
    const { secret } = await enrol(ctx.admin, clock);
    clock.advance(30_000);
    // Five right passwords from one address: each waits for a code, and together they use up the address's limit.
    const pending = [];
    for (let i = 0; i < 5; i++) pending.push((await passwordStep(ctx.app)).agent);
    await supertest(ctx.app).post("/api/login").send(ADMIN).expect(429);
    for (const agent of pending) {
      for (let i = 0; i < 5; i++) {
        const wrong = await agent
          .post("/api/login/two-factor")
          .send({ code: String(300000 + i) })
          .expect(429);
        expect(wrong.body.message).toBe(SIGN_IN_LOCKED_MESSAGE);
        expect(Number(wrong.headers["retry-after"])).toBeGreaterThan(0);
      }
    }
    // Not even the right code is checked while the lock-out holds.
    await pending[0]!
      .post("/api/login/two-factor")
      .send({ code: codeAt(secret, clock) })
      .expect(429);
    await pending[0]!.get("/api/auth/user").expect(401);
    const checked = await ctx.services.db
      .selectFrom("activity_log")
      .select("kind")
      .where("kind", "=", "sign-in.two-step")
      .execute();
    expect(checked).toEqual([]);
  });

  it("ten codes sent at once, from ten addresses, to one pending step: 5 are checked, the other 5 find the step ended", async () => {
    // TRUST_PROXY=loopback: each code comes from its own address, so no address lock-out stops the sixth.
    const { ctx, clock } = await setUp({ TRUST_PROXY: "loopback" });
    const { secret } = await enrol(ctx.admin, clock);
    clock.advance(30_000);
    const { agent } = await passwordStep(ctx.app);
    const answers = await Promise.all(
      Array.from({ length: 10 }, (_, i) =>
        agent
          .post("/api/login/two-factor")
          .set("X-Forwarded-For", `198.51.100.${i + 1}`)
          .send({ code: String(400000 + i) }),
      ),
    );
    const messages = answers.map((answer) => `${answer.status} ${answer.body.message}`).sort();
    expect(messages).toEqual([
      ...Array.from({ length: 5 }, () => "401 Invalid authentication code"),
      ...Array.from(
        { length: 5 },
        () => "401 This sign-in has ended (after 5 minutes, or 5 wrong codes). Please enter your password again.",
      ),
    ]);
    await agent
      .post("/api/login/two-factor")
      .set("X-Forwarded-For", "198.51.100.99")
      .send({ code: codeAt(secret, clock) })
      .expect(401);
  });

  it("the 5th wrong code ends the step: its cookie is cleared and its row deleted, on that answer", async () => {
    // Each code from its own address, so no address lock-out comes first.
    const { ctx, clock } = await setUp({ TRUST_PROXY: "loopback" });
    const { secret } = await enrol(ctx.admin, clock);
    clock.advance(30_000);
    const { agent } = await passwordStep(ctx.app);
    const pendingSteps = () =>
      ctx.services.db.selectFrom("auth_ceremonies").select("attempts").where("kind", "=", "two-step-sign-in").execute();
    const cleared = (answer: { headers: Record<string, unknown> }) =>
      ([answer.headers["set-cookie"]].flat() as string[]).filter(
        (cookie) => cookie?.startsWith("cornerstone_two_step=;") && cookie.includes("Expires=Thu, 01 Jan 1970"),
      ).length;
    for (let attempt = 1; attempt <= 5; attempt++) {
      const answer = await agent
        .post("/api/login/two-factor")
        .set("X-Forwarded-For", `198.51.100.${attempt}`)
        .send({ code: String(500000 + attempt) })
        .expect(401, { message: "Invalid authentication code" });
      expect({ attempt, cleared: cleared(answer), pending: await pendingSteps() }).toEqual(
        attempt < 5 ? { attempt, cleared: 0, pending: [{ attempts: attempt }] } : { attempt, cleared: 1, pending: [] },
      );
    }
    await agent
      .post("/api/login/two-factor")
      .set("X-Forwarded-For", "198.51.100.99")
      .send({ code: codeAt(secret, clock) })
      .expect(401, {
        message: "This sign-in has ended (after 5 minutes, or 5 wrong codes). Please enter your password again.",
      });
  });

  it("a pending step admits 5 attempts however many are claimed at once", async () => {
    const { ctx, clock } = await setUp();
    await enrol(ctx.admin, clock);
    await passwordStep(ctx.app);
    const row = await ctx.services.db
      .selectFrom("auth_ceremonies")
      .select(["id", "user_id"])
      .where("kind", "=", "two-step-sign-in")
      .executeTakeFirstOrThrow();
    const ceremony = {
      id: row.id,
      kind: "two-step-sign-in" as const,
      challenge: null,
      userId: row.user_id,
      attempts: 0,
    };
    const claims = await Promise.all(Array.from({ length: 10 }, () => claimCeremonyAttempt(ctx.services, ceremony, 5)));
    expect(claims.filter((claim) => claim !== null).sort((a, b) => a! - b!)).toEqual([1, 2, 3, 4, 5]);
    expect(claims.filter((claim) => claim === null)).toHaveLength(5);
  });

  it("a right password does not clear the counts before the code: password and 4 wrong codes, then the next password is refused", async () => {
    const { ctx, clock } = await setUp();
    await enrol(ctx.admin, clock);
    const { agent } = await passwordStep(ctx.app);
    for (let i = 0; i < 4; i++)
      await agent
        .post("/api/login/two-factor")
        .send({ code: String(200000 + i) })
        .expect(401);
    // Had the password cleared the counts, this would start another round of guesses.
    await supertest(ctx.app).post("/api/login").send(ADMIN).expect(429);
  });

  it("the pending step lasts 5 minutes and is tied to the browser that typed the password", async () => {
    const { ctx, clock } = await setUp();
    const { secret } = await enrol(ctx.admin, clock);
    clock.advance(30_000);
    const { agent } = await passwordStep(ctx.app);
    // Another browser, without the pending step's cookie, gets nowhere with the right code.
    await supertest(ctx.app)
      .post("/api/login/two-factor")
      .send({ code: codeAt(secret, clock) })
      .expect(401);
    clock.advance(5 * 60_000 + 1_000);
    const late = await agent
      .post("/api/login/two-factor")
      .send({ code: codeAt(secret, clock) })
      .expect(401);
    expect(late.body.message).toMatch(/This sign-in has ended/);
  });

  it("a pending step begun on one instance is finished on another", async () => {
    const { ctx, clock } = await setUp();
    const { secret } = await enrol(ctx.admin, clock);
    clock.advance(30_000);
    const b = await ctx.openInstance();
    const { res } = await passwordStep(ctx.app);
    const cookie = ([] as string[])
      .concat(res.headers["set-cookie"] ?? [])
      .map((c) => c.split(";")[0])
      .join("; ");
    const finished = await b.api
      .post("/api/login/two-factor")
      .set("Cookie", cookie)
      .send({ code: codeAt(secret, clock) })
      .expect(200);
    expect(finished.body.username).toBe(ADMIN.username);
  });
});

describe("turning two-step off and renewing the recovery codes", () => {
  it("need the current password, and e-mail the owner", async () => {
    const { ctx, clock } = await setUp(MAIL_ON);
    const { recoveryCodes } = await enrol(ctx.admin, clock);
    await ctx.admin.post("/api/admin/two-step/recovery-codes").send({}).expect(400);
    await ctx.admin.post("/api/admin/two-step/recovery-codes").send({ currentPassword: "wrong" }).expect(400);
    const renewed = await ctx.admin
      .post("/api/admin/two-step/recovery-codes")
      .send({ currentPassword: ADMIN.password })
      .expect(200);
    expect(renewed.body.recoveryCodes).toHaveLength(10);
    expect(renewed.body.recoveryCodes).not.toContain(recoveryCodes[0]);

    await ctx.admin.post("/api/admin/two-step/disable").send({ currentPassword: "wrong" }).expect(400);
    expect((await ctx.admin.get("/api/admin/sign-in-methods").expect(200)).body.twoStep.status).toBe("on");
    await ctx.admin.post("/api/admin/two-step/disable").send({ currentPassword: ADMIN.password }).expect(200);
    expect((await ctx.admin.get("/api/admin/sign-in-methods").expect(200)).body.twoStep).toEqual({
      status: "off",
      recoveryCodesLeft: 0,
    });
    await supertest(ctx.app).post("/api/login").send(ADMIN).expect(200);
    expect(await securityMails(ctx)).toEqual(["two-step-on", "recovery-codes-renewed", "two-step-off"]);
  });

  it("the security log records two-step on, a sign-in with a code, a wrong code, new codes, and off", async () => {
    const { ctx, clock } = await setUp();
    const { secret } = await enrol(ctx.admin, clock);
    clock.advance(30_000);
    const { agent } = await passwordStep(ctx.app);
    await agent.post("/api/login/two-factor").send({ code: "000000" }).expect(401);
    await agent
      .post("/api/login/two-factor")
      .send({ code: codeAt(secret, clock) })
      .expect(200);
    await ctx.admin.post("/api/admin/two-step/recovery-codes").send({ currentPassword: ADMIN.password }).expect(200);
    await ctx.admin.post("/api/admin/two-step/disable").send({ currentPassword: ADMIN.password }).expect(200);
    // Compared sorted: the injected clock barely moves between them.
    const log = await ctx.services.db.selectFrom("activity_log").select(["kind", "outcome"]).execute();
    expect(
      log
        .filter((row) => row.kind.includes("two-step"))
        .map((row) => `${row.kind} ${row.outcome}`)
        .sort(),
    ).toEqual(
      [
        "two-step.turned-on success",
        "sign-in.two-step failure",
        "sign-in.two-step success",
        "two-step.codes-renewed success",
        "two-step.turned-off success",
      ].sort(),
    );
  });

  it("a password change e-mails the owner too", async () => {
    const { ctx } = await setUp(MAIL_ON);
    const newPassword = "another long password";
    await ctx.admin
      .post("/api/admin/password")
      .send({ currentPassword: ADMIN.password, newPassword, confirmPassword: newPassword })
      .expect(200);
    expect(await securityMails(ctx)).toEqual(["password-changed"]);
  });
});
