import fs from "node:fs/promises";
import os from "node:os";
import path from "node:path";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { migrateToLatest, openDatabase, type Database } from "~/db/database.server";
import { createManualClock, type ManualClock } from "~/lib/clock";
import { clearRateLimits, createRateLimiter, pruneRateLimitCounters } from "./rate-limit.server";

let dir: string;
let db: Database;
let clock: ManualClock;
beforeEach(async () => {
  dir = await fs.mkdtemp(path.join(os.tmpdir(), "cornerstone-limits-"));
  db = openDatabase(dir);
  await migrateToLatest(db);
  clock = createManualClock("2026-03-01T00:00:00.000Z");
});
afterEach(async () => {
  await db.destroy();
  await fs.rm(dir, { recursive: true, force: true });
});

describe("createRateLimiter (database)", () => {
  it("allows the limit within the window, then refuses with the wait, then starts a new window", async () => {
    const limiter = createRateLimiter(db, clock, { scope: "test", limit: 3, windowMs: 60_000 });
    for (let i = 1; i <= 3; i++) expect(await limiter.hit("a")).toEqual({ allowed: true, count: i });
    clock.advance(10_000);
    expect(await limiter.hit("a")).toEqual({ allowed: false, count: 3, retryAfterSeconds: 50 });
    expect((await limiter.hit("b")).allowed).toBe(true);
    clock.advance(50_000);
    expect(await limiter.hit("a")).toEqual({ allowed: true, count: 1 });
  });

  it("admits exactly the limit out of many simultaneous hits, each with its own count", async () => {
    const limiter = createRateLimiter(db, clock, { scope: "test", limit: 5, windowMs: 60_000 });
    const results = await Promise.all(Array.from({ length: 40 }, () => limiter.hit("a")));
    const allowed = results.filter((r) => r.allowed);
    expect(allowed.map((r) => r.count).sort()).toEqual([1, 2, 3, 4, 5]);
    expect(results.filter((r) => !r.allowed)).toHaveLength(35);
  });

  it("refuses with a read once over the limit: the stored count stops growing", async () => {
    const limiter = createRateLimiter(db, clock, { scope: "test", limit: 2, windowMs: 60_000 });
    for (let i = 0; i < 3; i++) await limiter.hit("a");
    const stored = async () =>
      (await db.selectFrom("rate_limit_counters").select("count").executeTakeFirstOrThrow()).count;
    const after = await stored();
    for (let i = 0; i < 10; i++) expect((await limiter.hit("a")).allowed).toBe(false);
    expect(await stored()).toBe(after);
  });

  it("holds across two limiters on one database (two processes) and across a reopen (a restart)", async () => {
    const first = createRateLimiter(db, clock, { scope: "test", limit: 2, windowMs: 60_000 });
    const second = createRateLimiter(db, clock, { scope: "test", limit: 2, windowMs: 60_000 });
    await first.hit("a");
    await second.hit("a");
    await db.destroy();
    db = openDatabase(dir);
    const afterRestart = createRateLimiter(db, clock, { scope: "test", limit: 2, windowMs: 60_000 });
    expect((await afterRestart.hit("a")).allowed).toBe(false);
  });

  it("keeps scopes apart, stores the transformed key, and forgets a key on reset", async () => {
    const hashed = createRateLimiter(db, clock, { scope: "one", limit: 1, windowMs: 60_000, keyOf: (k) => `h(${k})` });
    const other = createRateLimiter(db, clock, { scope: "two", limit: 1, windowMs: 60_000 });
    await hashed.hit("a");
    expect((await other.hit("a")).allowed).toBe(true);
    expect(
      (await db.selectFrom("rate_limit_counters").select("key").where("scope", "=", "one").execute()).map((r) => r.key),
    ).toEqual(["h(a)"]);
    expect((await hashed.hit("a")).allowed).toBe(false);
    await hashed.reset("a");
    expect((await hashed.hit("a")).allowed).toBe(true);
  });

  it("prunes rows whose window has passed, and clears chosen scopes", async () => {
    const short = createRateLimiter(db, clock, { scope: "short", limit: 1, windowMs: 60_000 });
    const long = createRateLimiter(db, clock, { scope: "long", limit: 1, windowMs: 3_600_000 });
    await short.hit("a");
    await long.hit("a");
    await long.hit("b");
    clock.advance(60_000);
    expect(await pruneRateLimitCounters({ db, clock })).toBe(1);
    expect(await clearRateLimits(db, ["long"])).toBe(2);
    expect(await db.selectFrom("rate_limit_counters").selectAll().execute()).toEqual([]);
  });
});
