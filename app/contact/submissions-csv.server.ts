import { dayIn } from "~/analytics/calendar";
import { identity } from "~/identity";
import type { NotificationState } from "~/notifications/notification-state";
import type { InboxItem } from "./inbox";

/** Export CSV (decision 0024): RFC 4180, UTF-8 with a BOM so Excel reads it right, no formula injection. */

export const CSV_BOM = "\uFEFF";
export const CSV_COLUMNS = ["Received", "Name", "Email", "Phone", "Message", "Read", "Notification", "Photos"] as const;

/** One cell: a leading = + - @ tab or CR gets a ' (so a spreadsheet never runs it), then RFC 4180 quoting. */
export function csvCell(value: string): string {
  const safe = /^[=+\-@\t\r]/.test(value) ? `'${value}` : value;
  return /[",\r\n]/.test(safe) ? `"${safe.replace(/"/g, '""')}"` : safe;
}

export function csvRow(cells: readonly string[]): string {
  return `${cells.map(csvCell).join(",")}\r\n`;
}

// Wall-clock parts in the business's time zone (app/identity.ts); one formatter for every row.
const businessTime = new Intl.DateTimeFormat("en-US", {
  timeZone: identity.timeZone,
  year: "numeric",
  month: "2-digit",
  day: "2-digit",
  hour: "2-digit",
  minute: "2-digit",
  hourCycle: "h23",
});

/** "2026-01-01 15:00", the business's local time: a format every spreadsheet reads as a date. */
export function csvTime(iso: string): string {
  const p: Partial<Record<Intl.DateTimeFormatPartTypes, string>> = {};
  for (const part of businessTime.formatToParts(new Date(iso))) p[part.type] = part.value;
  return `${p.year}-${p.month}-${p.day} ${p.hour}:${p.minute}`;
}

/** enquiries-YYYY-MM-DD.csv, dated in the business's time zone. */
export function csvFileName(now: Date): string {
  return `enquiries-${dayIn(identity.timeZone, now)}.csv`;
}

function notificationText(state: NotificationState): string {
  switch (state.status) {
    case "sent":
      return "Sent";
    case "off":
      return "Off";
    case "failed":
      return `Failed: ${state.lastError ?? "unknown error"}`;
    case "pending":
      return state.attempts > 0 ? `Retrying: ${state.lastError ?? ""}`.trim() : "Sending";
  }
}

export function csvRecord(item: InboxItem): string {
  return csvRow([
    csvTime(item.submittedAt),
    item.name,
    item.email,
    item.phone ?? "",
    item.message,
    item.readAt ? "Yes" : "No",
    notificationText(item.notification),
    // How many photos came with it (the photos themselves stay in the inbox).
    String(item.photos.length),
  ]);
}
