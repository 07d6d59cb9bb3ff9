import { format } from "date-fns";
import { enUS } from "date-fns/locale";

/** A submission's date and time, e.g. 'January 1st, 2024 at 3:00 PM' (English-US, week from Sunday). */
export function formatSubmittedAt(value: string | number | Date): string {
  return format(new Date(value), "MMMM do, yyyy 'at' h:mm a", { locale: enUS, weekStartsOn: 0 });
}
