import { describe, expect, it } from "vitest";
import { createManualClock, systemClock } from "./clock";

describe("clock", () => {
  it("a manual clock moves only when told to", () => {
    const clock = createManualClock("2026-05-01T00:00:00.000Z");
    expect(clock.now().toISOString()).toBe("2026-05-01T00:00:00.000Z");
    expect(clock.advance(30_000).toISOString()).toBe("2026-05-01T00:00:30.000Z");
    clock.set("2026-06-01T12:00:00.000Z");
    expect(clock.now().toISOString()).toBe("2026-06-01T12:00:00.000Z");
  });

  it("the system clock reads the real time", () => {
    const before = Date.now();
    const now = systemClock.now().getTime();
    expect(now).toBeGreaterThanOrEqual(before);
    expect(now).toBeLessThanOrEqual(Date.now());
  });
});
