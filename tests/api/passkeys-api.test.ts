import { Secret, TOTP } from "otpauth";
import supertest from "supertest";
import { afterEach, describe, expect, it } from "vitest";
import { createManualClock } from "~/lib/clock";
import { createSoftwareAuthenticator } from "../support/software-authenticator";
import { ADMIN, createAdminContext, type AdminContext } from "./helpers";

/**
 * Passkeys through the real API on this run's back
 * end, answered by a software authenticator (tests/support/); the browser
 * test with Chromium's virtual authenticator is tests/e2e/passkeys.spec.ts.
 * Adding or removing one always asks for proof (decision 0053, amended).
 */
let ctx: AdminContext | undefined;
afterEach(async () => {
  await ctx?.close();
  ctx = undefined;
});

// localhost: a working RP ID over plain http (supertest sends no Secure cookies).
const SITE = "http://localhost:5173";
const PHONE_UA =
  "Mozilla/5.0 (Linux; Android 14; Pixel 7) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/156.0.0.0 Mobile Safari/537.36";

async function setUp(env: Record<string, string> = {}) {
  const clock = createManualClock("2026-03-02T09:00:00.000Z");
  ctx = await createAdminContext({ SITE_URL: SITE, ...env }, { clock });
  const authenticator = createSoftwareAuthenticator({ origin: SITE, rpId: "localhost" });
  return { ctx, clock, authenticator };
}

type Agent = ReturnType<typeof supertest.agent>;
type Authenticator = ReturnType<typeof createSoftwareAuthenticator>;

async function addPasskey(admin: Agent, authenticator: Authenticator, name?: string) {
  const begun = await admin
    .post("/api/admin/passkeys/options")
    .set("User-Agent", PHONE_UA)
    .send({ currentPassword: ADMIN.password })
    .expect(200);
  const response = authenticator.register(begun.body.options);
  return admin
    .post("/api/admin/passkeys")
    .set("User-Agent", PHONE_UA)
    .send({ response, ...(name === undefined ? {} : { name }) });
}

/** Asks for a sign-in challenge in a fresh browser; the browser and the options. */
async function beginSignIn(app: AdminContext["app"]) {
  const agent = supertest.agent(app);
  const begun = await agent.post("/api/login/passkey/options").expect(200);
  return { agent, options: begun.body as { challenge: string; rpId: string; userVerification: string } };
}

const MAIL_ON = {
  SMTP_URL: "smtp://127.0.0.1:9",
  MAIL_FROM: "Site <site@example.nz>",
  NOTIFY_EMAIL: "owner@example.nz",
};

const securityMails = async (c: AdminContext) =>
  (await c.services.db.selectFrom("notification_jobs").select("payload").where("kind", "=", "security").execute()).map(
    (row) => JSON.parse(row.payload) as { kind: string; passkeyName?: string; passkeyNames?: string[]; to?: string },
  );

/** A passkey's answer to a fresh confirmation challenge, as the dashboard sends it for proof. */
async function passkeyProof(admin: Agent, authenticator: Authenticator) {
  const challenge = await admin.post("/api/admin/confirm/passkey/options").expect(200);
  return { passkey: authenticator.authenticate(challenge.body) };
}

