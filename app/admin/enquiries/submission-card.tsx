import { Mail, MailCheck, MailOpen, Phone, RotateCw, Trash2 } from "lucide-react";
import { useId, useState } from "react";
import type { InboxItem } from "~/contact/inbox";
import { photosNotAttachedLine } from "~/enquiry-photos/enquiry-photos";
import { Button, buttonClasses } from "~/components/ui/button";
import { Dialog, DialogClose, DialogContent, DialogDescription, DialogTitle } from "~/components/ui/dialog";
import { Spinner } from "~/components/ui/spinner";
import { toast } from "~/components/ui/use-toast";
import { identity, telHref } from "~/identity";
import { cn } from "~/lib/cn";
import { cardClasses } from "../admin-ui";
import { EnquiryPhotos } from "./enquiry-photo-viewer";
import { formatSubmittedAt } from "~/lib/format-date";
import { useDeleteEnquiry, useResendNotification, useSetRead } from "./inbox-queries";
import { NotificationStateLine } from "./notification-state-line";
import { ReviewRequest } from "./review-request";
import { failureToast } from "../query-client";

// 44 px tall to tap, as every control; the line of the list stays as it was.
const linkClasses =
  "-my-3 inline-flex min-h-11 items-center font-medium break-all text-brand-700 underline underline-offset-2 hover:text-brand-800";

const failed = (title: string, description: string) => failureToast({ title, description }, { fromServer: true });

/** Reply: the mail app with "Re: your enquiry to {business}" and the enquiry quoted (the address encoded but its "@"). */
export function replyHref(submission: Pick<InboxItem, "email" | "name" | "message" | "submittedAt">): string {
  const quoted = submission.message
    .split(/\r?\n/)
    .map((line) => `> ${line}`)
    .join("\r\n");
  const body = `\r\n\r\nOn ${formatSubmittedAt(submission.submittedAt)}, ${submission.name} wrote:\r\n${quoted}`;
  const to = encodeURIComponent(submission.email).replace(/%40/g, "@");
  const subject = `Re: your enquiry to ${identity.businessName}`;
  return `mailto:${to}?subject=${encodeURIComponent(subject)}&body=${encodeURIComponent(body)}`;
}

