/** Calendar days ("YYYY-MM-DD", sorting as text) in the business's time zone; works in the browser too. */

const formatters = new Map<string, Intl.DateTimeFormat>();

function formatterFor(timeZone: string): Intl.DateTimeFormat {
  let formatter = formatters.get(timeZone);
  if (!formatter) {
    formatter = new Intl.DateTimeFormat("en-CA", { timeZone, year: "numeric", month: "2-digit", day: "2-digit" });
    formatters.set(timeZone, formatter);
  }
  return formatter;
}

/** The calendar day an instant falls on in `timeZone`. */
export function dayIn(timeZone: string, instant: number | Date): string {
  const parts = formatterFor(timeZone).formatToParts(instant);
  const part = (type: string) => parts.find((p) => p.type === type)?.value ?? "";
  return `${part("year")}-${part("month")}-${part("day")}`;
}

/** The calendar day `count` days after `day` (before, when negative). */
export function addDays(day: string, count: number): string {
  const [year, month, date] = day.split("-").map(Number) as [number, number, number];
  return new Date(Date.UTC(year, month - 1, date + count)).toISOString().slice(0, 10);
}

/** Day of the week, 0 = Sunday. */
function weekdayOf(day: string): number {
  const [year, month, date] = day.split("-").map(Number) as [number, number, number];
  return new Date(Date.UTC(year, month - 1, date)).getUTCDay();
}

/** The Sunday that starts the week of `day` (spec §9: weeks start on Sunday). */
export function weekStartOf(day: string): string {
  return addDays(day, -weekdayOf(day));
}

/** The first instant of `day` in `timeZone`, by bisection, so 23- and 25-hour days come out right. */
export function startOfDay(timeZone: string, day: string): number {
  const [year, month, date] = day.split("-").map(Number) as [number, number, number];
  const utcMidnight = Date.UTC(year, month - 1, date);
  // Every zone is within 15 hours of UTC: the start lies in this window.
  let before = utcMidnight - 15 * 3_600_000;
  let after = utcMidnight + 15 * 3_600_000;
  while (after - before > 1) {
    const middle = Math.floor((before + after) / 2);
    if (dayIn(timeZone, middle) >= day) after = middle;
    else before = middle;
  }
  return after;
}

export type DayBounds = { day: string; startsAt: number; endsAt: number };

/** The day an instant falls on, with its first instant and the first instant of the next day. */
export function dayBounds(timeZone: string, instant: number): DayBounds {
  const day = dayIn(timeZone, instant);
  return { day, startsAt: startOfDay(timeZone, day), endsAt: startOfDay(timeZone, addDays(day, 1)) };
}
