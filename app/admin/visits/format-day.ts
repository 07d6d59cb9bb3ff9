import { format } from "date-fns/format";
import { enUS } from "date-fns/locale/en-US";

/** A calendar day "2026-03-14" as "Sat, Mar 14" (English-US, as the spec's dates). No time zone is involved. */
export function formatDay(day: string): string {
  const [year, month, date] = day.split("-").map(Number) as [number, number, number];
  return format(new Date(year, month - 1, date), "EEE, MMM d", { locale: enUS });
}