/** One enquiry (spec §2 Submissions view, decision 0024); reading marks nothing: Mark as read is explicit (0051). */
export function SubmissionCard({ submission }: { submission: InboxItem }) {
  const [confirmingDelete, setConfirmingDelete] = useState(false);
  const setRead = useSetRead();
  const resend = useResendNotification();
  const remove = useDeleteEnquiry();
  const nameId = useId();
  const unread = submission.readAt === null;

  const markRead = (read: boolean) =>
    setRead.mutate(
      { id: submission.id, read },
      { onError: failed("Update failed", `Could not mark the enquiry as ${read ? "read" : "unread"}.`) },
    );

  return (
    <li>
      <article aria-labelledby={nameId} className={cn(cardClasses, unread && "ring-2 ring-brand-600")}>
        <div className="flex flex-wrap items-center justify-between gap-x-4 gap-y-1">
          <p className="text-sm font-semibold text-stone-600">
            <time dateTime={submission.submittedAt}>{formatSubmittedAt(submission.submittedAt)}</time>
          </p>
          {unread ? (
            <span className="rounded-full bg-brand-700 px-2.5 py-0.5 text-xs font-bold tracking-wide text-white uppercase">
              New
            </span>
          ) : null}
        </div>
        <dl className="mt-3 grid gap-x-6 gap-y-3 sm:grid-cols-[max-content_1fr]">
          <dt className="text-sm font-semibold text-stone-800">Name</dt>
          <dd>
            {/* The name is each entry's heading too, for moving between entries. */}
            <h2
              id={nameId}
              className={cn("text-lg leading-snug break-words text-stone-900", unread ? "font-bold" : "font-semibold")}
            >
              {submission.name}
            </h2>
          </dd>
          <dt className="text-sm font-semibold text-stone-800">Email</dt>
          <dd>
            <a href={`mailto:${submission.email}`} className={linkClasses}>
              <Mail aria-hidden="true" className="mr-1.5 h-4 w-4 shrink-0" />
              {submission.email}
            </a>
          </dd>
          {submission.phone ? (
            <>
              <dt className="text-sm font-semibold text-stone-800">Phone</dt>
              <dd>
                <a href={telHref(submission.phone)} className={linkClasses}>
                  <Phone aria-hidden="true" className="mr-1.5 h-4 w-4 shrink-0" />
                  {submission.phone}
                </a>
              </dd>
            </>
          ) : null}
          <dt className="text-sm font-semibold text-stone-800">Message</dt>
          <dd className="break-words whitespace-pre-line text-stone-900">{submission.message}</dd>
          {submission.photos.length > 0 || submission.photosNotAttached ? (
            <>
              <dt className="text-sm font-semibold text-stone-800">Photos</dt>
              <dd>
                <EnquiryPhotos submissionId={submission.id} name={submission.name} photos={submission.photos} />
                {submission.photosNotAttached ? (
                  <p className="mt-1 text-sm text-stone-800">{photosNotAttachedLine(submission.photosNotAttached)}</p>
                ) : null}
              </dd>
            </>
          ) : null}
        </dl>

        <NotificationStateLine state={submission.notification} className="mt-4" />
        <ReviewRequest submission={submission} />

        <div className="mt-4 flex flex-wrap gap-2 border-t border-stone-200 pt-4">
          <a href={replyHref(submission)} className={buttonClasses("primary", "sm")}>
            <Mail aria-hidden="true" className="h-4 w-4" />
            Reply
          </a>
          {submission.phone ? (
            <a href={telHref(submission.phone)} className={buttonClasses("outline", "sm")}>
              <Phone aria-hidden="true" className="h-4 w-4" />
              Call
            </a>
          ) : null}
          <Button variant="outline" size="sm" disabled={setRead.isPending} onClick={() => markRead(unread)}>
            {unread ? (
              <MailCheck aria-hidden="true" className="h-4 w-4" />
            ) : (
              <MailOpen aria-hidden="true" className="h-4 w-4" />
            )}
            {unread ? "Mark as read" : "Mark as unread"}
          </Button>
          {submission.notification.status === "failed" ? (
            <Button
              variant="primary"
              size="sm"
              disabled={resend.isPending}
              onClick={() =>
                resend.mutate(submission.id, {
                  onSuccess: () =>
                    toast({
                      title: "Sending again",
                      description: `The e-mail about ${submission.name}'s enquiry is on its way.`,
                    }),
                  onError: failed("Send again failed", "Could not send the e-mail again."),
                })
              }
            >
              {resend.isPending ? <Spinner className="h-4 w-4" /> : <RotateCw aria-hidden="true" className="h-4 w-4" />}
              Send again
            </Button>
          ) : null}
          <Button
            variant="ghost"
            size="sm"
            className="text-red-800 hover:bg-red-50"
            onClick={() => setConfirmingDelete(true)}
          >
            <Trash2 aria-hidden="true" className="h-4 w-4" />
            Delete
          </Button>
        </div>
      </article>

      <Dialog open={confirmingDelete} onOpenChange={(next) => !remove.isPending && setConfirmingDelete(next)}>
        <DialogContent closeDisabled={remove.isPending}>
          <DialogTitle>Delete the enquiry from {submission.name}?</DialogTitle>
          <DialogDescription>
            The enquiry from {submission.name} ({submission.email}), received{" "}
            {formatSubmittedAt(submission.submittedAt)}, is deleted for good, with its e-mail notification. This cannot
            be undone.
          </DialogDescription>
          <div className="mt-6 flex flex-col-reverse gap-2 sm:flex-row sm:justify-end">
            <DialogClose asChild>
              <Button variant="outline" disabled={remove.isPending}>
                Cancel
              </Button>
            </DialogClose>
            <Button
              variant="destructive"
              disabled={remove.isPending}
              onClick={() =>
                remove.mutate(submission, { onError: failed("Delete failed", "Could not delete the enquiry.") })
              }
            >
              {remove.isPending ? <Spinner className="h-4 w-4" /> : <Trash2 aria-hidden="true" className="h-4 w-4" />}
              Delete enquiry
            </Button>
          </div>
        </DialogContent>
      </Dialog>
    </li>
  );
}
