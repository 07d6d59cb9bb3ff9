import { afterEach, describe, expect, it } from "vitest";
import { createLogDestination, flushAtExit, type LogDestinationIo } from "./log-destination.server";

/**
 * The bounded log destination against a reader that takes nothing (every write refused with
 * EAGAIN), on a clock the test moves: no real waiting, and the limits are the figures the
 * design gives (4 MB held, 1 s at exit), written out here rather than read from the module.
 */
const readers: { gone: boolean }[] = [];
// A reader that is gone (EPIPE) ends the destination's retries after each test.
afterEach(() => {
  for (const reader of readers.splice(0)) reader.gone = true;
});

function stuckReader() {
  let now = 0;
  const state = { gone: false };
  readers.push(state);
  const io: LogDestinationIo = {
    writeSync: () => {
      const code = state.gone ? "EPIPE" : "EAGAIN";
      throw Object.assign(new Error(`${code}: write`), { code });
    },
    now: () => now,
    pauseSync: (ms) => {
      now += ms;
    },
  };
  return { io, elapsed: () => now };
}

const KB_LINE = `${"x".repeat(1023)}\n`;

describe("the log destination on a reader that has stopped reading", () => {
  it("holds 4 MB (4,194,304 bytes) of lines and drops the next one", () => {
    const reader = stuckReader();
    const destination = createLogDestination(99, {}, reader.io);
    for (let i = 0; i < 4096; i++) destination.write(KB_LINE);
    expect(destination.queuedBytes).toBe(4_194_304);
    destination.write(KB_LINE);
    expect(destination.queuedBytes).toBe(4_194_304);
  });

  it("gives the queued lines 1 second at exit, then lets the process go", () => {
    const reader = stuckReader();
    const destination = createLogDestination(99, {}, reader.io);
    destination.write(KB_LINE);
    flushAtExit(destination);
    // Tried every 10 ms: the last try is within 10 ms after the deadline.
    expect(reader.elapsed()).toBeGreaterThanOrEqual(1000);
    expect(reader.elapsed()).toBeLessThanOrEqual(1010);
  });
});
