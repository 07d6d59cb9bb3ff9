import { hash, randomBytes } from "node:crypto";
import type { Database } from "~/db/database.server";
import { systemClock, type Clock } from "~/lib/clock";
import { every } from "~/lib/every";
import { normaliseClientAddress } from "~/lib/client-address.server";
import type { Logger } from "~/lib/logger.server";
import { closeEndedDays, newDayBuffer, writeDayCounts, type DayBuffer } from "./analytics-store.server";
import { addDays, dayBounds, type DayBounds } from "./calendar";
import { OTHER_REFERRERS } from "./report";

/**
 * Privacy-first visit counting (decision 0031): the request path only updates Maps; a flush every 10 s and at
 * shutdown hashes (day's salt, address, user agent) before anything is written. Only daily totals per page and
 * referrer host remain, for 400 days; no address, user agent, salt or hash is ever logged.
 */

type PageView = {
  /** A public page's path, e.g. "/stonework". */
  path: string;
  /** The visitor's address as Express resolves it (honouring TRUST_PROXY). */
  ip: string;
  userAgent: string;
  /** The linking site's host only, or null. */
  referrerHost: string | null;
};

export type AnalyticsLimits = {
  /** Distinct visitors held between two flushes; past it, views still count but new visitors do not. */
  maxBufferedVisitors: number;
  /** Distinct referrer hosts per day held between two flushes; past it, views count under "(other)". */
  maxBufferedReferrers: number;
};

const DEFAULT_ANALYTICS_LIMITS: AnalyticsLimits = { maxBufferedVisitors: 20_000, maxBufferedReferrers: 500 };
const FLUSH_INTERVAL_MS = 10_000;

type AnalyticsCounters = {
  /** Views recorded since start (flushed or not). */
  recorded: number;
  /** Distinct visitors left out because the buffer was full. */
  droppedVisitors: number;
  /** Referred views counted under "(other)" because the buffer was full. */
  droppedReferrers: number;
  /** Visitors left out because their day's salt was not loaded when the flush hashed them (database unreachable). */
  unsalted: number;
  /** Flushes that failed (their counts were kept for the next one). */
  failedFlushes: number;
};

export type Analytics = {
  readonly enabled: boolean;
  readonly timeZone: string;
  /** The hot path: counts one page view in memory. No I/O. */
  record(view: PageView): void;
  /** Writes the buffered counts to the database (one transaction). */
  flush(): Promise<void>;
  /** Closes every ended day: keeps its totals, deletes its salt and visitor hashes, and deletes days older than 400. Safe to run twice, or on two instances at once. */
  rollOver(): Promise<void>;
  /** One background pass: flush, close ended days (once per day), load today's and tomorrow's salts. */
  runOnce(): Promise<void>;
  /** Runs one pass now, then one every 10 s. */
  start(): Promise<void>;
  /** Stops the timer and flushes what is left. */
  stop(): Promise<void>;
  /** What is buffered now, and what was dropped. */
  counters(): AnalyticsCounters & { bufferedViews: number; bufferedVisitors: number };
};

/** A visitor's daily hash: 128 bits of SHA-256 over the day's salt, the address and the user agent. */
function visitorHash(salt: string, ip: string, userAgent: string): string {
  return hash("sha256", `${salt}\n${ip}\n${userAgent}`, "base64url").slice(0, 22);
}

/** A referrer host's visitors' addresses held until the flush: enough to find 2 that differ (an IPv6 client counts per /56). */
const REFERRER_ADDRESSES_HELD = 4;

/** A log-safe description of a failure: its kind and message, never its parameters or details. */
function safeError(error: unknown) {
  const { name, message, code } = (error ?? {}) as { name?: string; message?: string; code?: string };
  return { name, message, code };
}

