import { afterEach, describe, expect, it } from "vitest";
import { analyticsReport } from "~/analytics/analytics-report.server";
import { createAnalytics, type Analytics } from "~/analytics/analytics.server";
import { addDays } from "~/analytics/calendar";
import { createManualClock } from "~/lib/clock";
import { createTestContext, type TestContext } from "./helpers";

/**
 * Anonymous referrers cannot grow the database. At most 100
 * referrer hosts a day are stored by name, counted in the database so that
 * every flush of every instance shares the cap; the rest of the day's
 * referred views are one "(other)" row. Days older than 400 are deleted.
 * On this run's back end (SQLite, or PostgreSQL with TEST_BACKEND=postgres-s3).
 */

const BROWSER =
  "Mozilla/5.0 (Linux; Android 14; Pixel 7) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/126.0 Mobile Safari/537.36";
const TODAY = "2026-03-14";

let ctx: TestContext | undefined;
afterEach(async () => {
  await ctx?.close();
  ctx = undefined;
});

/** Two instances' visit counters on one database, on 14 March 2026 (NZ). */
async function twoInstances() {
  // 14:00 on Saturday 14 March 2026 in New Zealand.
  const clock = createManualClock("2026-03-14T01:00:00.000Z");
  ctx = await createTestContext({}, { clock });
  const first = ctx.services;
  // PostgreSQL: a second server process, with its own connections. SQLite: one process owns the
  // file, so a second counter shares its connection (two in one process would block each other).
  const db = ctx.backend.database === "postgres" ? (await ctx.openInstance()).services.db : first.db;
  const second = {
    db,
    analytics: createAnalytics({ db, logger: first.logger, clock, enabled: true, timeZone: first.analytics.timeZone }),
  };
  const instances = [first, second];
  // What server/start.ts's first pass does: load the day's salt (no timer here; the tests flush).
  for (const services of instances) await services.analytics.runOnce();
  return { ctx, clock, instances };
}

const referrerRows = async (db: TestContext["services"]["db"], day: string) =>
  (await db.selectFrom("analytics_daily_referrers").select(["host", "views"]).where("day", "=", day).execute()).map(
    (row) => ({
      host: row.host,
      views: Number(row.views),
    }),
  );

describe("referrer hosts per day", () => {
  it("10,000 distinct referrers over 20 flushes of two instances leave at most 101 rows: 100 hosts and (other)", async () => {
    const { ctx, clock, instances } = await twoInstances();
    let host = 0;
    for (let round = 0; round < 10; round++) {
      // Each round, both instances count 500 new hosts and 3 views from a busy one, and flush at the same time.
      for (const services of instances) {
        for (let i = 0; i < 3; i++)
          services.analytics.record({
            path: "/",
            ip: `203.0.113.${i}`,
            userAgent: BROWSER,
            referrerHost: "google.com",
          });
        for (let i = 0; i < 500; i++) {
          host += 1;
          services.analytics.record({
            path: "/",
            ip: `198.51.100.${host % 250}`,
            userAgent: BROWSER,
            referrerHost: `site-${host}.example`,
          });
        }
      }
      await Promise.all(instances.map((services) => services.analytics.flush()));
    }
    expect(host).toBe(10_000);

    const rows = await referrerRows(ctx.services.db, TODAY);
    expect(rows.length).toBeLessThanOrEqual(101);
    expect(rows.filter((row) => row.host !== "(other)")).toHaveLength(100);
    // Nothing was lost: every referred view is in a named row or in (other).
    expect(rows.reduce((sum, row) => sum + row.views, 0)).toBe(10_060);
    // The busiest host of the first flush was stored, and keeps counting after the day is full.
    expect(rows.find((row) => row.host === "google.com")).toEqual({ host: "google.com", views: 60 });
    expect(rows.find((row) => row.host === "(other)")).toEqual({ host: "(other)", views: 9_901 });

    // The dashboard lists the hosts visitors from two addresses came from (each site-N had one), then the rest as one row.
    const report = await analyticsReport({ db: ctx.services.db, analytics: ctx.services.analytics, clock });
    expect(report.topReferrers).toEqual([
      { host: "google.com", views: 60 },
      { host: "(other)", views: 9_901 },
    ]);

    // The next day starts with room for 100 hosts again.
    clock.advance(24 * 3_600_000);
    ctx.services.analytics.record({
      path: "/",
      ip: "203.0.113.1",
      userAgent: BROWSER,
      referrerHost: "site-99999.example",
    });
    await ctx.services.analytics.flush();
    expect(await referrerRows(ctx.services.db, addDays(TODAY, 1))).toEqual([{ host: "site-99999.example", views: 1 }]);
  });
});

type Instance = { analytics: Analytics };

describe("which referrers the owner sees", () => {
  it("a host is listed once visitors from 2 addresses came from it, seen by any instances; one address (or one /56) plants none", async () => {
    const { ctx, clock, instances } = await twoInstances();
    const [first, second] = [instances[0]!, instances[1]!];
    const visit = (services: Instance, ip: string, referrerHost: string) =>
      services.analytics.record({ path: "/", ip, userAgent: BROWSER, referrerHost });
    // 30 spam hosts from one address, each seen by both instances; the IPv6 client's other /64s of its /56 too.
    for (let i = 0; i < 30; i++) {
      visit(first, "198.51.100.66", `spam-${i}.example`);
      visit(second, "198.51.100.66", `spam-${i}.example`);
      visit(first, `2001:db8:5:${(i % 16).toString(16)}::1`, "ipv6-spam.example");
    }
    // A real referrer: one visitor on each instance, from two addresses, in separate flushes.
    visit(first, "203.0.113.10", "nzherald.co.nz");
    await Promise.all(instances.map((services) => services.analytics.flush()));
    const report = () => analyticsReport({ db: ctx.services.db, analytics: ctx.services.analytics, clock });
    expect((await report()).topReferrers).toEqual([]);
    visit(second, "203.0.113.11", "nzherald.co.nz");
    visit(second, "203.0.113.11", "nzherald.co.nz");
    await Promise.all(instances.map((services) => services.analytics.flush()));
    expect((await report()).topReferrers).toEqual([{ host: "nzherald.co.nz", views: 3 }]);
    // Every view is still counted, listed or not.
    const rows = await referrerRows(ctx.services.db, TODAY);
    expect(rows.reduce((sum, row) => sum + row.views, 0)).toBe(93);
  });
});

describe("how long totals are kept", () => {
  it("deletes a day's totals, pages and referrers once the day is more than 400 days old", async () => {
    const { ctx, instances } = await twoInstances();
    const { db } = ctx.services;
    const days = [addDays(TODAY, -402), addDays(TODAY, -401), addDays(TODAY, -400), addDays(TODAY, -1)];
    expect(days.slice(0, 3)).toEqual(["2025-02-05", "2025-02-06", "2025-02-07"]);
    for (const day of days) {
      await db
        .insertInto("analytics_daily")
        .values({ day, views: 3, visitors: 2, closed_at: "2026-01-01T00:00:00.000Z" })
        .execute();
      await db.insertInto("analytics_daily_pages").values({ day, path: "/", views: 3 }).execute();
      await db.insertInto("analytics_daily_referrers").values({ day, host: "google.com", views: 1 }).execute();
    }
    await instances[0]!.analytics.rollOver();
    const kept = ["2025-02-07", addDays(TODAY, -1)];
    for (const table of ["analytics_daily", "analytics_daily_pages", "analytics_daily_referrers"] as const) {
      const rows = await db.selectFrom(table).select("day").orderBy("day").execute();
      expect(rows.map((row) => row.day)).toEqual(kept);
    }
  });
});
