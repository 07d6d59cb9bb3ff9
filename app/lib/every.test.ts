import { describe, expect, it } from "vitest";
import { createManualClock } from "./clock";
import { every } from "./every";

/** A run that ends when the test says so. */
function heldRuns() {
  const releases: (() => void)[] = [];
  let started = 0;
  const run = () => {
    started += 1;
    return new Promise<void>((resolve) => releases.push(resolve));
  };
  return { run, started: () => started, releaseAll: () => releases.splice(0).forEach((release) => release()) };
}

const noErrors = (error: unknown) => {
  throw error;
};

/** A started task every second whose first run has begun and is held until the test releases it. */
async function startedWithHeldRun() {
  const clock = createManualClock();
  const held = heldRuns();
  const task = every(1_000, held.run, { clock, onError: noErrors });
  await task.start();
  clock.advance(1_000);
  await Promise.resolve();
  return { clock, held, task };
}

describe("every(interval, run)", () => {
  it("runs once per interval on the injected clock, not before; start() twice is one timer", async () => {
    const clock = createManualClock();
    let runs = 0;
    const task = every(60_000, async () => void (runs += 1), { clock, onError: noErrors });
    await task.start();
    await task.start();
    expect(runs).toBe(0);
    clock.advance(59_999);
    await Promise.resolve();
    expect(runs).toBe(0);
    clock.advance(1);
    await task.tick(); // the timer's run is in flight: this waits for it, it does not add one
    expect(runs).toBe(1);
    clock.advance(60_000);
    await task.tick();
    expect(runs).toBe(2);
    await task.stop();
  });

  it("with runAtStart, start() runs once and resolves when that run ends", async () => {
    const clock = createManualClock();
    let runs = 0;
    const task = every(60_000, async () => void (runs += 1), { clock, runAtStart: true, onError: noErrors });
    await task.start();
    expect(runs).toBe(1);
    await task.stop();
  });

  it("never starts a second run while one is in flight; the next tick after it ends runs again", async () => {
    const { clock, held, task } = await startedWithHeldRun();
    expect(held.started()).toBe(1);
    clock.advance(1_000);
    clock.advance(1_000);
    void task.tick();
    await Promise.resolve();
    expect(held.started()).toBe(1);

    held.releaseAll();
    await task.tick(); // the held run ends; this resolves with it
    clock.advance(1_000);
    await Promise.resolve();
    expect(held.started()).toBe(2);
    held.releaseAll();
    await task.stop();
  });

  it("stop() ends the timer and waits for the run in flight", async () => {
    const { clock, held, task } = await startedWithHeldRun();
    let stopped = false;
    const stopping = task.stop().then(() => (stopped = true));
    await Promise.resolve();
    expect(stopped).toBe(false);
    held.releaseAll();
    await stopping;
    expect(stopped).toBe(true);
    clock.advance(10_000);
    await Promise.resolve();
    expect(held.started()).toBe(1);
  });

  it("a failed run is reported, and the next tick runs again", async () => {
    const clock = createManualClock();
    const errors: unknown[] = [];
    let runs = 0;
    const task = every(
      1_000,
      async () => {
        runs += 1;
        if (runs === 1) throw new Error("database unreachable");
      },
      { clock, onError: (error) => errors.push(error) },
    );
    await task.start();
    clock.advance(1_000);
    await task.tick();
    expect(errors).toEqual([new Error("database unreachable")]);
    clock.advance(1_000);
    await task.tick();
    expect(runs).toBe(2);
    expect(errors).toHaveLength(1);
    await task.stop();
  });
});
