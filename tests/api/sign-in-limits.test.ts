import type { Kysely } from "kysely";
import type supertest from "supertest";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { DEVICE_COOKIE } from "~/auth/device-cookie.server";
import { FAILURE_ADDRESSES_KEPT } from "~/auth/sign-in.server";
import { listTables } from "~/db/snapshot.server";
import { createManualClock, type ManualClock } from "~/lib/clock";
import { SIGN_IN_LOCKED_MESSAGE } from "../../server/api/auth-routes";
import { ADMIN, createAdminContext, type AdminContext } from "./helpers";

// Attempts are counted when admitted; per address, per account, per device cookie.

let ctx: AdminContext;
let clock: ManualClock;
beforeEach(async () => {
  clock = createManualClock("2026-06-01T09:00:00.000Z");
  // TRUST_PROXY=loopback: each request names its client in X-Forwarded-For.
  ctx = await createAdminContext({ TRUST_PROXY: "loopback" }, { clock });
});
afterEach(async () => {
  await ctx.close();
});

const WRONG = { username: ADMIN.username, password: "a wrong guess" };
const LOCKED = { message: SIGN_IN_LOCKED_MESSAGE };

function signIn(body: { username: string; password: string }, from: string, cookie?: string) {
  const req = ctx.api.post("/api/login").set("X-Forwarded-For", from);
  if (cookie) req.set("Cookie", cookie);
  return req.send(body);
}

function cookieNamed(res: supertest.Response, name: string): string | undefined {
  return ([] as string[]).concat(res.headers["set-cookie"] ?? []).find((c) => c.startsWith(`${name}=`));
}

/** Signs in from this address and returns the browser's device cookie ("name=value"). */
async function deviceCookieFrom(address: string): Promise<string> {
  const res = await signIn(ADMIN, address).expect(200);
  return cookieNamed(res, DEVICE_COOKIE)!.split(";")[0]!;
}

const verifications = () => ctx.services.signIn.meter.verifications;

describe("per address", () => {
  it("50 simultaneous wrong sign-ins from one address: at most 5 argon2 verifications, at least 45 answers of 429", async () => {
    const before = verifications();
    const answers = await Promise.all(Array.from({ length: 50 }, () => signIn(WRONG, "198.51.100.7")));
    const statuses = answers.map((res) => res.status);
    expect(verifications() - before).toBeLessThanOrEqual(5);
    expect(statuses.filter((s) => s === 429).length).toBeGreaterThanOrEqual(45);
    expect(statuses.filter((s) => s === 401)).toHaveLength(verifications() - before);
    for (const res of answers.filter((r) => r.status === 429)) {
      expect(res.body).toEqual(LOCKED);
      expect(Number(res.headers["retry-after"])).toBeGreaterThan(14 * 60);
    }
  });

  it("ends after 15 minutes, on the injected clock", async () => {
    for (let i = 0; i < 5; i++) await signIn(WRONG, "198.51.100.7").expect(401);
    await signIn(ADMIN, "198.51.100.7").expect(429);
    clock.advance(15 * 60_000);
    await signIn(ADMIN, "198.51.100.7").expect(200);
  });

  it("counts an IPv6 client by its /56 and an IPv4-mapped address as the IPv4 one", async () => {
    for (let i = 1; i <= 5; i++) await signIn(WRONG, `2001:db8:7:8::${i}`).expect(401);
    // Another /64 of the same /56.
    await signIn(ADMIN, "2001:db8:7:ff:ffff:ffff:ffff:ffff").expect(429);
    await signIn(WRONG, "2001:db8:7:100::1").expect(401);

    for (let i = 0; i < 3; i++) await signIn(WRONG, "203.0.113.40").expect(401);
    for (let i = 0; i < 2; i++) await signIn(WRONG, "::ffff:203.0.113.40").expect(401);
    await signIn(ADMIN, "203.0.113.40").expect(429);
  });

  it("keeps no client address in the database, only keyed hashes", async () => {
    await signIn(WRONG, "198.51.100.77").expect(401);
    await signIn(ADMIN, "2001:db8:abcd:12:34::77").expect(200);
    await ctx.api.post("/api/contact").set("X-Forwarded-For", "198.51.100.77").send({
      name: "A visitor",
      email: "visitor@example.com",
      message: "A message long enough to be stored.",
    });
    const stored = JSON.stringify([
      await ctx.services.db.selectFrom("rate_limit_counters").selectAll().execute(),
      await ctx.services.db.selectFrom("sign_in_failures").selectAll().execute(),
    ]);
    expect(stored).toContain("contact");
    expect(stored).not.toContain("198.51.100");
    // The security log keeps a coarse network (IPv4 /24, IPv6 /48) and the same keyed hash.
    const log = JSON.stringify(await ctx.services.db.selectFrom("activity_log").selectAll().execute());
    expect(log).toContain('"198.51.100.0/24"');
    expect(log).toContain('"2001:db8:abcd::/48"');
    // Every table, the log included: never the full address, nor the IPv6 /64.
    const everything = JSON.stringify(
      await Promise.all(
        (await listTables(ctx.services.db)).map((table) =>
          (ctx.services.db as unknown as Kysely<Record<string, object>>).selectFrom(table).selectAll().execute(),
        ),
      ),
    );
    expect(everything).not.toContain("198.51.100.77");
    expect(everything).not.toMatch(/2001:db8:abcd:12/);
  });
});

