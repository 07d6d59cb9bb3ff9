import { useId } from "react";
import type { AnalyticsReport } from "~/analytics/report";
import { plural } from "~/lib/plural";
import { formatDay } from "./format-day";

const BAR_WIDTH = 8;
const BAR_GAP = 2;
const CHART_HEIGHT = 80;

/** An inline SVG bar chart (no charting library: nothing extra to download), with its figures as a table too. */
export function VisitorsChart({ days }: { days: AnalyticsReport["days"] }) {
  const id = useId();
  const most = Math.max(1, ...days.map((d) => d.visitors));
  const total = days.reduce((sum, d) => sum + d.visitors, 0);
  const busiest = days.reduce((best, d) => (d.visitors > best.visitors ? d : best), days[0]!);
  const today = days.at(-1)!;
  const width = days.length * (BAR_WIDTH + BAR_GAP) - BAR_GAP;
  const summary =
    total === 0
      ? `No visitors counted in the last ${days.length} days.`
      : `${plural(total, "visitor", "visitors")} in the last ${days.length} days. Busiest day: ${formatDay(busiest.day)} with ${busiest.visitors}. Today so far: ${today.visitors}.`;

  return (
    <figure className="space-y-2">
      <figcaption id={`${id}-title`} className="text-sm font-semibold text-stone-800">
        Visitors per day, last {days.length} days
      </figcaption>
      <svg
        role="img"
        aria-labelledby={`${id}-title`}
        aria-describedby={`${id}-summary`}
        viewBox={`0 0 ${width} ${CHART_HEIGHT}`}
        preserveAspectRatio="none"
        className="block h-28 w-full text-brand-700"
        data-chart="visitors-per-day"
      >
        <line
          x1={0}
          x2={width}
          y1={CHART_HEIGHT - 0.5}
          y2={CHART_HEIGHT - 0.5}
          stroke="currentColor"
          strokeOpacity={0.25}
        />
        {days.map((d, i) => {
          // Days with visitors always show at least a sliver, so they stand out from empty days.
          const height = d.visitors === 0 ? 0 : Math.max(2, (d.visitors / most) * (CHART_HEIGHT - 4));
          return (
            <rect
              key={d.day}
              x={i * (BAR_WIDTH + BAR_GAP)}
              y={CHART_HEIGHT - height}
              width={BAR_WIDTH}
              height={height}
              rx={1}
              fill="currentColor"
              data-day={d.day}
              data-visitors={d.visitors}
            >
              <title>{`${formatDay(d.day)}: ${plural(d.visitors, "visitor", "visitors")}`}</title>
            </rect>
          );
        })}
      </svg>
      <div className="flex justify-between text-xs text-stone-600" aria-hidden="true">
        <span>{formatDay(days[0]!.day)}</span>
        <span>Today</span>
      </div>
      <p id={`${id}-summary`} className="text-sm text-stone-700">
        {summary}
      </p>
      <details className="text-sm text-stone-700">
        <summary className="cursor-pointer py-3 font-semibold text-brand-700">Show the numbers as a table</summary>
        <div className="max-h-64 overflow-y-auto">
          <table className="w-full text-left">
            <caption className="sr-only">Visitors and page views per day</caption>
            <thead>
              <tr className="border-b border-stone-200">
                <th scope="col" className="py-1 pr-4 font-semibold">
                  Day
                </th>
                <th scope="col" className="py-1 pr-4 text-right font-semibold">
                  Visitors
                </th>
                <th scope="col" className="py-1 text-right font-semibold">
                  Page views
                </th>
              </tr>
            </thead>
            <tbody>
              {[...days].reverse().map((d) => (
                <tr key={d.day} className="border-b border-stone-100">
                  <th scope="row" className="py-1 pr-4 font-normal">
                    {formatDay(d.day)}
                  </th>
                  <td className="py-1 pr-4 text-right tabular-nums">{d.visitors}</td>
                  <td className="py-1 text-right tabular-nums">{d.views}</td>
                </tr>
              ))}
            </tbody>
          </table>
        </div>
      </details>
    </figure>
  );
}
