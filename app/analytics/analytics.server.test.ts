import fs from "node:fs/promises";
import os from "node:os";
import path from "node:path";
import { Writable } from "node:stream";
import { sql } from "kysely";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { migrateToLatest, openDatabase, type Database } from "~/db/database.server";
import { parseEnv } from "~/env.server";
import { createManualClock, type ManualClock } from "~/lib/clock";
import { createLogger } from "~/lib/logger.server";
import { createAnalytics, type Analytics, type AnalyticsLimits } from "./analytics.server";

const NZ = "Pacific/Auckland";
const PHONE =
  "Mozilla/5.0 (Linux; Android 14; Pixel 7) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/126.0 Mobile Safari/537.36";

let dir: string;
let db: Database;
let clock: ManualClock;
let logged: string[];
const started: Analytics[] = [];

beforeEach(async () => {
  dir = await fs.mkdtemp(path.join(os.tmpdir(), "cornerstone-analytics-"));
  db = openDatabase(dir);
  await migrateToLatest(db);
  // 14:00 on Saturday 14 March 2026 in New Zealand (NZDT, UTC+13).
  clock = createManualClock("2026-03-14T01:00:00.000Z");
  logged = [];
});
afterEach(async () => {
  for (const analytics of started.splice(0)) await analytics.stop();
  await db.destroy().catch(() => {});
  await fs.rm(dir, { recursive: true, force: true });
});

function analyticsFor(options: { enabled?: boolean; limits?: Partial<AnalyticsLimits>; database?: Database } = {}) {
  const logger = createLogger({
    level: "info",
    destination: new Writable({
      write(chunk, _e, cb) {
        logged.push(String(chunk));
        cb();
      },
    }),
  });
  const analytics = createAnalytics({
    db: options.database ?? db,
    logger,
    clock,
    enabled: options.enabled ?? true,
    timeZone: NZ,
    limits: options.limits,
  });
  started.push(analytics);
  return analytics;
}

const view = (ip: string, page = "/", userAgent = PHONE, referrerHost: string | null = null) => ({
  path: page,
  ip,
  userAgent,
  referrerHost,
});

const daily = (day: string) => db.selectFrom("analytics_daily").selectAll().where("day", "=", day).executeTakeFirst();
const pages = async (day: string) =>
  Object.fromEntries(
    (await db.selectFrom("analytics_daily_pages").select(["path", "views"]).where("day", "=", day).execute()).map(
      (r) => [r.path, Number(r.views)],
    ),
  );
const referrers = async (day: string) =>
  Object.fromEntries(
    (await db.selectFrom("analytics_daily_referrers").select(["host", "views"]).where("day", "=", day).execute()).map(
      (r) => [r.host, Number(r.views)],
    ),
  );
const workingRows = async (day: string) => ({
  salts: (await db.selectFrom("analytics_salts").select("day").where("day", "=", day).execute()).length,
  hashes: (await db.selectFrom("analytics_visitors").select("day").where("day", "=", day).execute()).length,
});

