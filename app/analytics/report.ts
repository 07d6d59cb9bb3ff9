/** The dashboard's visits and enquiries: shared by the server (analytics-report.server.ts) and the admin UI. */

/** Days in the dashboard's chart, weeks in its enquiries list, rows in its top lists. */
export const REPORT_DAYS = 30;
export const REPORT_WEEKS = 8;
export const REPORT_TOP = 10;

/** The row for views from hosts past the first 100; no real host has parentheses. */
export const OTHER_REFERRERS = "(other)";

/** What GET /api/admin/analytics answers. Days are calendar days in `timeZone`, oldest first. */
export type AnalyticsReport = {
  /** False when ANALYTICS=off: nothing new is counted (earlier totals still show). */
  enabled: boolean;
  timeZone: string;
  today: string;
  days: { day: string; visitors: number; views: number }[];
  /** Over the `days`: visitors are each day's unique visitors, added up. */
  totals: { visitors: number; views: number; enquiries: number };
  /** Enquiries ÷ visitors over the `days`; null without visitors. */
  enquiryRate: number | null;
  topPages: { path: string; label: string; views: number }[];
  /** The busiest hosts, then (when there are any) the views of hosts not stored by name, as OTHER_REFERRERS. */
  topReferrers: { host: string; views: number }[];
  /** Weeks starting on Sunday (spec §9), the current one last. */
  enquiriesPerWeek: { weekStart: string; enquiries: number }[];
};
