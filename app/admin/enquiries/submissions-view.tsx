import { useQueryClient } from "@tanstack/react-query";
import { Download, Inbox } from "lucide-react";
import { useId, useState } from "react";
import { buttonClasses, Button } from "~/components/ui/button";
import { ErrorNotice } from "~/components/ui/error-notice";
import { Spinner } from "~/components/ui/spinner";
import { plural } from "~/lib/plural";
import { SubViewFrame } from "../admin-ui";
import { inboxKey, useInbox } from "./inbox-queries";
import { SUBMISSIONS_KEY } from "../query-client";
import { SubmissionCard } from "./submission-card";

/** Spec §2 Submissions view, as an inbox: unread first seen, 50 at a time, exportable. */
export function SubmissionsView({ onBack }: { onBack: () => void }) {
  const [unreadOnly, setUnreadOnly] = useState(false);
  const queryClient = useQueryClient();
  const inbox = useInbox(unreadOnly);
  const filterId = useId();
  const items = inbox.data?.pages.flat() ?? [];

  const changeFilter = (next: boolean) => {
    // The other list is loaded afresh when shown: what was read meanwhile is right there too.
    queryClient.removeQueries({ queryKey: inboxKey(!next) });
    setUnreadOnly(next);
  };

  return (
    <SubViewFrame
      title="Contact Form Submissions"
      onBack={onBack}
      actions={
        <a href={`${SUBMISSIONS_KEY[0]}/export.csv`} download className={buttonClasses("outline", "md")}>
          <Download aria-hidden="true" className="h-4 w-4" />
          Export CSV
        </a>
      }
    >
      {/* The label holds the box: the whole 44 px row is the place to tap. */}
      <label
        htmlFor={filterId}
        className="inline-flex min-h-11 cursor-pointer items-center gap-3 text-base font-medium text-stone-900"
      >
        <input
          id={filterId}
          type="checkbox"
          checked={unreadOnly}
          onChange={(event) => changeFilter(event.target.checked)}
          className="h-5 w-5 rounded border-stone-400 accent-brand-700"
        />
        Unread only
      </label>

      {inbox.isPending ? (
        <p role="status" className="text-stone-700">
          Loading submissions...
        </p>
      ) : inbox.isError ? (
        <ErrorNotice>Unable to load submissions. Please try again later.</ErrorNotice>
      ) : items.length === 0 ? (
        <div className="flex flex-col items-center gap-2 rounded-xl border border-dashed border-stone-300 bg-white p-10 text-center text-stone-600">
          <Inbox aria-hidden="true" className="h-8 w-8" />
          <p>{unreadOnly ? "No unread enquiries" : "No contact submissions yet"}</p>
        </div>
      ) : (
        <>
          <ul className="space-y-4" aria-label="Submissions, newest first">
            {items.map((submission) => (
              <SubmissionCard key={submission.id} submission={submission} />
            ))}
          </ul>
          {inbox.hasNextPage ? (
            <div className="flex justify-center">
              <Button variant="outline" onClick={() => void inbox.fetchNextPage()} disabled={inbox.isFetchingNextPage}>
                {inbox.isFetchingNextPage ? <Spinner className="h-4 w-4" /> : null}
                Load more
              </Button>
            </div>
          ) : null}
          {inbox.isFetchNextPageError ? (
            <ErrorNotice>Unable to load more submissions. Please try again.</ErrorNotice>
          ) : null}
          <p role="status" className="sr-only">
            {plural(items.length, "enquiry", "enquiries")} shown
          </p>
        </>
      )}
    </SubViewFrame>
  );
}
