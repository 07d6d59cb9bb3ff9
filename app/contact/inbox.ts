import type { EnquiryPhotoSummary } from "~/enquiry-photos/enquiry-photos";
import type { NotificationState } from "~/notifications/notification-state";
import type { ContactSubmission } from "~/notifications/enquiry-fields";

/** Enquiries as the admin's inbox lists them (browser-safe types). */

/** Spec/issue: the list loads this many at a time. */
export const INBOX_PAGE_SIZE = 50;
export const INBOX_MAX_PAGE_SIZE = 200;

export type InboxItem = ContactSubmission & {
  /** Opaque: pass the last item's cursor as `before` for the next page. */
  cursor: string;
  /** When it was opened; null while unread. */
  readAt: string | null;
  /** When the owner last asked the sender for a review; null if never. */
  reviewAskedAt: string | null;
  notification: NotificationState;
  /** The photos the visitor attached, in order; empty for most enquiries. */
  photos: EnquiryPhotoSummary[];
};

/** GET /api/admin/contact-submissions/summary */
export type InboxSummary = { total: number; unread: number };
