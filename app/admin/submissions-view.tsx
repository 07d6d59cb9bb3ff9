import { useQuery } from "@tanstack/react-query";
import { Inbox, Mail, Phone } from "lucide-react";
import type { ContactSubmission } from "~/contact/contact-fields";
import { telHref } from "~/identity";
import { cardClasses, SubViewFrame } from "./admin-ui";
import { formatSubmittedAt } from "./format-date";
import { SUBMISSIONS_KEY } from "./query-client";
import { ErrorNotice } from "~/components/ui/error-notice";


const linkClasses = "font-medium break-all text-brand-700 underline underline-offset-2 hover:text-brand-800";

/** Spec §2 Submissions view. */
export function SubmissionsView({ onBack }: { onBack: () => void }) {
  const submissions = useQuery<ContactSubmission[]>({ queryKey: SUBMISSIONS_KEY });

  return (
    <SubViewFrame title="Contact Form Submissions" onBack={onBack}>
      {submissions.isPending ? (
        <p role="status" className="text-stone-700">
          Loading submissions...
        </p>
      ) : submissions.isError ? (
        <ErrorNotice>Unable to load submissions. Please try again later.</ErrorNotice>
      ) : submissions.data.length === 0 ? (
        <div className="flex flex-col items-center gap-2 rounded-xl border border-dashed border-stone-300 bg-white p-10 text-center text-stone-600">
          <Inbox aria-hidden="true" className="h-8 w-8" />
          <p>No contact submissions yet</p>
        </div>
      ) : (
        <ul className="space-y-4" aria-label="Submissions, newest first">
          {submissions.data.map((submission) => (
            <li key={submission.id} className={cardClasses}>
              <p className="text-sm font-semibold text-stone-600">
                <time dateTime={submission.submittedAt}>{formatSubmittedAt(submission.submittedAt)}</time>
              </p>
              <dl className="mt-3 grid gap-x-6 gap-y-3 sm:grid-cols-[max-content_1fr]">
                <dt className="text-sm font-semibold text-stone-800">Name</dt>
                <dd className="text-stone-900">{submission.name}</dd>
                <dt className="text-sm font-semibold text-stone-800">Email</dt>
                <dd>
                  <a href={`mailto:${submission.email}`} className={linkClasses}>
                    <Mail aria-hidden="true" className="mr-1.5 inline h-4 w-4 align-[-2px]" />
                    {submission.email}
                  </a>
                </dd>
                {submission.phone ? (
                  <>
                    <dt className="text-sm font-semibold text-stone-800">Phone</dt>
                    <dd>
                      <a href={telHref(submission.phone)} className={linkClasses}>
                        <Phone aria-hidden="true" className="mr-1.5 inline h-4 w-4 align-[-2px]" />
                        {submission.phone}
                      </a>
                    </dd>
                  </>
                ) : null}
                <dt className="text-sm font-semibold text-stone-800">Message</dt>
                <dd className="break-words whitespace-pre-line text-stone-900">{submission.message}</dd>
              </dl>
            </li>
          ))}
        </ul>
      )}
    </SubViewFrame>
  );
}