describe("adding a passkey", () => {
  it("always asks for proof, however recently the owner signed in: with neither the password nor a passkey, 400 on currentPassword", async () => {
    const { ctx, clock, authenticator } = await setUp();
    // Signed in a moment ago, and still asked.
    const refused = await ctx.admin.post("/api/admin/passkeys/options").send({}).expect(400);
    expect(refused.body.errors.currentPassword).toBe("Confirm with your current password or a passkey");
    const wrong = await ctx.admin.post("/api/admin/passkeys/options").send({ currentPassword: "wrong" }).expect(400);
    expect(wrong.body.errors.currentPassword).toBe("The current password is not right");

    const begun = await ctx.admin
      .post("/api/admin/passkeys/options")
      .set("User-Agent", PHONE_UA)
      .send({ currentPassword: ADMIN.password })
      .expect(200);
    expect(begun.body.defaultName).toBe("Chrome on an Android phone");
    expect(begun.body.options.rp.id).toBe("localhost");
    expect(begun.body.options.authenticatorSelection).toMatchObject({
      residentKey: "required",
      userVerification: "required",
    });
    const added = await ctx.admin
      .post("/api/admin/passkeys")
      .send({ response: authenticator.register(begun.body.options), name: "Mark's iPhone" })
      .expect(201);
    expect(added.body).toMatchObject({
      name: "Mark's iPhone",
      createdAt: "2026-03-02T09:00:00.000Z",
      lastUsedAt: null,
    });

    // A passkey the owner has is proof too.
    clock.advance(1_000);
    const second = createSoftwareAuthenticator({ origin: SITE, rpId: "localhost" });
    // (The proof first: the agent attaches its cookies when a request is made.)
    const proof = await passkeyProof(ctx.admin, authenticator);
    const withPasskey = await ctx.admin
      .post("/api/admin/passkeys/options")
      .set("User-Agent", PHONE_UA)
      .send(proof)
      .expect(200);
    // The default name, when none is given.
    const named = await ctx.admin
      .post("/api/admin/passkeys")
      .set("User-Agent", PHONE_UA)
      .send({ response: second.register(withPasskey.body.options) })
      .expect(201);
    expect(named.body.name).toBe("Chrome on an Android phone");
    const methods = await ctx.admin.get("/api/admin/sign-in-methods").expect(200);
    expect(methods.body.passkeys.available).toBe(true);
    expect(methods.body.passkeys.list.map((p: { name: string }) => p.name)).toEqual([
      "Mark's iPhone",
      "Chrome on an Android phone",
    ]);
  });

  it("e-mails the owner when mail is on", async () => {
    const { ctx, authenticator } = await setUp(MAIL_ON);
    await addPasskey(ctx.admin, authenticator, "Mark's iPhone");
    expect(await securityMails(ctx)).toEqual([
      expect.objectContaining({ kind: "passkey-added", passkeyName: "Mark's iPhone" }),
    ]);
  });
});

describe("removing a passkey", () => {
  it("always asks for proof (the password or a passkey), and e-mails the owner", async () => {
    const { ctx, authenticator } = await setUp(MAIL_ON);
    const first = await addPasskey(ctx.admin, authenticator, "Mark's iPhone");
    const other = createSoftwareAuthenticator({ origin: SITE, rpId: "localhost" });
    const second = await addPasskey(ctx.admin, other, "Work laptop");
    const url = (id: string) => `/api/admin/passkeys/${encodeURIComponent(id)}`;

    const refused = await ctx.admin
      .delete(url(second.body.id as string))
      .send({})
      .expect(400);
    expect(refused.body.errors.currentPassword).toBe("Confirm with your current password or a passkey");
    await ctx.admin.delete(url(second.body.id as string)).expect(400);
    await ctx.admin
      .delete(url(second.body.id as string))
      .send({ currentPassword: "wrong" })
      .expect(400);
    expect((await ctx.admin.get("/api/admin/sign-in-methods").expect(200)).body.passkeys.list).toHaveLength(2);

    await ctx.admin
      .delete(url(second.body.id as string))
      .send({ currentPassword: ADMIN.password })
      .expect(204);
    await ctx.admin
      .delete(url(second.body.id as string))
      .send({ currentPassword: ADMIN.password })
      .expect(404);
    // A passkey's answer proves it too (even the passkey being removed).
    const proof = await passkeyProof(ctx.admin, authenticator);
    await ctx.admin
      .delete(url(first.body.id as string))
      .send(proof)
      .expect(204);
    expect((await ctx.admin.get("/api/admin/sign-in-methods").expect(200)).body.passkeys.list).toEqual([]);
    expect(
      (await securityMails(ctx)).filter((mail) => mail.kind === "passkey-removed").map((mail) => mail.passkeyName),
    ).toEqual(["Work laptop", "Mark's iPhone"]);
  });
});

