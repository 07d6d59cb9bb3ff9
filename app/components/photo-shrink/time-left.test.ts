import { describe, expect, it } from "vitest";
import { createTimeLeftEstimate, timeLeftInWords } from "./time-left";

describe("the time an upload has left", () => {
  it("says nothing in its first second, then goes by the average rate since it started", () => {
    const estimate = createTimeLeftEstimate(10_000);
    expect(estimate.secondsLeft(50_000, 500_000, 10_900)).toBeNull();
    // 100 KB in 2 s: 50 KB/s, 400 KB to go.
    expect(estimate.secondsLeft(100_000, 500_000, 12_000)).toBe(8);
    expect(estimate.secondsLeft(500_000, 500_000, 20_000)).toBe(0);
    expect(estimate.secondsLeft(0, 500_000, 15_000)).toBeNull();
  });

  it.each([
    [0, "a few seconds left"],
    [7, "a few seconds left"],
    [8, "about 10 seconds left"],
    [12, "about 10 seconds left"],
    [13, "about 15 seconds left"],
    [54, "about 55 seconds left"],
    [55, "about a minute left"],
    [89, "about a minute left"],
    [90, "about 2 minutes left"],
    [200, "about 3 minutes left"],
  ])("%i s: %s", (seconds, words) => {
    expect(timeLeftInWords(seconds)).toBe(words);
  });
});
