/**
 * A sliding-window counter per key (an IP address), kept in memory: the site
 * runs as one process, and losing the counts on restart is harmless.
 */
export type RateLimiter = {
  /** Whether another hit is allowed now, without counting one. */
  check(key: string, now?: number): { allowed: true } | { allowed: false; retryAfterSeconds: number };
  hit(key: string, now?: number): void;
  reset(key: string): void;
};

export function createRateLimiter(options: { limit: number; windowMs: number }): RateLimiter {
  const hits = new Map<string, number[]>();

  function recent(key: string, now: number): number[] {
    const kept = (hits.get(key) ?? []).filter((time) => now - time < options.windowMs);
    if (kept.length) hits.set(key, kept);
    else hits.delete(key);
    return kept;
  }

  // Forget idle keys now and then so the map cannot grow without bound.
  let lastSweep = Date.now();
  function sweep(now: number) {
    if (now - lastSweep < options.windowMs) return;
    lastSweep = now;
    for (const key of hits.keys()) recent(key, now);
  }

  return {
    check(key, now = Date.now()) {
      sweep(now);
      const times = recent(key, now);
      if (times.length < options.limit) return { allowed: true };
      const oldest = times[times.length - options.limit]!;
      return {
        allowed: false,
        retryAfterSeconds: Math.max(1, Math.ceil((oldest + options.windowMs - now) / 1000)),
      };
    },
    hit(key, now = Date.now()) {
      const times = recent(key, now);
      times.push(now);
      hits.set(key, times);
    },
    reset(key) {
      hits.delete(key);
    },
  };
}
