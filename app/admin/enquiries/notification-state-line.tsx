import { AlertTriangle, BellOff, Check, Clock, Send } from "lucide-react";
import type { NotificationState } from "~/notifications/notification-state";
import { cn } from "~/lib/cn";
import { formatDueTime } from "~/lib/format-date";
import { TechnicalDetails } from "../owner-notice";

/** What happened to the e-mail about one enquiry, in words; the mail server's answer is under the details. */
export function notificationText(state: NotificationState, now: Date = new Date()): string {
  switch (state.status) {
    case "sent":
      return "Sent";
    case "off":
      return "Notifications off";
    case "failed":
      return "Failed: the e-mail could not be sent";
    case "pending":
      if (state.inDigest && state.nextAttemptAt)
        return `In the hourly digest at ${formatDueTime(state.nextAttemptAt, now)}`;
      if (state.attempts > 0 && state.nextAttemptAt) return `Retrying at ${formatDueTime(state.nextAttemptAt, now)}`;
      return "Sending…";
  }
}

const STYLES: Record<NotificationState["status"], { className: string; Icon: typeof Check }> = {
  sent: { className: "text-emerald-800", Icon: Check },
  off: { className: "text-stone-600", Icon: BellOff },
  failed: { className: "text-red-800", Icon: AlertTriangle },
  pending: { className: "text-amber-800", Icon: Clock },
};

export function NotificationStateLine({ state, className }: { state: NotificationState; className?: string }) {
  const { className: tone, Icon } = STYLES[state.status];
  const serverAnswer =
    state.status === "failed" || (state.status === "pending" && state.attempts > 0 && !state.inDigest)
      ? state.lastError
      : null;
  return (
    <div className={className}>
      <p className={cn("flex items-start gap-1.5 text-sm font-medium", tone)}>
        {state.status === "pending" && state.attempts === 0 && !state.inDigest ? (
          <Send aria-hidden="true" className="mt-0.5 h-4 w-4 shrink-0" />
        ) : (
          <Icon aria-hidden="true" className="mt-0.5 h-4 w-4 shrink-0" />
        )}
        <span className="break-words">
          <span className="sr-only">E-mail notification: </span>
          {notificationText(state)}
        </span>
      </p>
      {serverAnswer ? (
        <TechnicalDetails className="text-stone-700">
          <p>The mail server answered: {serverAnswer}</p>
        </TechnicalDetails>
      ) : null}
    </div>
  );
}
