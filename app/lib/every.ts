import { systemClock, type TimerClock } from "./clock";

/** Background work every so often: one start, one stop, never two runs at once; time from an injected clock. */
export type Every = {
  /** Starts the timer (again a no-op once started). With `runAtStart`, runs once now and resolves when that run ends. */
  start(): Promise<void>;
  /** Stops the timer and waits for a run in flight. */
  stop(): Promise<void>;
  /** One run now, unless one is in flight: then resolves when that one ends. */
  tick(): Promise<void>;
};

export type EveryOptions = {
  clock?: TimerClock;
  /** Run once as soon as started, not only one interval later. */
  runAtStart?: boolean;
  /** Where a failed run is reported; the next tick runs again. */
  onError: (error: unknown) => void;
};

export function every(intervalMs: number, run: () => Promise<unknown>, options: EveryOptions): Every {
  const clock = options.clock ?? systemClock;
  let cancel: (() => void) | null = null;
  let inFlight: Promise<void> | null = null;

  function tick(): Promise<void> {
    if (inFlight) return inFlight;
    const current = Promise.resolve()
      .then(run)
      .then(
        () => undefined,
        (error: unknown) => options.onError(error),
      )
      .finally(() => {
        if (inFlight === current) inFlight = null;
      });
    inFlight = current;
    return current;
  }

  return {
    start() {
      if (cancel) return Promise.resolve();
      cancel = clock.repeat(intervalMs, () => void tick());
      return options.runAtStart ? tick() : Promise.resolve();
    },
    async stop() {
      cancel?.();
      cancel = null;
      await inFlight;
    },
    tick,
  };
}
