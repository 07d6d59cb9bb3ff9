import { enUS } from "date-fns/locale";

/**
 * A submission's date and time in the spec's format, 'January 1st, 2024 at 3:00 PM'
 * (English-US). In the reader's own time zone by default (the admin), or in a
 * named one: the notification e-mail uses the business's (app/identity.ts).
 * Intl supplies the wall-clock parts of any zone without a time-zone library.
 */
export function formatSubmittedAt(value: string | number | Date, options: { timeZone?: string } = {}): string {
  const parts: Partial<Record<Intl.DateTimeFormatPartTypes, string>> = {};
  const formatter = new Intl.DateTimeFormat("en-US", {
    timeZone: options.timeZone,
    year: "numeric",
    month: "long",
    day: "numeric",
    hour: "numeric",
    minute: "2-digit",
    hour12: true,
  });
  for (const part of formatter.formatToParts(new Date(value))) parts[part.type] = part.value;
  const day = enUS.localize.ordinalNumber(Number(parts.day));
  return `${parts.month} ${day}, ${parts.year} at ${parts.hour}:${parts.minute} ${parts.dayPeriod?.toUpperCase()}`;
}
