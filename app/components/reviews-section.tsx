import type { ListItem, REVIEWS } from "~/content/lists";
import { cn } from "~/lib/cn";

/** Customer reviews on the public pages (app/content/lists.ts REVIEWS): server-rendered, no script. */

export type Review = ListItem<typeof REVIEWS>;

const SITES: [RegExp, string][] = [
  [/(^|\.)(google\.[a-z.]+|g\.page|goo\.gl)$/, "Google"],
  [/(^|\.)builderscrack\.co\.nz$/, "Builderscrack"],
  [/(^|\.)nocowboys\.co\.nz$/, "NoCowboys"],
  [/(^|\.)(facebook\.com|fb\.com)$/, "Facebook"],
];

/** "Google", "Builderscrack", "NoCowboys" or "Facebook" for their addresses, the host name otherwise; null for no address. */
export function reviewSite(link: string): string | null {
  let host: string;
  try {
    host = new URL(link).hostname.toLowerCase();
  } catch {
    return null;
  }
  return SITES.find(([pattern]) => pattern.test(host))?.[1] ?? (host || null);
}

export function ReviewCard({ review, className }: { review: Review; className?: string }) {
  const site = review.link ? reviewSite(review.link) : null;
  const about = [review.town, review.service].filter(Boolean).join(", ");
  return (
    <figure className={cn("rounded-xl bg-white p-6 shadow-sm ring-1 ring-stone-200", className)}>
      <blockquote className="text-lg leading-8 whitespace-pre-line text-stone-800">“{review.quote}”</blockquote>
      <figcaption className="mt-4 text-stone-700">
        <span className="font-semibold text-stone-900">{review.name}</span>
        {about ? `, ${about}` : null}
        {site ? (
          <a
            href={review.link}
            rel="nofollow noopener"
            className="flex min-h-11 items-center font-medium text-brand-700 underline-offset-2 hover:underline"
          >
            Read it on {site}
          </a>
        ) : null}
      </figcaption>
    </figure>
  );
}

/** The home page's "What customers say", after the services section. */
export function ReviewsSection({ reviews }: { reviews: Review[] }) {
  return (
    <section aria-labelledby="reviews-title" className="mx-auto max-w-7xl px-4 pb-16 sm:px-6 lg:px-8">
      <h2 id="reviews-title" className="font-display text-3xl font-bold text-stone-900">
        What customers say
      </h2>
      <ul className="mt-8 grid gap-6 md:grid-cols-3">
        {reviews.map((review) => (
          <li key={review.id}>
            <ReviewCard review={review} className="h-full" />
          </li>
        ))}
      </ul>
    </section>
  );
}
