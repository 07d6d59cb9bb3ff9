import type { Database } from "~/db/database.server";
import { addDays } from "./calendar";
import { OTHER_REFERRERS } from "./report";

/** Where visit counts are kept (docs/decisions/0031), shared by every instance; the counting is in analytics.server.ts. */

/** Referrer hosts stored by name per day, across every flush and instance; the rest of the day's referred views are one OTHER_REFERRERS row. */
const MAX_REFERRER_HOSTS_PER_DAY = 100;
/** A host is listed on the owner's Visits view once visitors from this many addresses came from it in a day: one address cannot plant a referrer. */
export const LISTED_FROM_ADDRESSES = 2;
/** Days of totals kept: older days are deleted when a day is closed. */
const RETENTION_DAYS = 400;

export type DayBuffer = {
  views: number;
  pages: Map<string, number>;
  /** Views by referrer host; views past the buffer's cap are counted under OTHER_REFERRERS. */
  referrers: Map<string, number>;
  /** A few of the addresses each referrer's visitors came from, as the request path sees them (the flush hashes them). */
  referrerIps: Map<string, Set<string>>;
  /** …and as the flush writes them: a salted hash of each (host, address) pair, kept with the day's visitor hashes. */
  referrerAddresses: Map<string, Set<string>>;
  /** The day's visitors, address → user agent(s): hashed with the salt by the flush, so kept at most 10 s. */
  seen: Map<string, string | Set<string>>;
  /** Salted visitor hashes, as the flush writes them. */
  visitors: Set<string>;
};

export const newDayBuffer = (): DayBuffer => ({
  views: 0,
  pages: new Map(),
  referrers: new Map(),
  referrerIps: new Map(),
  referrerAddresses: new Map(),
  seen: new Map(),
  visitors: new Set(),
});

/** Rows per multi-row insert (2 parameters each; well under SQLite's and PostgreSQL's limits). */
const INSERT_CHUNK = 400;

/**
 * The day's referrer rows: new hosts are listed up to MAX_REFERRER_HOSTS_PER_DAY, busiest first, the rest join
 * OTHER_REFERRERS; (host, address) hashes count each pair once across instances. Runs with the day's row locked.
 */
async function writeReferrers(trx: Database, day: string, counts: DayBuffer, closed: boolean): Promise<void> {
  if (counts.referrers.size === 0) return;
  const stored = await trx
    .selectFrom("analytics_daily_referrers")
    .select(["host", "addresses"])
    .where("day", "=", day)
    .execute();
  const named = new Map(
    stored.filter((row) => row.host !== OTHER_REFERRERS).map((row) => [row.host, Number(row.addresses)]),
  );
  let room = MAX_REFERRER_HOSTS_PER_DAY - named.size;
  const rows: { day: string; host: string; views: number; addresses: number }[] = [];
  let other = 0;
  for (const [host, views] of [...counts.referrers].sort((x, y) => y[1] - x[1])) {
    if (named.has(host)) rows.push({ day, host, views, addresses: 0 });
    else if (host !== OTHER_REFERRERS && room > 0) {
      rows.push({ day, host, views, addresses: 0 });
      room--;
    } else other += views;
  }
  // A closed day has deleted its hashes: new ones would linger.
  const counting = closed ? [] : rows.filter((row) => (named.get(row.host) ?? 0) < LISTED_FROM_ADDRESSES);
  const rowOf = new Map(
    counting.flatMap((row) => [...(counts.referrerAddresses.get(row.host) ?? [])].map((hash) => [hash, row] as const)),
  );
  const hashes = [...rowOf.keys()];
  for (let i = 0; i < hashes.length; i += INSERT_CHUNK) {
    const inserted = await trx
      .insertInto("analytics_visitors")
      .values(hashes.slice(i, i + INSERT_CHUNK).map((hash) => ({ day, hash })))
      .onConflict((oc) => oc.columns(["day", "hash"]).doNothing())
      .returning("hash")
      .execute();
    for (const { hash } of inserted) rowOf.get(hash)!.addresses += 1;
  }
  if (other > 0) rows.push({ day, host: OTHER_REFERRERS, views: other, addresses: 0 });
  for (let i = 0; i < rows.length; i += INSERT_CHUNK) {
    await trx
      .insertInto("analytics_daily_referrers")
      .values(rows.slice(i, i + INSERT_CHUNK))
      .onConflict((oc) =>
        oc.columns(["day", "host"]).doUpdateSet((eb) => ({
          views: eb("analytics_daily_referrers.views", "+", eb.ref("excluded.views")),
          addresses: eb("analytics_daily_referrers.addresses", "+", eb.ref("excluded.addresses")),
        })),
      )
      .execute();
  }
}

