/** Retry after 30 s, 2 min, 10 min and 1 h, then hourly; a failure after 24 h is final. */
const RETRY_DELAYS_MS = [30_000, 2 * 60_000, 10 * 60_000, 60 * 60_000] as const;
const HOURLY_MS = 60 * 60_000;
const GIVE_UP_AFTER_MS = 24 * 60 * 60_000;

export type AfterFailure = { status: "pending"; nextAttemptAt: string } | { status: "failed"; nextAttemptAt: null };

/** What follows failed attempt number `attempts` (1 for the first), made at `now`. */
export function afterFailure(attempts: number, now: Date, giveUpAt: string | null): AfterFailure {
  if (giveUpAt !== null && now.getTime() >= new Date(giveUpAt).getTime())
    return { status: "failed", nextAttemptAt: null };
  const delay = RETRY_DELAYS_MS[attempts - 1] ?? HOURLY_MS;
  return { status: "pending", nextAttemptAt: new Date(now.getTime() + delay).toISOString() };
}

export function giveUpTime(start: Date): string {
  return new Date(start.getTime() + GIVE_UP_AFTER_MS).toISOString();
}
