import { useQuery } from "@tanstack/react-query";
import { BarChart3 } from "lucide-react";
import type { ReactNode } from "react";
import type { AnalyticsReport } from "~/analytics/report";
import { DashboardCard, LoadFailed } from "./admin-ui";
import { formatDay } from "./format-day";
import { VisitorsChart } from "./visitors-chart";

export const ANALYTICS_KEY = ["/api/admin/analytics"] as const;

/** "0.0421" → "4.2%". */
export function formatRate(rate: number | null): string {
  return rate === null ? "–" : `${(rate * 100).toFixed(1)}%`;
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
      <h3 className="text-sm font-semibold text-stone-800">{label}</h3>
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

/**
 * Issue 11 §3 on the dashboard: visits (counted without cookies or scripts on
 * the public pages, see docs/PRIVACY.md) and enquiries, for the last 30 days.
 */
export function AnalyticsCard() {
  const report = useQuery<AnalyticsReport>({ queryKey: ANALYTICS_KEY });

  return (
    <DashboardCard
      id="analytics"
      title="Visits and Enquiries"
      description="The last 30 days. Visits are counted without cookies and without tracking anyone; each visitor counts once a day."
      icon={<BarChart3 aria-hidden="true" className="h-5 w-5" />}
      bodyClassName="mt-5"
    >
      {report.isPending ? (
        <p role="status" className="text-stone-700">
          Loading visits...
        </p>
      ) : report.isError ? (
        <LoadFailed message="The visit figures could not be loaded." onRetry={() => void report.refetch()} retrying={report.isFetching} />
      ) : (
        <AnalyticsFigures report={report.data} />
      )}
    </DashboardCard>
  );
}

function AnalyticsFigures({ report }: { report: AnalyticsReport }) {
  const mostEnquiries = Math.max(1, ...report.enquiriesPerWeek.map((w) => w.enquiries));
  return (
    <div className="space-y-6">
      {!report.enabled ? (
        <p className="rounded-md border border-amber-300 bg-amber-50 p-3 text-sm text-stone-900">
          Visit counting is turned off on this server (ANALYTICS=off). Enquiries are still shown.
        </p>
      ) : null}
      <dl className="grid grid-cols-2 gap-3 lg:grid-cols-4">
        <Figure label="Visitors" value={report.totals.visitors} />
        <Figure label="Page views" value={report.totals.views} />
        <Figure label="Enquiries" value={report.totals.enquiries} />
        <Figure label="Enquiry rate" value={formatRate(report.enquiryRate)} />
      </dl>
      <p className="-mt-3 text-xs text-stone-600">Enquiry rate: enquiries ÷ visitors over the same 30 days.</p>

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
          <h3 id="enquiries-per-week" className="text-sm font-semibold text-stone-800">
            Enquiries per week
          </h3>
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
                      <span aria-hidden="true" className="h-2 rounded-sm bg-brand-700/70" style={{ width: `${(week.enquiries / mostEnquiries) * 100}%`, maxWidth: "4rem" }} />
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
