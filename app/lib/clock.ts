/** Time, injected: background work asks a Clock, so tests move time forward instead of waiting. */
export type Clock = {
  now(): Date;
};

/** A clock that can also run something every so often (see ./every.ts). */
export type TimerClock = Clock & {
  /** Calls `fn` every `ms` until the returned function is called; never keeps the process alive. */
  repeat(ms: number, fn: () => void): () => void;
};

export const systemClock: TimerClock = {
  now: () => new Date(),
  repeat(ms, fn) {
    const timer = setInterval(fn, ms);
    timer.unref();
    return () => clearInterval(timer);
  },
};

/** A clock that only moves when told to, for tests. */
export type ManualClock = TimerClock & {
  set(time: Date | string | number): void;
  /** Moves time on; each repeat that came due fires once (a long jump does not replay every interval). */
  advance(ms: number): Date;
};

export function createManualClock(start: Date | string | number = "2026-01-01T00:00:00.000Z"): ManualClock {
  let current = new Date(start).getTime();
  const repeats = new Set<{ ms: number; fn: () => void; dueAt: number }>();
  const fireDue = () => {
    for (const repeat of [...repeats]) {
      if (!repeats.has(repeat) || repeat.dueAt > current) continue;
      repeat.dueAt = current + repeat.ms;
      repeat.fn();
    }
  };
  return {
    now: () => new Date(current),
    repeat(ms, fn) {
      const repeat = { ms, fn, dueAt: current + ms };
      repeats.add(repeat);
      return () => void repeats.delete(repeat);
    },
    set(time) {
      current = new Date(time).getTime();
      fireDue();
    },
    advance(ms) {
      current += ms;
      fireDue();
      return new Date(current);
    },
  };
}