describe("per account", () => {
  it("after 20 failures in an hour from any addresses, refuses even the right password from an unknown browser, with the same 429", async () => {
    for (let i = 1; i <= 20; i++) await signIn(WRONG, `203.0.113.${i}`).expect(401);
    const before = verifications();
    const wrong = await signIn(WRONG, "203.0.113.21").expect(429);
    const right = await signIn(ADMIN, "203.0.113.22").expect(429);
    expect(wrong.body).toEqual(LOCKED);
    expect(right.body).toEqual(wrong.body);
    expect(cookieNamed(right, "cornerstone_session")).toBeUndefined();
    expect(verifications()).toBe(before);
    // Any username counts against the one account: lock-outs never tell names apart.
    await signIn({ username: "nobody", password: "x" }, "203.0.113.23").expect(429);

    clock.advance(60 * 60_000);
    await signIn(ADMIN, "203.0.113.24").expect(200);
  });

  it("lets a browser with a device cookie in during the lock-out", async () => {
    const device = await deviceCookieFrom("192.0.2.10");
    for (let i = 1; i <= 21; i++) await signIn(WRONG, `203.0.113.${i}`);
    await signIn(ADMIN, "192.0.2.10").expect(429);
    const res = await signIn(ADMIN, "192.0.2.10", device).expect(200);
    expect(res.body).toEqual({ id: expect.any(String), username: ADMIN.username });
  });
});

