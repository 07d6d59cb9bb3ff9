import { keepPreviousData, useQuery } from "@tanstack/react-query";
import { useId, useState } from "react";
import { USUAL_PLACE_DAYS, type ActivityEntry, type ActivityPage } from "~/activity/activity-kinds";
import { Button } from "~/components/ui/button";
import { cn } from "~/lib/cn";
import { LoadFailed, SettingsView } from "../admin-ui";
import { formatSubmittedAt } from "~/lib/format-date";
import { TechnicalDetails } from "../owner-notice";

export const ACTIVITY_URL = "/api/admin/activity";

export function activityUrl(page: number, securityOnly: boolean): string {
  const query = new URLSearchParams({ page: String(page) });
  if (securityOnly) query.set("filter", "security");
  return `${ACTIVITY_URL}?${query}`;
}

const OUTCOME_BADGE: Record<ActivityEntry["outcome"], string | null> = {
  success: null,
  failure: "Failed",
  refused: "Refused",
};

const PLACE_WORDS: Record<NonNullable<ActivityEntry["place"]>, string> = {
  new: "from a new place",
  usual: "from a usual place",
};

function ActivityRow({ entry }: { entry: ActivityEntry }) {
  const badge = OUTCOME_BADGE[entry.outcome];
  return (
    <li className="py-3">
      <p className="flex flex-wrap items-baseline gap-x-2 gap-y-1 break-words text-stone-900">
        {badge ? (
          <span className="rounded bg-red-100 px-1.5 py-0.5 text-xs font-semibold text-red-800 ring-1 ring-red-200">
            {badge}
          </span>
        ) : null}
        <span className="min-w-0">{entry.summary}</span>
      </p>
      {/* Where it came from, in words: "June 1st, 2026 at 9:00 AM · from a usual place · Chrome on an Android phone". */}
      <p className="mt-1 break-words text-sm text-stone-700">
        <time dateTime={entry.at}>{formatSubmittedAt(entry.at)}</time>
        {entry.place ? (
          <>
            {" · "}
            <span className={cn(entry.place === "new" && "font-semibold text-amber-900")}>
              {PLACE_WORDS[entry.place]}
            </span>
          </>
        ) : null}
        {entry.browser ? ` · ${entry.browser}` : null}
      </p>
    </li>
  );
}

/** The networks of the page's records, for whoever runs the website. */
function NetworkDetails({ entries }: { entries: ActivityEntry[] }) {
  const placed = entries.filter((entry) => entry.network);
  if (placed.length === 0) return null;
  return (
    <TechnicalDetails className="mt-2">
      <p>
        A place is the network a record came from (a /24 for IPv4, a /48 for IPv6). It is new when nobody signed in from
        it in the {USUAL_PLACE_DAYS} days before.
      </p>
      <ol aria-label="Networks, newest first" className="divide-y divide-stone-100">
        {placed.map((entry) => (
          <li key={entry.id} className="py-1.5">
            {formatSubmittedAt(entry.at)}: {entry.summary}: <code>{entry.network}</code>
          </li>
        ))}
      </ol>
    </TechnicalDetails>
  );
}

/** The Activity view: the security log, newest first, 50 a page, in the owner's words. */
export function ActivityCard({ onBack }: { onBack: () => void }) {
  const [page, setPage] = useState(1);
  const [securityOnly, setSecurityOnly] = useState(false);
  // Fresh whenever the dashboard is shown again (after an edit in a sub-view, say).
  const activity = useQuery<ActivityPage>({
    queryKey: [activityUrl(page, securityOnly)],
    staleTime: 0,
    placeholderData: keepPreviousData,
  });
  const filterId = useId();
  const pages = activity.data ? Math.max(1, Math.ceil(activity.data.total / activity.data.pageSize)) : 1;

  return (
    <SettingsView
      title="Recent activity"
      description="Sign-ins and every change to the website, newest first. Kept for a year."
      onBack={onBack}
      bodyClassName="block text-sm"
    >
      <label
        htmlFor={filterId}
        className="inline-flex min-h-11 cursor-pointer items-center gap-2 font-medium text-stone-900"
      >
        <input
          id={filterId}
          type="checkbox"
          className="h-5 w-5 accent-brand-700"
          checked={securityOnly}
          onChange={(event) => {
            setSecurityOnly(event.target.checked);
            setPage(1);
          }}
        />
        Security events only
      </label>
      {activity.isPending ? (
        <p role="status" className="mt-3 text-stone-700">
          Loading activity...
        </p>
      ) : activity.isError ? (
        <LoadFailed
          message="The activity could not be loaded."
          onRetry={() => void activity.refetch()}
          retrying={activity.isFetching}
        />
      ) : activity.data.entries.length === 0 ? (
        <p className="mt-3 text-stone-700">{securityOnly ? "No security events yet." : "Nothing yet."}</p>
      ) : (
        <>
          <ol
            aria-label="Recent activity, newest first"
            className="mt-2 divide-y divide-stone-100"
            data-testid="activity-list"
          >
            {activity.data.entries.map((entry) => (
              <ActivityRow key={entry.id} entry={entry} />
            ))}
          </ol>
          <NetworkDetails entries={activity.data.entries} />
          {pages > 1 ? (
            <nav aria-label="Activity pages" className="mt-3 flex flex-wrap items-center gap-3">
              <Button variant="outline" disabled={page <= 1} onClick={() => setPage(page - 1)}>
                Newer
              </Button>
              <span className="text-stone-700">
                Page {page} of {pages}
              </span>
              <Button variant="outline" disabled={page >= pages} onClick={() => setPage(page + 1)}>
                Older
              </Button>
            </nav>
          ) : null}
        </>
      )}
    </SettingsView>
  );
}
