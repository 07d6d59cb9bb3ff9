import { useMutation, useQuery, useQueryClient } from "@tanstack/react-query";
import { MessageSquare, Star } from "lucide-react";
import type { InboxItem } from "~/contact/inbox";
import type { ContentEntry } from "../texts/section-editor";
import { buttonClasses } from "~/components/ui/button";
import { identity } from "~/identity";
import { apiRequest } from "~/lib/api-client";
import { formatSubmittedAt } from "~/lib/format-date";
import { SUBMISSIONS_KEY, contentKey } from "../query-client";

const firstName = (name: string) => name.trim().split(/\s+/)[0] ?? "";

/** The owner's short request, with the address where a review is written; he can change it before sending. */
export function reviewRequestText(customer: string, owner: string, reviewLink: string) {
  return {
    subject: `Thanks from ${identity.businessName}`,
    body: `Hi ${firstName(customer)},\n\nThanks again for having me do the job. If you are happy with the work, would you leave a short review? It helps other people find me:\n${reviewLink}\n\nCheers,\n${firstName(owner)}`,
  };
}

/** Review requests open the owner's own mail or messages app: the server sends nothing, a tap only records it. */
export function ReviewRequest({ submission }: { submission: InboxItem }) {
  const queryClient = useQueryClient();
  const reviewLink = useQuery<ContentEntry>({ queryKey: contentKey("contact.reviewLink") });
  const owner = useQuery<ContentEntry>({ queryKey: contentKey("contact.name") });
  const asked = useMutation({
    mutationFn: () => apiRequest("POST", `${SUBMISSIONS_KEY[0]}/${encodeURIComponent(submission.id)}/review-asked`),
    onSuccess: () => queryClient.invalidateQueries({ queryKey: SUBMISSIONS_KEY }),
  });
  const link = reviewLink.data?.content.trim();
  if (link === undefined) return null;
  if (!link) {
    return (
      <p className="mt-4 text-sm text-stone-600">
        To ask for a review in one tap, set &ldquo;Where customers leave a review&rdquo; in Edit Website Text, Contact
        Information.
      </p>
    );
  }
  const { subject, body } = reviewRequestText(submission.name, owner.data?.content ?? identity.ownerName, link);
  const mailto = `mailto:${submission.email}?subject=${encodeURIComponent(subject)}&body=${encodeURIComponent(body)}`;
  const record = () => asked.mutate();
  return (
    <div className="mt-4 flex flex-wrap items-center gap-2">
      <a href={mailto} onClick={record} className={buttonClasses("outline", "sm")}>
        <Star aria-hidden="true" className="h-4 w-4" />
        Ask for a review
      </a>
      {submission.phone ? (
        <a
          href={`sms:${submission.phone.replace(/\s+/g, "")}?&body=${encodeURIComponent(body)}`}
          onClick={record}
          className={buttonClasses("outline", "sm")}
        >
          <MessageSquare aria-hidden="true" className="h-4 w-4" />
          Text
        </a>
      ) : null}
      {submission.reviewAskedAt ? (
        <p className="text-sm text-stone-700">
          Review asked for on {formatSubmittedAt(submission.reviewAskedAt).split(" at ")[0]}
        </p>
      ) : null}
    </div>
  );
}