describe("device cookies", () => {
  it("are signed, httpOnly, SameSite=Strict and last a year; renewed at each sign-in with the same id", async () => {
    const res = await signIn(ADMIN, "192.0.2.10").expect(200);
    const cookie = cookieNamed(res, DEVICE_COOKIE)!;
    expect(cookie).toMatch(/HttpOnly/);
    expect(cookie).toMatch(/SameSite=Strict/);
    expect(cookie).toMatch(/Path=\//);
    expect(cookie).toMatch(/Max-Age=31536000/);
    const value = decodeURIComponent(cookie.split(";")[0]!.split("=")[1]!);
    expect(ctx.services.signIn.deviceCookies.read(value)).toEqual({ id: expect.any(String), username: ADMIN.username });
    const again = await signIn(ADMIN, "192.0.2.11", cookie.split(";")[0]).expect(200);
    const renewed = decodeURIComponent(cookieNamed(again, DEVICE_COOKIE)!.split(";")[0]!.split("=")[1]!);
    expect(ctx.services.signIn.deviceCookies.read(renewed)!.id).toBe(ctx.services.signIn.deviceCookies.read(value)!.id);
  });

  it("let their browser in from an address a flood has locked (a shared mobile carrier address)", async () => {
    const device = await deviceCookieFrom("100.64.0.1");
    const flood = await Promise.all(Array.from({ length: 30 }, () => signIn(WRONG, "100.64.0.1")));
    expect(flood.filter((r) => r.status === 429).length).toBeGreaterThanOrEqual(25);
    await signIn(ADMIN, "100.64.0.1").expect(429);
    await signIn(ADMIN, "100.64.0.1", device).expect(200);
  });

  it("have their own 5 per 15 minutes, which leaves other browsers alone", async () => {
    const device = await deviceCookieFrom("192.0.2.10");
    for (let i = 1; i <= 5; i++) await signIn(WRONG, `192.0.2.${10 + i}`, device).expect(401);
    const before = verifications();
    const res = await signIn(ADMIN, "192.0.2.30", device).expect(429);
    expect(res.body).toEqual(LOCKED);
    expect(verifications()).toBe(before);
    // The device's failures did not count against the addresses or the account.
    await signIn(ADMIN, "192.0.2.11").expect(200);
    clock.advance(15 * 60_000);
    await signIn(ADMIN, "192.0.2.30", device).expect(200);
  });

  it("count only for the username they were issued for, and only when signed with the site's key", async () => {
    const device = await deviceCookieFrom("192.0.2.10");
    for (let i = 0; i < 5; i++) await signIn(WRONG, "192.0.2.50").expect(401);
    await signIn({ username: "someone.else", password: "x" }, "192.0.2.50", device).expect(429);
    const forged = device.replace(/.$/, (c) => (c === "A" ? "B" : "A"));
    await signIn(ADMIN, "192.0.2.50", forged).expect(429);
  });

  it("have a verification slot of their own: a flood that fills the queue cannot keep them out", async () => {
    const device = await deviceCookieFrom("192.0.2.10");
    const gate = ctx.services.signIn.gate;
    // Two long verifications elsewhere hold both shared slots.
    const held = [(await gate.acquire())!, (await gate.acquire())!];
    let answered = 0;
    const flood = Array.from({ length: 12 }, (_, i) =>
      signIn(WRONG, `198.51.100.${i + 1}`).then((r) => {
        answered += 1;
        return r.status;
      }),
    );
    // Every request of the flood has reached the gate: 8 wait in the queue, the other 4 were refused.
    await expect.poll(() => gate.waiting).toBe(8);
    await expect.poll(() => answered).toBe(4);
    const unknownBrowser = await signIn(ADMIN, "192.0.2.99").expect(429);
    expect(unknownBrowser.headers["retry-after"]).toBe("2");
    expect(unknownBrowser.body.message).toMatch(/Too many sign-ins are being checked right now/);
    await signIn(ADMIN, "192.0.2.10", device).expect(200);
    for (const release of held) release();
    const statuses = (await Promise.all(flood)).sort();
    expect(statuses).toEqual([...Array(8).fill(401), ...Array(4).fill(429)]);
  });
});

describe("the failures report", () => {
  /** The report of the session with this cookie, or of the context's signed-in agent. */
  const summary = async (sessionCookie?: string) => {
    const req = sessionCookie
      ? ctx.api.get("/api/admin/security/summary").set("Cookie", sessionCookie)
      : ctx.admin.get("/api/admin/security/summary");
    return (await req.expect(200)).body.failedSignInsBeforeThisSession;
  };
  const sessionOf = (res: supertest.Response) => cookieNamed(res, "cornerstone_session")!.split(";")[0]!;

  it("tells the next good sign-in how many failed since the last one, and from how many addresses", async () => {
    clock.advance(60_000);
    await signIn(WRONG, "203.0.113.1").expect(401);
    clock.advance(60_000);
    await signIn(WRONG, "203.0.113.2").expect(401);
    await signIn(WRONG, "203.0.113.2").expect(401);
    await signIn(WRONG, "2001:db8:1:1::1").expect(401);
    clock.advance(60_000);
    await signIn({ username: "nobody", password: "x" }, "2001:db8:1:1::2").expect(401);

    const res = await signIn(ADMIN, "192.0.2.10").expect(200);
    expect(await summary(sessionOf(res))).toEqual({
      failedAttempts: 5,
      addresses: 3,
      moreAddresses: false,
      firstFailedAt: "2026-06-01T09:01:00.000Z",
      lastFailedAt: "2026-06-01T09:03:00.000Z",
    });
    // The session signed in before them shows its own (empty) report; the next sign-in starts afresh.
    expect((await summary()).failedAttempts).toBe(0);
    const next = await signIn(ADMIN, "192.0.2.10").expect(200);
    expect(await summary(sessionOf(next))).toEqual({
      failedAttempts: 0,
      addresses: 0,
      moreAddresses: false,
      firstFailedAt: null,
      lastFailedAt: null,
    });
  });

  it("keeps at most a bounded number of addresses, counting the rest together", async () => {
    const now = clock.now().toISOString();
    await ctx.services.db
      .insertInto("sign_in_failures")
      .values(
        Array.from({ length: FAILURE_ADDRESSES_KEPT }, (_, i) => ({
          address_hash: `h${i}`,
          attempts: 1,
          first_failed_at: now,
          last_failed_at: now,
        })),
      )
      .execute();
    await signIn(WRONG, "203.0.113.1").expect(401);
    await signIn(WRONG, "203.0.113.2").expect(401);
    expect(await ctx.services.db.selectFrom("sign_in_failures").select("address_hash").execute()).toHaveLength(
      FAILURE_ADDRESSES_KEPT + 1,
    );
    const res = await signIn(ADMIN, "192.0.2.10").expect(200);
    expect(await summary(sessionOf(res))).toMatchObject({
      failedAttempts: FAILURE_ADDRESSES_KEPT + 2,
      addresses: FAILURE_ADDRESSES_KEPT,
      moreAddresses: true,
    });
  });
});