describe("counting and flushing", () => {
  it("keeps views per day, page and referrer host, and unique visitors by (address, user agent)", async () => {
    const analytics = analyticsFor();
    await analytics.start();
    analytics.record(view("203.0.113.1", "/", PHONE, "google.com"));
    analytics.record(view("203.0.113.1", "/stonework"));
    analytics.record(view("203.0.113.1", "/stonework", "Mozilla/5.0 (iPhone) Safari/604.1"));
    analytics.record(view("203.0.113.2", "/contact", PHONE, "google.com"));
    analytics.record(view("203.0.113.3", "/", PHONE, "facebook.com"));
    expect(analytics.counters()).toMatchObject({ bufferedViews: 5, bufferedVisitors: 4 });
    // Nothing is written until a flush.
    expect(await daily("2026-03-14")).toBeUndefined();

    await analytics.flush();
    expect(await daily("2026-03-14")).toMatchObject({ views: 5, visitors: 4, closed_at: null });
    expect(await pages("2026-03-14")).toEqual({ "/": 2, "/stonework": 2, "/contact": 1 });
    expect(await referrers("2026-03-14")).toEqual({ "google.com": 2, "facebook.com": 1 });
    expect(analytics.counters()).toMatchObject({ bufferedViews: 0, bufferedVisitors: 0 });

    // A returning visitor adds a view, not a visitor; flushes add up.
    analytics.record(view("203.0.113.1", "/"));
    analytics.record(view("203.0.113.9", "/"));
    await analytics.flush();
    expect(await daily("2026-03-14")).toMatchObject({ views: 7, visitors: 5 });
    expect(await pages("2026-03-14")).toMatchObject({ "/": 4 });
  });

  it("counts nothing when turned off, and keeps no working data", async () => {
    const on = analyticsFor();
    await on.start();
    expect((await workingRows("2026-03-14")).salts).toBe(1);
    await on.stop();

    const off = analyticsFor({ enabled: false });
    await off.start();
    off.record(view("203.0.113.1"));
    await off.flush();
    expect(await daily("2026-03-14")).toBeUndefined();
    expect(await db.selectFrom("analytics_salts").selectAll().execute()).toEqual([]);
  });

  it("counts visitors seen before the day's salt was loaded: the flush hashes them", async () => {
    const analytics = analyticsFor();
    analytics.record(view("203.0.113.1"));
    analytics.record(view("203.0.113.2"));
    await analytics.runOnce();
    expect(await daily("2026-03-14")).toMatchObject({ views: 2, visitors: 2 });
  });

  it("without the day's salt, still saves the views but not the visitors", async () => {
    const analytics = analyticsFor();
    await sql`alter table analytics_salts rename to analytics_salts_away`.execute(db);
    analytics.record(view("203.0.113.1"));
    await analytics.runOnce();
    expect(await daily("2026-03-14")).toMatchObject({ views: 1, visitors: 0 });
    expect(analytics.counters()).toMatchObject({ unsalted: 1, bufferedViews: 0, bufferedVisitors: 0 });
    expect(logged.join("")).toMatch(/loading the day's salt failed/);
    await sql`alter table analytics_salts_away rename to analytics_salts`.execute(db);
  });

  it("flushes at stop", async () => {
    const analytics = analyticsFor();
    await analytics.start();
    analytics.record(view("203.0.113.1"));
    await analytics.stop();
    expect(await daily("2026-03-14")).toMatchObject({ views: 1, visitors: 1 });
  });

  it("keeps the counts of a failed flush for the next one, and logs nothing identifying", async () => {
    const analytics = analyticsFor();
    await analytics.start();
    analytics.record(view("203.0.113.77", "/", "UniqueTestBrowser/1.0", "example.org"));
    await sql`alter table analytics_daily_pages rename to analytics_daily_pages_away`.execute(db);
    await analytics.flush();
    expect(analytics.counters()).toMatchObject({ failedFlushes: 1, bufferedViews: 1, bufferedVisitors: 1 });
    expect(await daily("2026-03-14")).toBeUndefined();
    expect(logged.join("")).toMatch(/saving the visit counts failed/);
    expect(logged.join("")).not.toMatch(/203\.0\.113\.77|UniqueTestBrowser/);

    await sql`alter table analytics_daily_pages_away rename to analytics_daily_pages`.execute(db);
    await analytics.flush();
    expect(await daily("2026-03-14")).toMatchObject({ views: 1, visitors: 1 });
    expect(await referrers("2026-03-14")).toEqual({ "example.org": 1 });
  });
});

describe("a referrer's addresses", () => {
  it("held over a failed flush, count with the next flush's: two addresses, two counted", async () => {
    const analytics = analyticsFor();
    await analytics.start();
    analytics.record(view("203.0.113.1", "/", PHONE, "example.org"));
    await sql`alter table analytics_daily_pages rename to analytics_daily_pages_away`.execute(db);
    await analytics.flush();
    await sql`alter table analytics_daily_pages_away rename to analytics_daily_pages`.execute(db);
    analytics.record(view("198.51.100.2", "/", PHONE, "example.org"));
    await analytics.flush();
    const stored = await db.selectFrom("analytics_daily_referrers").select(["host", "addresses"]).execute();
    expect(stored.map((row) => [row.host, Number(row.addresses)])).toEqual([["example.org", 2]]);
  });
});

describe("memory between flushes is bounded", () => {
  it("past the cap on distinct visitors, views still count but extra visitors are dropped; extra referrers count as (other)", async () => {
    const analytics = analyticsFor({ limits: { maxBufferedVisitors: 3, maxBufferedReferrers: 2 } });
    await analytics.start();
    for (let i = 1; i <= 5; i++) analytics.record(view(`198.51.100.${i}`, "/", PHONE, `site${i}.example`));
    // Already-buffered visitors are still recognised at the cap.
    analytics.record(view("198.51.100.1", "/", PHONE, "site1.example"));
    expect(analytics.counters()).toMatchObject({
      bufferedViews: 6,
      bufferedVisitors: 3,
      droppedVisitors: 2,
      droppedReferrers: 3,
    });
    await analytics.flush();
    expect(await daily("2026-03-14")).toMatchObject({ views: 6, visitors: 3 });
    expect(await referrers("2026-03-14")).toEqual({ "site1.example": 2, "site2.example": 1, "(other)": 3 });
  });
});

describe("several instances on one database", () => {
  it("share the day's salt, so a visitor seen by both counts once", async () => {
    const first = analyticsFor();
    const second = analyticsFor();
    await Promise.all([first.start(), second.start()]);
    expect((await workingRows("2026-03-14")).salts).toBe(1);
    first.record(view("203.0.113.5", "/"));
    second.record(view("203.0.113.5", "/stonework"));
    second.record(view("203.0.113.6", "/"));
    await Promise.all([first.flush(), second.flush()]);
    expect(await daily("2026-03-14")).toMatchObject({ views: 3, visitors: 2 });
  });

  it("roll over the same day at once without harm, and a late flush after it adds views but no hashes", async () => {
    const first = analyticsFor();
    const second = analyticsFor();
    await Promise.all([first.start(), second.start()]);
    first.record(view("203.0.113.5"));
    await first.flush();
    // The second instance still holds counts from the day that is about to end.
    second.record(view("203.0.113.7"));
    second.record(view("203.0.113.5"));

    clock.advance(12 * 3_600_000); // 02:00 on Sunday 15 March
    await Promise.all([first.rollOver(), second.rollOver()]);
    await first.rollOver();
    expect(await daily("2026-03-14")).toMatchObject({ views: 1, visitors: 1, closed_at: expect.any(String) });
    expect(await workingRows("2026-03-14")).toEqual({ salts: 0, hashes: 0 });

    await second.flush();
    expect(await daily("2026-03-14")).toMatchObject({ views: 3, visitors: 1 });
    expect(await workingRows("2026-03-14")).toEqual({ salts: 0, hashes: 0 });
  });
});

describe("the day's roll-over at midnight, New Zealand time", () => {
  it("closes the day at NZ midnight (not UTC's): totals stay, salt and hashes go, the next day counts afresh", async () => {
    clock.set("2026-03-14T10:59:00.000Z"); // 23:59 on 14 March in New Zealand
    const analytics = analyticsFor();
    await analytics.start();
    expect((await workingRows("2026-03-15")).salts).toBe(1); // tomorrow's salt is made ahead
    analytics.record(view("203.0.113.5", "/"));
    analytics.record(view("203.0.113.6", "/contact"));

    clock.advance(2 * 60_000); // 00:01 on 15 March in NZ, still 14 March in UTC
    // The same visitor after midnight is a new day's visitor (a new salt): no I/O needed to count it.
    analytics.record(view("203.0.113.5", "/stonework"));
    await analytics.runOnce();

    expect(await daily("2026-03-14")).toMatchObject({ views: 2, visitors: 2, closed_at: expect.any(String) });
    expect(await pages("2026-03-14")).toEqual({ "/": 1, "/contact": 1 });
    expect(await workingRows("2026-03-14")).toEqual({ salts: 0, hashes: 0 });
    expect(await daily("2026-03-15")).toMatchObject({ views: 1, visitors: 1, closed_at: null });
    expect(await workingRows("2026-03-15")).toEqual({ salts: 1, hashes: 1 });
    expect((await workingRows("2026-03-16")).salts).toBe(1);

    // The same visitor's hash differs from one day to the next: days cannot be linked.
    const before = await db.selectFrom("analytics_visitors").select("hash").execute();
    clock.set("2026-03-15T11:30:00.000Z"); // 00:30 on 16 March
    analytics.record(view("203.0.113.5", "/stonework"));
    await analytics.runOnce();
    const after = await db.selectFrom("analytics_visitors").select("hash").execute();
    expect(after).toHaveLength(1);
    expect(after[0]!.hash).not.toBe(before[0]!.hash);
  });

  it("gets the day right on the day daylight saving ends (25 hours)", async () => {
    // 23:30 on Sunday 5 April 2026, NZST (UTC+12) since 3:00 that morning.
    clock.set("2026-04-05T11:30:00.000Z");
    const analytics = analyticsFor();
    await analytics.start();
    analytics.record(view("203.0.113.5"));
    clock.advance(29 * 60_000); // 23:59: still 5 April (with last summer's UTC+13 it would be 6 April)
    analytics.record(view("203.0.113.6"));
    await analytics.runOnce();
    expect(await daily("2026-04-05")).toMatchObject({ views: 2, visitors: 2, closed_at: null });

    clock.advance(2 * 60_000); // 00:01 on 6 April
    analytics.record(view("203.0.113.5"));
    await analytics.runOnce();
    expect(await daily("2026-04-05")).toMatchObject({ views: 2, visitors: 2, closed_at: expect.any(String) });
    expect(await workingRows("2026-04-05")).toEqual({ salts: 0, hashes: 0 });
    expect(await daily("2026-04-06")).toMatchObject({ views: 1, visitors: 1 });
  });

  it("gets the day right on the day daylight saving starts (23 hours)", async () => {
    // 23:50 on Sunday 27 September 2026, NZDT (UTC+13) since 2:00 that morning.
    clock.set("2026-09-27T10:50:00.000Z");
    const analytics = analyticsFor();
    await analytics.start();
    analytics.record(view("203.0.113.5"));
    clock.advance(15 * 60_000); // 00:05 on 28 September (with winter's UTC+12 it would still be the 27th)
    analytics.record(view("203.0.113.5"));
    await analytics.runOnce();
    expect(await daily("2026-09-27")).toMatchObject({ views: 1, visitors: 1, closed_at: expect.any(String) });
    expect(await daily("2026-09-28")).toMatchObject({ views: 1, visitors: 1, closed_at: null });
  });

  it("closes days missed while the server was down, at start", async () => {
    const analytics = analyticsFor();
    await analytics.start();
    analytics.record(view("203.0.113.5"));
    await analytics.stop();
    expect((await workingRows("2026-03-14")).hashes).toBe(1);

    clock.advance(3 * 24 * 3_600_000);
    const later = analyticsFor();
    await later.start();
    expect(await daily("2026-03-14")).toMatchObject({ views: 1, visitors: 1, closed_at: expect.any(String) });
    expect(await db.selectFrom("analytics_salts").select("day").orderBy("day").execute()).toEqual([
      { day: "2026-03-17" },
      { day: "2026-03-18" },
    ]);
    expect(await db.selectFrom("analytics_visitors").selectAll().execute()).toEqual([]);
  });
});

describe("the ANALYTICS setting", () => {
  it("is on by default, can be turned off, and refuses anything else with a clear message", () => {
    expect(parseEnv({}).ANALYTICS).toBe("on");
    expect(parseEnv({ ANALYTICS: "off" }).ANALYTICS).toBe("off");
    expect(() => parseEnv({ ANALYTICS: "no" })).toThrow(/ANALYTICS must be on or off/);
  });
});
