import { enUS } from "date-fns/locale/en-US";

// Building an Intl.DateTimeFormat is slow; one per time zone is kept.
const formatters = new Map<string, Intl.DateTimeFormat>();
function formatterFor(timeZone: string | undefined): Intl.DateTimeFormat {
  const key = timeZone ?? "";
  let formatter = formatters.get(key);
  if (!formatter) {
    formatter = new Intl.DateTimeFormat("en-US", {
      timeZone,
      year: "numeric",
      month: "long",
      day: "numeric",
      hour: "numeric",
      minute: "2-digit",
      hour12: true,
    });
    formatters.set(key, formatter);
  }
  return formatter;
}

/**
 * 'January 1st, 2024 at 3:00 PM' (the spec's format), in the reader's time zone or a named one (the e-mail uses
 * the business's); Intl supplies any zone's wall-clock parts.
 */
export function formatSubmittedAt(value: string | number | Date, options: { timeZone?: string } = {}): string {
  const parts: Partial<Record<Intl.DateTimeFormatPartTypes, string>> = {};
  for (const part of formatterFor(options.timeZone).formatToParts(new Date(value))) parts[part.type] = part.value;
  const day = enUS.localize.ordinalNumber(Number(parts.day));
  return `${parts.month} ${day}, ${parts.year} at ${parts.hour}:${parts.minute} ${parts.dayPeriod?.toUpperCase()}`;
}

/** '3:05 PM' today, else the full date: when a retry or digest is due. */
export function formatDueTime(value: string | number | Date, now: Date = new Date()): string {
  const time = new Date(value);
  if (time.toDateString() !== now.toDateString()) return formatSubmittedAt(time);
  return timeOfDay.format(time);
}

const timeOfDay = new Intl.DateTimeFormat("en-US", { hour: "numeric", minute: "2-digit", hour12: true });
