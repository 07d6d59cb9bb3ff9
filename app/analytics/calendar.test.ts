import { describe, expect, it } from "vitest";
import { addDays, dayBounds, dayIn, startOfDay, weekStartOf } from "./calendar";

const NZ = "Pacific/Auckland";
const HOUR = 3_600_000;

describe("New Zealand calendar days", () => {
  it("puts an instant on its New Zealand day, not its UTC day", () => {
    // 11:30 UTC on 13 March is 00:30 on 14 March in New Zealand (NZDT, UTC+13).
    expect(dayIn(NZ, Date.parse("2026-03-13T11:30:00Z"))).toBe("2026-03-14");
    expect(dayIn(NZ, Date.parse("2026-03-13T10:59:59.999Z"))).toBe("2026-03-13");
    // Winter (NZST, UTC+12).
    expect(dayIn(NZ, Date.parse("2026-07-01T12:00:00Z"))).toBe("2026-07-02");
  });

  it("finds midnight in summer and in winter", () => {
    expect(new Date(startOfDay(NZ, "2026-03-14")).toISOString()).toBe("2026-03-13T11:00:00.000Z");
    expect(new Date(startOfDay(NZ, "2026-07-02")).toISOString()).toBe("2026-07-01T12:00:00.000Z");
  });

  it("knows the day daylight saving ends (25 hours) and the day it starts (23 hours)", () => {
    // 5 April 2026: clocks go back from 3:00 to 2:00.
    const autumn = dayBounds(NZ, Date.parse("2026-04-05T00:00:00Z"));
    expect(autumn.day).toBe("2026-04-05");
    expect((autumn.endsAt - autumn.startsAt) / HOUR).toBe(25);
    expect(new Date(autumn.startsAt).toISOString()).toBe("2026-04-04T11:00:00.000Z");
    expect(new Date(autumn.endsAt).toISOString()).toBe("2026-04-05T12:00:00.000Z");
    // 27 September 2026: clocks go forward from 2:00 to 3:00.
    const spring = dayBounds(NZ, Date.parse("2026-09-27T00:00:00Z"));
    expect(spring.day).toBe("2026-09-27");
    expect((spring.endsAt - spring.startsAt) / HOUR).toBe(23);
    // An ordinary day.
    const plain = dayBounds(NZ, Date.parse("2026-06-10T00:00:00Z"));
    expect((plain.endsAt - plain.startsAt) / HOUR).toBe(24);
  });

  it("counts calendar days and Sunday-started weeks", () => {
    expect(addDays("2026-02-28", 1)).toBe("2026-03-01");
    expect(addDays("2026-01-01", -1)).toBe("2025-12-31");
    // 14 March 2026 is a Saturday; its week started on Sunday 8 March.
    expect(weekStartOf("2026-03-14")).toBe("2026-03-08");
    expect(weekStartOf("2026-03-08")).toBe("2026-03-08");
  });
});
