/** What the admin is told about notification e-mails (browser-safe types, shared with the API). */

export type NotificationStatus = "pending" | "sent" | "failed" | "off";

/** One enquiry's e-mail, as GET /api/admin/contact-submissions shows it. */
export type NotificationState = {
  status: NotificationStatus;
  attempts: number;
  lastError: string | null;
  nextAttemptAt: string | null;
  sentAt: string | null;
  /** Held back by the hourly cap: it goes out in the hour's digest at `nextAttemptAt`. */
  inDigest: boolean;
};

/** GET /api/admin/notifications/status: what the dashboard's notice needs. */
export type NotificationsOverview = {
  /** False when SMTP_URL is unset. */
  enabled: boolean;
  /** Where notifications go (NOTIFY_EMAIL, else the site's contact e-mail). */
  recipient: string;
  /** The most recent send attempt of any notification, or null before the first. */
  lastAttempt: { at: string; ok: boolean; error: string | null } | null;
  /** Notifications that gave up after 24 hours of retries. */
  failed: number;
};

export const NOTIFICATIONS_OFF_STATE: NotificationState = {
  status: "off",
  attempts: 0,
  lastError: null,
  nextAttemptAt: null,
  sentAt: null,
  inDigest: false,
};
