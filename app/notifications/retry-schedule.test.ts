import { describe, expect, it } from "vitest";
import { afterFailure, giveUpTime } from "./retry-schedule";

describe("afterFailure", () => {
  const start = new Date("2026-03-01T00:00:00.000Z");
  const giveUpAt = giveUpTime(start);
  const at = (ms: number) => new Date(start.getTime() + ms);

  it("retries after 30 s, 2 min, 10 min, 1 h, then hourly", () => {
    expect(afterFailure(1, start, giveUpAt)).toEqual({ status: "pending", nextAttemptAt: "2026-03-01T00:00:30.000Z" });
    expect(afterFailure(2, at(30_000), giveUpAt).nextAttemptAt).toBe("2026-03-01T00:02:30.000Z");
    expect(afterFailure(3, at(150_000), giveUpAt).nextAttemptAt).toBe("2026-03-01T00:12:30.000Z");
    expect(afterFailure(4, at(750_000), giveUpAt).nextAttemptAt).toBe("2026-03-01T01:12:30.000Z");
    expect(afterFailure(5, at(4_350_000), giveUpAt).nextAttemptAt).toBe("2026-03-01T02:12:30.000Z");
    expect(afterFailure(17, at(20 * 3_600_000), giveUpAt).nextAttemptAt).toBe("2026-03-01T21:00:00.000Z");
  });

  it("fails for good once 24 hours have passed", () => {
    expect(afterFailure(27, at(24 * 3_600_000 - 1), giveUpAt).status).toBe("pending");
    expect(afterFailure(28, at(24 * 3_600_000), giveUpAt)).toEqual({ status: "failed", nextAttemptAt: null });
  });
});