describe("sign out everywhere, with the passkeys", () => {
  it("lists the passkeys with when each was last used, and with proof removes all but the one this session signed in with", async () => {
    const { ctx, clock, authenticator } = await setUp(MAIL_ON);
    const phone = await addPasskey(ctx.admin, authenticator, "Mark's iPhone");
    clock.advance(1_000);
    const planted = createSoftwareAuthenticator({ origin: SITE, rpId: "localhost" });
    await addPasskey(ctx.admin, planted, "Planted");
    clock.advance(60_000);
    // The owner signs in with their phone's passkey.
    const { agent, options } = await beginSignIn(ctx.app);
    await agent
      .post("/api/login/passkey")
      .send({ response: authenticator.authenticate(options) })
      .expect(200);
    const methods = (await agent.get("/api/admin/sign-in-methods").expect(200)).body.passkeys;
    expect(methods.signedInWith).toBe(phone.body.id);
    expect(methods.list.map((p: { name: string; lastUsedAt: string | null }) => [p.name, p.lastUsedAt])).toEqual([
      ["Mark's iPhone", "2026-03-02T09:01:01.000Z"],
      ["Planted", null],
    ]);
    // A password sign-in has none in use.
    expect((await ctx.admin.get("/api/admin/sign-in-methods").expect(200)).body.passkeys.signedInWith).toBeNull();

    const refused = await agent.delete("/api/admin/sessions").send({ removeOtherPasskeys: true }).expect(400);
    expect(refused.body.errors.currentPassword).toBe("Confirm with your current password or a passkey");
    await agent.get("/api/auth/user").expect(200);

    await agent
      .delete("/api/admin/sessions")
      .send({ removeOtherPasskeys: true, currentPassword: ADMIN.password })
      .expect(204);
    await agent.get("/api/auth/user").expect(401);
    await ctx.admin.get("/api/auth/user").expect(401);
    const left = await ctx.services.db.selectFrom("passkeys").select("name").execute();
    expect(left).toEqual([{ name: "Mark's iPhone" }]);
    const signIn = await beginSignIn(ctx.app);
    await signIn.agent
      .post("/api/login/passkey")
      .send({ response: planted.authenticate(signIn.options) })
      .expect(401);
    expect((await securityMails(ctx)).filter((mail) => mail.kind === "passkey-removed")).toEqual([
      expect.objectContaining({ passkeyNames: ["Planted"] }),
    ]);
  });

  it("without removeOtherPasskeys signs out only, asking for nothing", async () => {
    const { ctx, authenticator } = await setUp();
    await addPasskey(ctx.admin, authenticator, "Mark's iPhone");
    await ctx.admin.delete("/api/admin/sessions").expect(204);
    expect(await ctx.services.db.selectFrom("passkeys").select("name").execute()).toEqual([{ name: "Mark's iPhone" }]);
  });
});

