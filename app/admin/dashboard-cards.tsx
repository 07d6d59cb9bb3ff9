import { ArrowUp } from "lucide-react";
import type { MouseEvent } from "react";

/**
 * Every card of the dashboard, in page order, with its jump link's name
 * (issue 18 §11). A DashboardCard's id must be one of these, so a card added
 * later cannot be left without its link.
 */
export const DASHBOARD_CARDS = [
  { id: "edit-text", jumpLabel: "Texts" },
  { id: "galleries", jumpLabel: "Galleries" },
  { id: "submissions", jumpLabel: "Enquiries" },
  { id: "email", jumpLabel: "E-mail" },
  { id: "account", jumpLabel: "Account" },
  { id: "backups", jumpLabel: "Backups" },
  { id: "analytics", jumpLabel: "Visits" },
  { id: "activity", jumpLabel: "Activity" },
] as const;

export type DashboardCardId = (typeof DASHBOARD_CARDS)[number]["id"];

export const cardHeadingId = (id: DashboardCardId) => `${id}-title`;

/** The jump links' landmark: where "Back to top" returns to. */
export const JUMP_LINKS_ID = "dashboard-sections";

/**
 * Moves to a place on the dashboard without a history entry (the browser's
 * Back button keeps its meaning) and puts focus there, so keyboard and
 * screen-reader users continue from it. Without JavaScript the link's
 * #fragment does the same.
 */
function jumpTo(event: MouseEvent<HTMLAnchorElement>, targetId: string, scroll: () => void) {
  const target = document.getElementById(targetId);
  if (!target) return;
  event.preventDefault();
  scroll();
  target.focus({ preventScroll: true });
}

/** A row of links at the top of the dashboard, one per card: each card is one tap away on a phone. */
export function JumpLinks() {
  return (
    <nav id={JUMP_LINKS_ID} tabIndex={-1} aria-label="Dashboard sections" className="rounded-md">
      <ul className="flex flex-wrap gap-2">
        {DASHBOARD_CARDS.map(({ id, jumpLabel }) => (
          <li key={id}>
            <a
              href={`#${cardHeadingId(id)}`}
              onClick={(event) =>
                jumpTo(event, cardHeadingId(id), () => document.getElementById(id)?.scrollIntoView({ block: "start" }))
              }
              className="inline-flex min-h-11 items-center rounded-full bg-white px-4 text-sm font-semibold text-brand-800 ring-1 ring-stone-300 hover:bg-brand-50"
            >
              {jumpLabel}
            </a>
          </li>
        ))}
      </ul>
    </nav>
  );
}

/** At the foot of every card: back to the jump links. */
export function BackToTop() {
  return (
    <a
      href={`#${JUMP_LINKS_ID}`}
      onClick={(event) => jumpTo(event, JUMP_LINKS_ID, () => window.scrollTo({ top: 0 }))}
      className="mt-4 inline-flex min-h-11 items-center gap-1.5 text-sm font-medium text-brand-700 underline underline-offset-2 hover:text-brand-800"
    >
      <ArrowUp aria-hidden="true" className="h-4 w-4" />
      Back to top
    </a>
  );
}
