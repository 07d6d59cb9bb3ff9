import { sql } from "kysely";
import type { Database } from "~/db/database.server";
import { publicPageLabel } from "~/public-pages";
import type { AppServices } from "~/services.server";
import { LISTED_FROM_ADDRESSES } from "./analytics-store.server";
import { addDays, dayIn, startOfDay, weekStartOf } from "./calendar";
import { OTHER_REFERRERS, REPORT_DAYS, REPORT_TOP, REPORT_WEEKS, type AnalyticsReport } from "./report";

/** The tables of views by day and something else, and that something's column. */
const VIEWS_BY = { analytics_daily_pages: "path", analytics_daily_referrers: "host" } as const;

/** The REPORT_TOP paths or listed referrer hosts with the most views over the days, most first (a tie by name). */
function mostViewed(db: Database, table: keyof typeof VIEWS_BY, days: { firstDay: string; today: string }) {
  const key = VIEWS_BY[table];
  return db
    .selectFrom(table)
    .select((eb) => [eb.ref(key).as("key"), eb.fn.sum<number | string>("views").as("views")])
    .where("day", ">=", days.firstDay)
    .where("day", "<=", days.today)
    .$if(table === "analytics_daily_referrers", (query) =>
      query.where(key, "!=", OTHER_REFERRERS).where(sql.ref("addresses"), ">=", LISTED_FROM_ADDRESSES),
    )
    .groupBy(key)
    .orderBy("views", "desc")
    .orderBy(key)
    .limit(REPORT_TOP)
    .execute();
}

/** The dashboard's figures. Flushes this instance's buffered counts first, so they are up to the moment. */
export async function analyticsReport({
  db,
  analytics,
  clock,
}: Pick<AppServices, "db" | "analytics" | "clock">): Promise<AnalyticsReport> {
  await analytics.flush();
  const { timeZone } = analytics;
  const today = dayIn(timeZone, clock.now());
  const firstDay = addDays(today, -(REPORT_DAYS - 1));

  const dailyRows = await db
    .selectFrom("analytics_daily")
    .select(["day", "views", "visitors"])
    .where("day", ">=", firstDay)
    .where("day", "<=", today)
    .execute();
  const byDay = new Map(dailyRows.map((row) => [row.day, row]));
  const days = Array.from({ length: REPORT_DAYS }, (_, i) => {
    const day = addDays(firstDay, i);
    const row = byDay.get(day);
    return { day, visitors: Number(row?.visitors ?? 0), views: Number(row?.views ?? 0) };
  });

  const pageRows = await mostViewed(db, "analytics_daily_pages", { firstDay, today });
  const referrerRows = await mostViewed(db, "analytics_daily_referrers", { firstDay, today });
  // Hosts past each day's first 100 are not ranked: their views are one row at the end of the list.
  const otherReferrers = await db
    .selectFrom("analytics_daily_referrers")
    .select((eb) => eb.fn.sum<number | string>("views").as("views"))
    .where("day", ">=", firstDay)
    .where("day", "<=", today)
    .where("host", "=", OTHER_REFERRERS)
    .executeTakeFirst();
  const otherViews = Number(otherReferrers?.views ?? 0);

  // Enquiries by the business's calendar day, from the stored submissions themselves.
  const firstWeek = addDays(weekStartOf(today), -7 * (REPORT_WEEKS - 1));
  const since = new Date(startOfDay(timeZone, firstWeek < firstDay ? firstWeek : firstDay)).toISOString();
  const submissions = await db
    .selectFrom("contact_submissions")
    .select("submitted_at")
    .where("submitted_at", ">=", since)
    .execute();
  const weeks = new Map(Array.from({ length: REPORT_WEEKS }, (_, i) => [addDays(firstWeek, 7 * i), 0]));
  let enquiries = 0;
  for (const { submitted_at } of submissions) {
    const day = dayIn(timeZone, Date.parse(submitted_at));
    if (day > today) continue;
    if (day >= firstDay) enquiries++;
    const week = weekStartOf(day);
    if (weeks.has(week)) weeks.set(week, weeks.get(week)! + 1);
  }

  const visitors = days.reduce((sum, d) => sum + d.visitors, 0);
  return {
    enabled: analytics.enabled,
    timeZone,
    today,
    days,
    totals: { visitors, views: days.reduce((sum, d) => sum + d.views, 0), enquiries },
    enquiryRate: visitors > 0 ? enquiries / visitors : null,
    topPages: pageRows.map((row) => ({
      path: row.key,
      label: publicPageLabel(row.key) ?? row.key,
      views: Number(row.views),
    })),
    topReferrers: [
      ...referrerRows.map((row) => ({ host: row.key, views: Number(row.views) })),
      ...(otherViews > 0 ? [{ host: OTHER_REFERRERS, views: otherViews }] : []),
    ],
    enquiriesPerWeek: [...weeks].map(([weekStart, count]) => ({ weekStart, enquiries: count })),
  };
}