describe("signing in with a passkey", () => {
  it("signs in with no username or password, and records when it was last used", async () => {
    const { ctx, clock, authenticator } = await setUp();
    await addPasskey(ctx.admin, authenticator, "Mark's iPhone").then((r) => expect(r.status).toBe(201));
    clock.advance(60_000);
    const { agent, options } = await beginSignIn(ctx.app);
    expect(options.rpId).toBe("localhost");
    expect(options.userVerification).toBe("required");
    const signedIn = await agent
      .post("/api/login/passkey")
      .send({ response: authenticator.authenticate(options) })
      .expect(200);
    expect(signedIn.body.username).toBe(ADMIN.username);
    await agent.get("/api/auth/user").expect(200);
    const list = (await agent.get("/api/admin/sign-in-methods").expect(200)).body.passkeys.list as {
      lastUsedAt: string;
    }[];
    expect(list[0]!.lastUsedAt).toBe("2026-03-02T09:01:00.000Z");
  });

  it("is complete on its own even with two-step on, and bypasses the password lock-out", async () => {
    const { ctx, clock, authenticator } = await setUp();
    await addPasskey(ctx.admin, authenticator);
    const setup = await ctx.admin
      .post("/api/admin/two-step/setup")
      .send({ currentPassword: ADMIN.password })
      .expect(200);
    const code = new TOTP({ secret: Secret.fromBase32(setup.body.secret as string) }).generate({
      timestamp: clock.now().getTime(),
    });
    await ctx.admin.post("/api/admin/two-step/enable").send({ code }).expect(200);
    expect((await supertest(ctx.app).post("/api/login").send(ADMIN).expect(200)).body).toEqual({
      twoFactorRequired: true,
    });
    for (let i = 0; i < 6; i++)
      await supertest(ctx.app)
        .post("/api/login")
        .send({ ...ADMIN, password: "wrong" });
    await supertest(ctx.app).post("/api/login").send(ADMIN).expect(429);
    const { agent, options } = await beginSignIn(ctx.app);
    await agent
      .post("/api/login/passkey")
      .send({ response: authenticator.authenticate(options) })
      .expect(200);
  });

  it("refuses a replayed answer, an expired challenge, another browser's challenge, another site's passkey, and a counter gone backwards", async () => {
    const { ctx, clock, authenticator } = await setUp();
    await addPasskey(ctx.admin, authenticator);

    const firstBrowser = supertest(ctx.app);
    const begun = await firstBrowser.post("/api/login/passkey/options").expect(200);
    const ceremonyCookie = ([] as string[])
      .concat(begun.headers["set-cookie"] ?? [])
      .map((c) => c.split(";")[0])
      .join("; ");
    const answer = authenticator.authenticate(begun.body);
    await firstBrowser.post("/api/login/passkey").set("Cookie", ceremonyCookie).send({ response: answer }).expect(200);
    // The same answer again, with the same ceremony cookie: its challenge was used up.
    const replayed = await firstBrowser
      .post("/api/login/passkey")
      .set("Cookie", ceremonyCookie)
      .send({ response: answer })
      .expect(401);
    expect(replayed.body.message).toMatch(/already used, or the request was not started in this browser/);
    // …and against a fresh challenge it does not match.
    const fresh = await beginSignIn(ctx.app);
    const mismatch = await fresh.agent.post("/api/login/passkey").send({ response: answer }).expect(401);
    expect(mismatch.body.message).toMatch(/does not match the request/);

    const late = await beginSignIn(ctx.app);
    clock.advance(5 * 60_000 + 1_000);
    const expired = await late.agent
      .post("/api/login/passkey")
      .send({ response: authenticator.authenticate(late.options) })
      .expect(401);
    expect(expired.body.message).toMatch(/expired/);

    // Begun in one browser, answered from another (no ceremony cookie).
    const elsewhere = await beginSignIn(ctx.app);
    await supertest(ctx.app)
      .post("/api/login/passkey")
      .send({ response: authenticator.authenticate(elsewhere.options) })
      .expect(401);

    // A passkey made for another site, answered for that site.
    const other = createSoftwareAuthenticator({ origin: "https://evil.example", rpId: "evil.example" });
    other.register({ challenge: "x", user: { id: "someone" } });
    const foreign = await beginSignIn(ctx.app);
    const unknown = await foreign.agent
      .post("/api/login/passkey")
      .send({ response: other.authenticate(foreign.options) })
      .expect(401);
    expect(unknown.body.message).toMatch(/not one of this site's/);
    // Our passkey's answer, made on another site's page.
    const phished = await beginSignIn(ctx.app);
    const wrongOrigin = await phished.agent
      .post("/api/login/passkey")
      .send({
        response: authenticator.authenticate(phished.options, { origin: "https://evil.example", rpId: "evil.example" }),
      })
      .expect(401);
    expect(wrongOrigin.body.message).toMatch(/made for another site/);

    const cloned = await beginSignIn(ctx.app);
    const backwards = await cloned.agent
      .post("/api/login/passkey")
      .send({ response: authenticator.authenticate(cloned.options, { counter: 1 }) })
      .expect(401);
    expect(backwards.body.message).toMatch(/signature counter went backwards/);
  });

  it("allows 10 failed passkey sign-ins per address per 15 minutes, then answers 429", async () => {
    const { ctx, clock, authenticator } = await setUp();
    await addPasskey(ctx.admin, authenticator);
    for (let i = 0; i < 10; i++) {
      await supertest(ctx.app)
        .post("/api/login/passkey")
        .send({ response: authenticator.authenticate({ challenge: "bm9wZQ" }) })
        .expect(401);
    }
    const { agent, options } = await beginSignIn(ctx.app);
    const limited = await agent
      .post("/api/login/passkey")
      .send({ response: authenticator.authenticate(options) })
      .expect(429);
    expect(limited.body.message).toMatch(/Too many failed passkey sign-ins/);
    expect(Number(limited.headers["retry-after"])).toBeGreaterThan(0);
    // The password still works: the passkey limit is its own.
    await supertest(ctx.app).post("/api/login").send(ADMIN).expect(200);
    // The window is 15 minutes: a second before its end the address is still refused, at its end it is not.
    clock.advance(14 * 60_000 + 59_000);
    const early = await beginSignIn(ctx.app);
    await early.agent
      .post("/api/login/passkey")
      .send({ response: authenticator.authenticate(early.options) })
      .expect(429);
    clock.advance(1_000);
    const next = await beginSignIn(ctx.app);
    await next.agent
      .post("/api/login/passkey")
      .send({ response: authenticator.authenticate(next.options) })
      .expect(200);
  });

  it("refuses an answer whose origin alone is another site's (this site's RP ID)", async () => {
    const { ctx, authenticator } = await setUp();
    await addPasskey(ctx.admin, authenticator);
    const { agent, options } = await beginSignIn(ctx.app);
    const refused = await agent
      .post("/api/login/passkey")
      .send({ response: authenticator.authenticate(options, { origin: "https://evil.example" }) });
    expect([refused.status, refused.body.message]).toEqual([
      401,
      "This passkey answer was made for another site, so it was refused.",
    ]);
  });

  it("refuses an answer whose RP ID alone is another site's (made on this site's page)", async () => {
    const { ctx, authenticator } = await setUp();
    await addPasskey(ctx.admin, authenticator);
    const { agent, options } = await beginSignIn(ctx.app);
    const refused = await agent
      .post("/api/login/passkey")
      .send({ response: authenticator.authenticate(options, { rpId: "evil.example" }) });
    expect([refused.status, refused.body.message]).toEqual([
      401,
      "This passkey answer was made for another site, so it was refused.",
    ]);
  });

  it("refuses a new answer, its counter moved on, signed for a challenge this browser was not given", async () => {
    const { ctx, authenticator } = await setUp();
    await addPasskey(ctx.admin, authenticator);
    const sessions = async () => (await ctx.services.db.selectFrom("sessions").select("id").execute()).length;
    const before = await sessions();
    const { agent, options } = await beginSignIn(ctx.app);
    const otherChallenge = Buffer.from("a challenge this site never gave this browser").toString("base64url");
    const refused = await agent
      .post("/api/login/passkey")
      .send({ response: authenticator.authenticate({ ...options, challenge: otherChallenge }) });
    expect([refused.status, refused.body.message]).toEqual([
      401,
      "This passkey answer does not match the request (it may be a replayed answer). Please try again.",
    ]);
    expect(await sessions()).toBe(before);
  });

  it("a ceremony begun on instance A is finished on instance B", async () => {
    const { ctx, authenticator } = await setUp();
    const b = await ctx.openInstance();
    const cookies = (res: { headers: Record<string, unknown> }) =>
      ([] as string[])
        .concat((res.headers["set-cookie"] as string[]) ?? [])
        .map((c) => c.split(";")[0])
        .join("; ");
    // Adding: signed in and begun on A, the answer sent to B with A's cookies (as behind a load balancer).
    const agentA = supertest.agent(ctx.app);
    const login = await agentA.post("/api/login").send(ADMIN).expect(200);
    const onA = await agentA.post("/api/admin/passkeys/options").send({ currentPassword: ADMIN.password }).expect(200);
    const added = await b.api
      .post("/api/admin/passkeys")
      .set("Cookie", `${cookies(login)}; ${cookies(onA)}`)
      .send({ response: authenticator.register(onA.body.options) });
    expect(added.status).toBe(201);

    // Signing in: options from A, the answer to B.
    const a = supertest(ctx.app);
    const options = await a.post("/api/login/passkey/options").expect(200);
    const signedIn = await b.api
      .post("/api/login/passkey")
      .set("Cookie", cookies(options))
      .send({ response: authenticator.authenticate(options.body) })
      .expect(200);
    expect(signedIn.body.username).toBe(ADMIN.username);
  });
});

describe("confirming a change with a passkey instead of the password", () => {
  it("turns two-step off with a passkey's answer to a fresh challenge; a replayed answer is refused", async () => {
    const { ctx, clock, authenticator } = await setUp();
    await addPasskey(ctx.admin, authenticator);
    const setup = await ctx.admin
      .post("/api/admin/two-step/setup")
      .send({ currentPassword: ADMIN.password })
      .expect(200);
    const code = new TOTP({ secret: Secret.fromBase32(setup.body.secret as string) }).generate({
      timestamp: clock.now().getTime(),
    });
    await ctx.admin.post("/api/admin/two-step/enable").send({ code }).expect(200);

    const first = await ctx.admin.post("/api/admin/confirm/passkey/options").expect(200);
    const answer = authenticator.authenticate(first.body);
    await ctx.admin.post("/api/admin/two-step/recovery-codes").send({ passkey: answer }).expect(200);
    const replayed = await ctx.admin.post("/api/admin/two-step/disable").send({ passkey: answer }).expect(400);
    expect(replayed.body.errors.passkey).toMatch(/already used/);
    expect((await ctx.admin.get("/api/admin/sign-in-methods").expect(200)).body.twoStep.status).toBe("on");

    const second = await ctx.admin.post("/api/admin/confirm/passkey/options").expect(200);
    await ctx.admin
      .post("/api/admin/two-step/disable")
      .send({ passkey: authenticator.authenticate(second.body) })
      .expect(200);
    expect((await ctx.admin.get("/api/admin/sign-in-methods").expect(200)).body.twoStep.status).toBe("off");
  });
});

describe("passkey challenges", () => {
  it("an address may ask for 60 in 15 minutes, then 429 (each is a database row)", async () => {
    const { ctx } = await setUp();
    for (let i = 0; i < 60; i++) await supertest(ctx.app).post("/api/login/passkey/options").expect(200);
    await supertest(ctx.app).post("/api/login/passkey/options").expect(429);
  });
});

describe("the security log", () => {
  it("records a passkey added, a sign-in with it, a failed one, a refused one, and its removal", async () => {
    const { ctx, authenticator } = await setUp();
    const added = await addPasskey(ctx.admin, authenticator, "Mark's iPhone");
    const { agent, options } = await beginSignIn(ctx.app);
    await agent
      .post("/api/login/passkey")
      .send({ response: authenticator.authenticate(options) })
      .expect(200);
    for (let i = 0; i < 11; i++)
      await supertest(ctx.app)
        .post("/api/login/passkey")
        .send({ response: authenticator.authenticate({ challenge: "bm9wZQ" }) });
    await ctx.admin
      .delete(`/api/admin/passkeys/${encodeURIComponent(added.body.id as string)}`)
      .send({ currentPassword: ADMIN.password })
      .expect(204);
    // One clock moment for all (the injected clock stands still), so compared as a sorted list.
    const log = await ctx.services.db.selectFrom("activity_log").select(["kind", "outcome", "detail"]).execute();
    const mine = log.filter(
      (row) => row.kind.startsWith("passkey.") || row.kind === "sign-in.passkey" || row.kind === "sign-in.locked",
    );
    expect(mine.map((row) => `${row.kind} ${row.outcome}`).sort()).toEqual(
      [
        "passkey.added success",
        "sign-in.passkey success",
        ...Array<string>(10).fill("sign-in.passkey failure"),
        "sign-in.locked refused",
        "passkey.removed success",
      ].sort(),
    );
    const signIn = mine.find((row) => row.kind === "sign-in.passkey" && row.outcome === "success")!;
    expect(JSON.parse(signIn.detail)).toEqual({ passkey: "Mark's iPhone" });
  });
});

describe("a SITE_URL passkeys cannot work with", () => {
  it.each([
    ["http://127.0.0.1:3000", /IP address/],
    ["http://cornerstone.example.nz", /plain http/],
  ])("%s hides the passkey buttons and says why", async (siteUrl, reason) => {
    const { ctx } = await setUp({ SITE_URL: siteUrl });
    expect((await supertest(ctx.app).get("/api/login/methods").expect(200)).body).toEqual({ passkeys: false });
    const methods = await ctx.admin.get("/api/admin/sign-in-methods").expect(200);
    expect(methods.body.passkeys.available).toBe(false);
    expect(methods.body.passkeys.unavailableReason).toMatch(reason);
    await supertest(ctx.app).post("/api/login/passkey/options").expect(400);
  });

  it("http://localhost works (development)", async () => {
    const { ctx } = await setUp({ SITE_URL: "http://localhost:5173" });
    expect((await supertest(ctx.app).get("/api/login/methods").expect(200)).body).toEqual({ passkeys: true });
  });
});
