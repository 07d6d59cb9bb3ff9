import type { Database } from "~/db/database.server";
import type { Clock } from "~/lib/clock";

/** Fixed-window limits in the database (decision 0014): one atomic upsert counts, so none slip under together. */
/** `count`: the attempts counted in the current window (a refused attempt over the limit may not be). */
type RateLimitDecision =
  { allowed: true; count: number } | { allowed: false; count: number; retryAfterSeconds: number };

export type RateLimiter = {
  readonly scope: string;
  /** Counts one attempt now; allowed while the window's count is within the limit. */
  hit(key: string): Promise<RateLimitDecision>;
  /** Forgets the key's count (a good sign-in clears its failures). */
  reset(key: string): Promise<void>;
};

export type RateLimitRule = {
  /** The limit's name, stored with every row: `contact`, `sign-in:address`, … */
  scope: string;
  limit: number;
  windowMs: number;
  /** Turns the caller's key into the stored one (a keyed hash of a normalised address, say). */
  keyOf?: (key: string) => string;
};

export function createRateLimiter(db: Database, clock: Clock, rule: RateLimitRule): RateLimiter {
  const keyOf = rule.keyOf ?? ((key: string) => key);
  return {
    scope: rule.scope,
    async hit(key) {
      const now = clock.now();
      const nowIso = now.toISOString();
      const storedKey = keyOf(key);
      const refusal = (count: number, expires: string): RateLimitDecision => ({
        allowed: false,
        count,
        retryAfterSeconds: Math.max(1, Math.ceil((new Date(expires).getTime() - now.getTime()) / 1000)),
      });
      // Already over the limit in a live window: refused with a read, so a flood costs no writes.
      // (Admission itself is decided by the atomic upsert below, never by this read.)
      const current = await db
        .selectFrom("rate_limit_counters")
        .select(["count", "expires_at"])
        .where("scope", "=", rule.scope)
        .where("key", "=", storedKey)
        .executeTakeFirst();
      if (current && current.expires_at > nowIso && Number(current.count) >= rule.limit) {
        return refusal(Number(current.count), current.expires_at);
      }
      const expiresAt = new Date(now.getTime() + rule.windowMs).toISOString();
      // A window that has passed starts over at 1; otherwise the count goes up by 1.
      // Both SET expressions read the old row, on SQLite and PostgreSQL alike.
      const row = await db
        .insertInto("rate_limit_counters")
        .values({ scope: rule.scope, key: storedKey, window_start: nowIso, expires_at: expiresAt, count: 1 })
        .onConflict((oc) =>
          oc.columns(["scope", "key"]).doUpdateSet((eb) => {
            const passed = eb("rate_limit_counters.expires_at", "<=", nowIso);
            return {
              count: eb
                .case()
                .when(passed)
                .then(eb.lit(1))
                .else(eb("rate_limit_counters.count", "+", eb.lit(1)))
                .end(),
              window_start: eb
                .case()
                .when(passed)
                .then(eb.ref("excluded.window_start"))
                .else(eb.ref("rate_limit_counters.window_start"))
                .end(),
              expires_at: eb
                .case()
                .when(passed)
                .then(eb.ref("excluded.expires_at"))
                .else(eb.ref("rate_limit_counters.expires_at"))
                .end(),
            };
          }),
        )
        .returning(["count", "expires_at"])
        .executeTakeFirstOrThrow();
      const count = Number(row.count);
      return count <= rule.limit ? { allowed: true, count } : refusal(count, row.expires_at);
    },
    async reset(key) {
      await db
        .deleteFrom("rate_limit_counters")
        .where("scope", "=", rule.scope)
        .where("key", "=", keyOf(key))
        .execute();
    },
  };
}

/** Deletes the rows whose window has passed (hourly housekeeping); returns how many. */
export async function pruneRateLimitCounters({ db, clock }: { db: Database; clock: Clock }): Promise<number> {
  const result = await db
    .deleteFrom("rate_limit_counters")
    .where("expires_at", "<=", clock.now().toISOString())
    .executeTakeFirst();
  return Number(result.numDeletedRows);
}

/** Deletes every count of these limits (`npm run admin:password` clears the sign-in lock-outs). */
export async function clearRateLimits(db: Database, scopes: readonly string[]): Promise<number> {
  if (!scopes.length) return 0;
  const result = await db.deleteFrom("rate_limit_counters").where("scope", "in", scopes).executeTakeFirst();
  return Number(result.numDeletedRows);
}