export function createAnalytics(options: {
  db: Database;
  logger: Logger;
  clock: Clock;
  enabled: boolean;
  timeZone: string;
  limits?: Partial<AnalyticsLimits>;
  flushIntervalMs?: number;
}): Analytics {
  const { db, logger, clock, enabled, timeZone } = options;
  const limits = { ...DEFAULT_ANALYTICS_LIMITS, ...options.limits };
  const flushIntervalMs = options.flushIntervalMs ?? FLUSH_INTERVAL_MS;

  let buffer = new Map<string, DayBuffer>();
  let bufferedVisitors = 0;
  let bufferedViews = 0;
  const counters: AnalyticsCounters = {
    recorded: 0,
    droppedVisitors: 0,
    droppedReferrers: 0,
    unsalted: 0,
    failedFlushes: 0,
  };
  /** Salts by day: today's and tomorrow's (made ahead, so midnight needs no I/O). */
  const salts = new Map<string, string>();
  let today: DayBounds | null = null;

  // The request path reads the time on every view: the system clock without building a Date.
  const nowMs = clock === systemClock ? Date.now : () => clock.now().getTime();
  const currentDay = (now: number): DayBounds => {
    if (!today || now < today.startsAt || now >= today.endsAt) today = dayBounds(timeZone, now);
    return today;
  };

  // Flushes, roll-overs and salt loads run one at a time.
  let queue: Promise<unknown> = Promise.resolve();
  const serially = <T>(task: () => Promise<T>): Promise<T> => {
    const run = queue.then(task, task);
    queue = run.catch(() => {});
    return run;
  };

  function record(view: PageView): void {
    if (!enabled) return;
    const { day } = currentDay(nowMs());
    let counts = buffer.get(day);
    if (!counts) {
      counts = newDayBuffer();
      buffer.set(day, counts);
    }
    counters.recorded++;
    bufferedViews++;
    counts.views++;
    counts.pages.set(view.path, (counts.pages.get(view.path) ?? 0) + 1);
    if (view.referrerHost) {
      addReferrer(counts.referrers, view.referrerHost, 1);
      const ips = counts.referrerIps.get(view.referrerHost);
      if (ips) {
        if (ips.size < REFERRER_ADDRESSES_HELD) ips.add(view.ip);
      } else if (counts.referrers.has(view.referrerHost)) counts.referrerIps.set(view.referrerHost, new Set([view.ip]));
    }
    const { ip, userAgent } = view;
    const agents = counts.seen.get(ip);
    if (agents === userAgent || (typeof agents === "object" && agents.has(userAgent))) return;
    if (bufferedVisitors >= limits.maxBufferedVisitors) {
      counters.droppedVisitors++;
      return;
    }
    // Most addresses show one browser: a plain string until a second one appears.
    if (agents === undefined) counts.seen.set(ip, userAgent);
    else if (typeof agents === "string") counts.seen.set(ip, new Set([agents, userAgent]));
    else agents.add(userAgent);
    bufferedVisitors++;
  }

  /** Counts referred views by host; past the buffer's cap of hosts, a new host's views go under "(other)". */
  function addReferrer(referrers: Map<string, number>, host: string, views: number): void {
    const held = referrers.get(host);
    if (held !== undefined) referrers.set(host, held + views);
    else if (referrers.size < limits.maxBufferedReferrers) referrers.set(host, views);
    else {
      counters.droppedReferrers += views;
      referrers.set(OTHER_REFERRERS, (referrers.get(OTHER_REFERRERS) ?? 0) + views);
    }
  }

  /** The flush's first step: every visitor becomes its salted hash (a day whose salt is gone keeps its views only). */
  function hashVisitors(pending: Map<string, DayBuffer>): Map<string, DayBuffer> {
    for (const [day, counts] of pending) {
      const salt = salts.get(day);
      for (const [ip, agents] of counts.seen) {
        for (const userAgent of typeof agents === "string" ? [agents] : agents) {
          if (salt === undefined) counters.unsalted++;
          else counts.visitors.add(visitorHash(salt, ip, userAgent));
        }
      }
      counts.seen.clear();
      // A (host, address) pair: the host ends the user agent's place with a line break, which no user agent has.
      for (const [host, ips] of salt === undefined ? [] : counts.referrerIps) {
        const pairs = [...ips].map((ip) => visitorHash(salt!, normaliseClientAddress(ip), `${host}\n`));
        counts.referrerAddresses.set(host, new Set(pairs));
      }
      counts.referrerIps.clear();
    }
    return pending;
  }

  /** Adds one set of counts to another, the caps applied (visitors beyond them are dropped and counted, referrers folded into "(other)"). */
  function mergeInto(target: Map<string, DayBuffer>, source: Map<string, DayBuffer>, visitorsHeld: { count: number }) {
    for (const [day, from] of source) {
      let counts = target.get(day);
      if (!counts) {
        counts = newDayBuffer();
        target.set(day, counts);
      }
      counts.views += from.views;
      for (const [path, n] of from.pages) counts.pages.set(path, (counts.pages.get(path) ?? 0) + n);
      for (const [host, n] of from.referrers) addReferrer(counts.referrers, host, n);
      for (const [host, pairs] of from.referrerAddresses) {
        if (!counts.referrers.has(host)) continue;
        const held = counts.referrerAddresses.get(host) ?? new Set();
        for (const pair of pairs) if (held.size < REFERRER_ADDRESSES_HELD) held.add(pair);
        counts.referrerAddresses.set(host, held);
      }
      for (const visitor of from.visitors) {
        if (counts.visitors.has(visitor)) continue;
        if (visitorsHeld.count >= limits.maxBufferedVisitors) {
          counters.droppedVisitors++;
          continue;
        }
        counts.visitors.add(visitor);
        visitorsHeld.count++;
      }
    }
  }

  /** Counts of a failed flush (visitors already hashed), kept for the next one within the same caps. */
  let retry = new Map<string, DayBuffer>();
  let retryViews = 0;
  let retryVisitors = 0;

  function flush(): Promise<void> {
    return serially(async () => {
      if (buffer.size === 0 && retry.size === 0) return;
      // First of all, raw visitors become salted hashes; last time's failed counts join them.
      const toWrite = retry;
      const held = { count: retryVisitors };
      mergeInto(toWrite, hashVisitors(buffer), held);
      buffer = new Map();
      bufferedViews = 0;
      bufferedVisitors = 0;
      retry = new Map();
      retryViews = 0;
      retryVisitors = 0;
      try {
        await writeDayCounts(db, toWrite);
      } catch (error) {
        counters.failedFlushes++;
        logger.warn(
          { err: safeError(error) },
          "analytics: saving the visit counts failed; they are kept for the next try",
        );
        const kept = { count: 0 };
        mergeInto(retry, toWrite, kept);
        retryVisitors = kept.count;
        for (const counts of retry.values()) retryViews += counts.views;
      }
    });
  }

  function rollOver(): Promise<void> {
    return serially(async () => {
      const now = clock.now();
      const { day } = currentDay(now.getTime());
      await closeEndedDays(db, day, now.toISOString());
      for (const saltDay of [...salts.keys()]) if (saltDay < day) salts.delete(saltDay);
    });
  }

  /** Today's and tomorrow's salts: the first instance to ask creates each, every instance uses the same. */
  function loadSalts(): Promise<void> {
    return serially(async () => {
      const { day } = currentDay(clock.now().getTime());
      const days = [day, addDays(day, 1)];
      if (days.every((d) => salts.has(d))) return;
      await db
        .insertInto("analytics_salts")
        .values(
          days.map((d) => ({
            day: d,
            salt: randomBytes(24).toString("base64url"),
            created_at: clock.now().toISOString(),
          })),
        )
        .onConflict((oc) => oc.column("day").doNothing())
        .execute();
      const rows = await db.selectFrom("analytics_salts").select(["day", "salt"]).where("day", "in", days).execute();
      for (const row of rows) salts.set(row.day, row.salt);
    });
  }

  let lastRolledDay: string | null = null;
  const warn = (what: string) => (error: unknown) =>
    logger.warn({ err: safeError(error) }, `analytics: ${what} failed; retrying in 10 s`);
  async function tick(): Promise<void> {
    // Salts first: the flush hashes with them (yesterday's stays in memory until the roll-over).
    await loadSalts().catch(warn("loading the day's salt"));
    await flush();
    const { day } = currentDay(clock.now().getTime());
    if (lastRolledDay !== day) {
      await rollOver().then(() => (lastRolledDay = day), warn("closing ended days"));
    }
  }

  // tick() reports its own failures, and retries at the next one.
  const ticks = every(flushIntervalMs, tick, { runAtStart: true, onError: warn("a flush") });

  return {
    enabled,
    timeZone,
    record,
    flush,
    rollOver,
    runOnce: tick,
    async start() {
      if (!enabled) {
        // Counting is off: no working data is needed, so none is kept.
        await serially(async () => {
          await db.deleteFrom("analytics_visitors").execute();
          await db.deleteFrom("analytics_salts").execute();
        }).catch((error: unknown) => logger.warn({ err: safeError(error) }, "analytics: clearing working data failed"));
        return;
      }
      await ticks.start();
    },
    async stop() {
      await ticks.stop();
      await flush();
    },
    counters: () => ({
      ...counters,
      bufferedViews: bufferedViews + retryViews,
      bufferedVisitors: bufferedVisitors + retryVisitors,
    }),
  };
}
