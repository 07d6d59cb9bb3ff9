import { useQuery } from "@tanstack/react-query";
import type { ReactNode } from "react";
import type { AnalyticsReport } from "~/analytics/report";
import { plural } from "~/lib/plural";
import { LoadFailed, SettingsView } from "../admin-ui";
import { formatDay } from "./format-day";
import { TechnicalDetails } from "../owner-notice";
import { VisitorsChart } from "./visitors-chart";

export const ANALYTICS_KEY = ["/api/admin/analytics"] as const;

/** Below this many visitors, enquiries per visitor mean nothing (6 enquiries from 1 visitor is not "600%"). */
export const MIN_VISITORS_FOR_ENQUIRY_FIGURE = 20;

/** "12 enquiries from 160 visitors", or null until there are enough visitors. */
export function enquiriesFromVisitors(totals: AnalyticsReport["totals"]): string | null {
  if (totals.visitors < MIN_VISITORS_FOR_ENQUIRY_FIGURE) return null;
  return `${plural(totals.enquiries, "enquiry", "enquiries")} from ${plural(totals.visitors, "visitor", "visitors")}`;
}

function Figure({ label, value }: { label: string; value: ReactNode }) {
  return (
    <div className="rounded-lg bg-stone-50 p-3 ring-1 ring-stone-200">
      <dt className="text-sm text-stone-700">{label}</dt>
      <dd className="mt-1 text-2xl font-bold text-stone-900 tabular-nums">{value}</dd>
    </div>
  );
}

function RankedList({ label, rows, empty }: { label: string; rows: { name: string; count: number }[]; empty: string }) {
  return (
    <div>
      <h2 className="text-sm font-semibold text-stone-800">{label}</h2>
      {rows.length === 0 ? (
        <p className="mt-2 text-sm text-stone-600">{empty}</p>
      ) : (
        <ol aria-label={label} className="mt-2 divide-y divide-stone-100 text-sm">
          {rows.map((row) => (
            <li key={row.name} className="flex items-baseline justify-between gap-3 py-1.5">
              <span className="min-w-0 break-words text-stone-900">{row.name}</span>
              <span className="shrink-0 text-stone-700 tabular-nums">{row.count}</span>
            </li>
          ))}
        </ol>
      )}
    </div>
  );
}

/** The Visits view, last 30 days (visits counted without cookies or scripts, see docs/PRIVACY.md). */
export function AnalyticsCard({ onBack }: { onBack: () => void }) {
  const report = useQuery<AnalyticsReport>({ queryKey: ANALYTICS_KEY });

  return (
    <SettingsView
      title="Visits and Enquiries"
      description="The last 30 days. Visits are counted without cookies and without tracking anyone; each visitor counts once a day."
      onBack={onBack}
      bodyClassName="block"
    >
      {report.isPending ? (
        <p role="status" className="text-stone-700">
          Loading visits...
        </p>
      ) : report.isError ? (
        <LoadFailed
          message="The visit figures could not be loaded."
          onRetry={() => void report.refetch()}
          retrying={report.isFetching}
        />
      ) : (
        <AnalyticsFigures report={report.data} />
      )}
    </SettingsView>
  );
}

function AnalyticsFigures({ report }: { report: AnalyticsReport }) {
  const mostEnquiries = Math.max(1, ...report.enquiriesPerWeek.map((w) => w.enquiries));
  const fromVisitors = enquiriesFromVisitors(report.totals);
  return (
    <div className="space-y-6">
      {!report.enabled ? (
        <div className="rounded-md border border-amber-300 bg-amber-50 px-3 pt-3 text-sm text-stone-900">
          <p>Visit counting is turned off on this website. Enquiries are still shown.</p>
          <TechnicalDetails>
            <p>The server&apos;s settings have ANALYTICS=off.</p>
          </TechnicalDetails>
        </div>
      ) : null}
      <dl className="grid grid-cols-3 gap-2 sm:gap-3">
        <Figure label="Visitors" value={report.totals.visitors} />
        <Figure label="Page views" value={report.totals.views} />
        <Figure label="Enquiries" value={report.totals.enquiries} />
      </dl>
      {fromVisitors ? (
        <p className="-mt-3 text-sm text-stone-700" data-testid="enquiries-from-visitors">
          {fromVisitors} over the same 30 days.
        </p>
      ) : null}

      <VisitorsChart days={report.days} />

      <div className="grid gap-6 md:grid-cols-3">
        <RankedList
          label="Top pages"
          rows={report.topPages.map((page) => ({ name: page.label, count: page.views }))}
          empty="No page views yet."
        />
        <RankedList
          label="Top referrers"
          rows={report.topReferrers.map((referrer) => ({ name: referrer.host, count: referrer.views }))}
          empty="No visits from links on other websites yet."
        />
        <div>
          <h2 id="enquiries-per-week" className="text-sm font-semibold text-stone-800">
            Enquiries per week
          </h2>
          <table aria-labelledby="enquiries-per-week" className="mt-2 w-full text-sm">
            <thead className="sr-only">
              <tr>
                <th scope="col">Week</th>
                <th scope="col">Enquiries</th>
              </tr>
            </thead>
            <tbody>
              {[...report.enquiriesPerWeek].reverse().map((week, i) => (
                <tr key={week.weekStart} className="border-b border-stone-100">
                  <th scope="row" className="py-1.5 pr-3 text-left font-normal text-stone-900">
                    {i === 0 ? "This week" : `Week of ${formatDay(week.weekStart)}`}
                  </th>
                  <td className="w-1/3 py-1.5">
                    <div className="flex items-center justify-end gap-2">
                      <span
                        aria-hidden="true"
                        className="h-2 rounded-sm bg-brand-700/70"
                        style={{ width: `${(week.enquiries / mostEnquiries) * 100}%`, maxWidth: "4rem" }}
                      />
                      <span className="text-stone-700 tabular-nums">{week.enquiries}</span>
                    </div>
                  </td>
                </tr>
              ))}
            </tbody>
          </table>
        </div>
      </div>
    </div>
  );
}
