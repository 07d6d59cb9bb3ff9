import { useQuery } from "@tanstack/react-query";
import type { InboxSummary } from "~/contact/inbox";
import { INBOX_SUMMARY_KEY } from "../query-client";

/** The dashboard's "Contact Form Submissions" card: how many enquiries are unread. */
export function UnreadCount() {
  const summary = useQuery<InboxSummary>({ queryKey: INBOX_SUMMARY_KEY });
  if (!summary.data) return null;
  const { unread } = summary.data;
  return unread > 0 ? (
    <p className="flex items-center gap-2 text-sm font-semibold text-brand-800" data-testid="unread-count">
      <span className="inline-flex min-w-7 items-center justify-center rounded-full bg-brand-700 px-2 py-0.5 text-white">
        {unread}
      </span>{" "}
      {unread === 1 ? "unread enquiry" : "unread enquiries"}
    </p>
  ) : (
    <p className="text-sm text-stone-700" data-testid="unread-count">
      No unread enquiries
    </p>
  );
}
