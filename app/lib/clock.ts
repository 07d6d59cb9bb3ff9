/**
 * Time, injected: background work (retries, schedules, leases, daily
 * roll-overs) asks a Clock, so tests move time forward instead of waiting.
 */
export type Clock = {
  now(): Date;
};

export const systemClock: Clock = { now: () => new Date() };

/** A clock that only moves when told to, for tests. */
export type ManualClock = Clock & {
  set(time: Date | string | number): void;
  advance(ms: number): Date;
};

export function createManualClock(start: Date | string | number = "2026-01-01T00:00:00.000Z"): ManualClock {
  let current = new Date(start).getTime();
  return {
    now: () => new Date(current),
    set(time) {
      current = new Date(time).getTime();
    },
    advance(ms) {
      current += ms;
      return new Date(current);
    },
  };
}
