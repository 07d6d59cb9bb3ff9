import { describe, expect, it } from "vitest";
import { applyKeepPolicy } from "./offsite-keep";

/** Hourly copies from `from` to `to` (inclusive), at half past each hour, leaving out the hours in `gaps`. */
function hourlyCopies(from: string, to: string, gaps: [string, string][] = []): { at: Date }[] {
  const copies = [];
  for (let t = new Date(from).getTime(); t <= new Date(to).getTime(); t += 3_600_000) {
    if (gaps.some(([start, end]) => t >= new Date(start).getTime() && t < new Date(end).getTime())) continue;
    copies.push({ at: new Date(t) });
  }
  return copies;
}

const iso = (copy: { at: Date }) => copy.at.toISOString().slice(0, 16);

describe("the off-site keep policy", () => {
  it("after 14 months of hourly copies, pruned every hour: the last 48 hours, the last 30 days, the last 12 months", () => {
    const all = hourlyCopies("2026-01-01T00:30:00Z", "2027-03-01T10:30:00Z");
    // As the copies run: each hour's copy, then the policy (what it removed never comes back).
    let kept: { at: Date }[] = [];
    for (const copy of all) kept = applyKeepPolicy([...kept, copy], { hourly: 48, daily: 30, monthly: 12 }).keep;
    const times = kept.map(iso).sort();

    const hours = times.filter((t) => t >= "2027-02-27T11:30");
    expect(hours).toHaveLength(48);
    expect(hours[0]).toBe("2027-02-27T11:30");
    expect(hours.at(-1)).toBe("2027-03-01T10:30");
    // Each earlier day back to 31 January: its last copy (23:30) only.
    const days = times.filter((t) => t >= "2027-01-31" && t < "2027-02-27T11:30");
    expect(days).toEqual(
      Array.from({ length: 27 }, (_, i) => `${new Date(Date.UTC(2027, 0, 31 + i)).toISOString().slice(0, 10)}T23:30`),
    );
    // Before that, each month's last copy, back to April 2026 (with January to March 2027 above: 12 months).
    expect(times.filter((t) => t < "2027-01-31")).toEqual([
      "2026-04-30T23:30",
      "2026-05-31T23:30",
      "2026-06-30T23:30",
      "2026-07-31T23:30",
      "2026-08-31T23:30",
      "2026-09-30T23:30",
      "2026-10-31T23:30",
      "2026-11-30T23:30",
      "2026-12-31T23:30",
    ]);
    expect(kept).toHaveLength(48 + 27 + 9);
  });

  it("the rules count periods that have a copy: a server off for three weeks loses none of its older copies to the gap", () => {
    const all = hourlyCopies("2027-01-01T00:30:00Z", "2027-02-15T00:30:00Z", [
      ["2027-01-20T00:00:00Z", "2027-02-10T00:00:00Z"],
    ]);
    const { keep } = applyKeepPolicy(all, { hourly: 48, daily: 30, monthly: 12 });
    const times = keep.map(iso);
    // 30 days that have copies: the 5 after the gap (10–14 Feb, and the 15th's one copy), and 19–… January before it.
    expect(times).toContain("2027-01-19T23:30");
    expect(times).toContain("2027-01-01T23:30");
    expect(times.filter((t) => t.startsWith("2027-01")).length).toBe(19);
  });

  it("always keeps the newest copy, even with every rule at 0; two copies in one hour keep the newer", () => {
    const copies = [{ at: new Date("2027-01-14T10:05:00Z") }, { at: new Date("2027-01-14T10:35:00Z") }];
    expect(applyKeepPolicy(copies, { hourly: 0, daily: 0, monthly: 0 }).keep).toEqual([copies[1]]);
    expect(applyKeepPolicy(copies, { hourly: 48, daily: 30, monthly: 12 })).toEqual({
      keep: [copies[1]],
      remove: [copies[0]],
    });
  });
});
