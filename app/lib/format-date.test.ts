import { describe, expect, it } from "vitest";
import { formatSubmittedAt } from "./format-date";

describe("formatSubmittedAt", () => {
  it("writes the date like 'January 1st, 2024 at 3:00 PM' in local time", () => {
    expect(formatSubmittedAt(new Date(2024, 0, 1, 15, 0))).toBe("January 1st, 2024 at 3:00 PM");
  });

  it("uses English ordinals and a 12-hour clock", () => {
    expect(formatSubmittedAt(new Date(2025, 1, 2, 0, 5))).toBe("February 2nd, 2025 at 12:05 AM");
    expect(formatSubmittedAt(new Date(2025, 2, 3, 12, 30))).toBe("March 3rd, 2025 at 12:30 PM");
    expect(formatSubmittedAt(new Date(2025, 10, 22, 9, 41))).toBe("November 22nd, 2025 at 9:41 AM");
    expect(formatSubmittedAt(new Date(2025, 11, 11, 23, 59))).toBe("December 11th, 2025 at 11:59 PM");
  });

  it("accepts the API's ISO timestamps", () => {
    const iso = new Date(2024, 6, 4, 8, 7).toISOString();
    expect(formatSubmittedAt(iso)).toBe("July 4th, 2024 at 8:07 AM");
  });
});

describe("formatSubmittedAt in a named time zone", () => {
  it("writes New Zealand time, daylight saving included, whatever the machine's zone", () => {
    // 02:00 UTC on 1 January is 3:00 PM in Auckland (NZDT, UTC+13).
    expect(formatSubmittedAt("2024-01-01T02:00:00.000Z", { timeZone: "Pacific/Auckland" })).toBe(
      "January 1st, 2024 at 3:00 PM",
    );
    // 3 July is winter (NZST, UTC+12): 23:30 UTC on the 2nd is 11:30 AM on the 3rd.
    expect(formatSubmittedAt("2025-07-02T23:30:00.000Z", { timeZone: "Pacific/Auckland" })).toBe(
      "July 3rd, 2025 at 11:30 AM",
    );
    expect(formatSubmittedAt("2025-07-02T23:30:00.000Z", { timeZone: "UTC" })).toBe("July 2nd, 2025 at 11:30 PM");
  });

  it("agrees with the local format when the zone is the machine's own", () => {
    const zone = Intl.DateTimeFormat().resolvedOptions().timeZone;
    const when = new Date(2025, 10, 22, 9, 41);
    expect(formatSubmittedAt(when, { timeZone: zone })).toBe(formatSubmittedAt(when));
  });
});