/** Adds buffered counts (visitors already hashed) to the stored totals, in one transaction. */
export async function writeDayCounts(db: Database, pending: Map<string, DayBuffer>): Promise<void> {
  await db.transaction().execute(async (trx) => {
    // Days in one order on every instance, so two flushes never lock each other's days crosswise.
    for (const [day, counts] of [...pending].sort(([x], [y]) => x.localeCompare(y))) {
      // The upsert locks the day's row, so a roll-over on another instance waits for this flush, or this one sees it closed.
      const daily = await trx
        .insertInto("analytics_daily")
        .values({ day, views: counts.views, visitors: 0, closed_at: null })
        .onConflict((oc) =>
          oc.column("day").doUpdateSet((eb) => ({ views: eb("analytics_daily.views", "+", eb.ref("excluded.views")) })),
        )
        .returning("closed_at")
        .executeTakeFirstOrThrow();
      if (counts.pages.size) {
        await trx
          .insertInto("analytics_daily_pages")
          .values([...counts.pages].map(([path, views]) => ({ day, path, views })))
          .onConflict((oc) =>
            oc
              .columns(["day", "path"])
              .doUpdateSet((eb) => ({ views: eb("analytics_daily_pages.views", "+", eb.ref("excluded.views")) })),
          )
          .execute();
      }
      await writeReferrers(trx, day, counts, daily.closed_at !== null);
      // A closed day has deleted its hashes: new ones would linger and could count someone twice.
      if (daily.closed_at !== null || counts.visitors.size === 0) continue;
      const visitors = [...counts.visitors];
      let added = 0;
      for (let i = 0; i < visitors.length; i += INSERT_CHUNK) {
        // Only hashes no instance has stored today come back: that is the number of new visitors.
        const inserted = await trx
          .insertInto("analytics_visitors")
          .values(visitors.slice(i, i + INSERT_CHUNK).map((visitor) => ({ day, hash: visitor })))
          .onConflict((oc) => oc.columns(["day", "hash"]).doNothing())
          .returning("day")
          .execute();
        added += inserted.length;
      }
      if (added > 0) {
        await trx
          .updateTable("analytics_daily")
          .set((eb) => ({ visitors: eb("visitors", "+", added) }))
          .where("day", "=", day)
          .execute();
      }
    }
  });
}

/** Closes every day before `today` (its salt and hashes go) and drops totals past RETENTION_DAYS; idempotent. */
export async function closeEndedDays(db: Database, today: string, closedAt: string): Promise<void> {
  await db.transaction().execute(async (trx) => {
    // Days that had a salt get a row, so a late flush from another instance sees them closed.
    const ended = await trx.selectFrom("analytics_salts").select("day").where("day", "<", today).execute();
    for (const row of ended) {
      await trx
        .insertInto("analytics_daily")
        .values({ day: row.day, views: 0, visitors: 0, closed_at: closedAt })
        .onConflict((oc) =>
          oc.column("day").doUpdateSet({ closed_at: closedAt }).where("analytics_daily.closed_at", "is", null),
        )
        .execute();
    }
    await trx
      .updateTable("analytics_daily")
      .set({ closed_at: closedAt })
      .where("day", "<", today)
      .where("closed_at", "is", null)
      .execute();
    await trx.deleteFrom("analytics_visitors").where("day", "<", today).execute();
    await trx.deleteFrom("analytics_salts").where("day", "<", today).execute();
    const oldestKept = addDays(today, -RETENTION_DAYS);
    await trx.deleteFrom("analytics_daily_pages").where("day", "<", oldestKept).execute();
    await trx.deleteFrom("analytics_daily_referrers").where("day", "<", oldestKept).execute();
    await trx.deleteFrom("analytics_daily").where("day", "<", oldestKept).execute();
  });
}
