import type { Result } from "lighthouse";
import { kb } from "./bench-report";

/**
 * The budgets for the public pages on Lighthouse's mobile preset, judged on the median of
 * MOBILE_RUNS runs per page. Printed as pass/fail lines by `npm run lighthouse` (never timed tests).
 */
export const MOBILE_RUNS = 5;
const KB = 1024;
const BUDGETS = {
  /** Script transferred without interaction (brotli): the contact page has its one React island. */
  scriptBytes: (route: string) => (route === "/contact" ? 80 * KB : 15 * KB),
  lcpSeconds: 1.2,
  performance: 100,
  tbtMs: 50,
  cls: 0,
  /** HTML and CSS on the wire before the first image request. */
  htmlCssBeforeFirstImageBytes: 30 * KB,
} as const;

export type PageWeights = { scriptBytes: number; htmlCssBeforeFirstImageBytes: number };

type NetworkItem = { resourceType?: string; transferSize?: number; networkRequestTime?: number; url?: string };

/** From Lighthouse's network-requests audit: script bytes, and the HTML and CSS sent before the first image. */
export function pageWeights(lhr: Result): PageWeights {
  const items = (lhr.audits["network-requests"]?.details as { items?: NetworkItem[] } | undefined)?.items ?? [];
  const scriptBytes = items
    .filter((item) => item.resourceType === "Script")
    .reduce((sum, item) => sum + (item.transferSize ?? 0), 0);
  const firstImage = Math.min(
    ...items.filter((item) => item.resourceType === "Image").map((item) => item.networkRequestTime ?? Infinity),
  );
  const htmlCssBeforeFirstImageBytes = items
    .filter(
      (item) =>
        (item.resourceType === "Document" || item.resourceType === "Stylesheet") &&
        (item.networkRequestTime ?? 0) <= firstImage,
    )
    .reduce((sum, item) => sum + (item.transferSize ?? 0), 0);
  return { scriptBytes, htmlCssBeforeFirstImageBytes };
}

export type MedianRow = {
  route: string;
  performance: number;
  lcpSeconds: number;
  tbtMs: number;
  cls: number;
  scriptBytes: number;
  htmlCssBeforeFirstImageBytes: number;
};

/** One line per budget and page: "PASS" or "FAIL", the median, the budget; the 404 page's script last. */
export function budgetLines(rows: MedianRow[], notFound: { route: string; scriptBytes: number }): string[] {
  const lines: string[] = [];
  const check = (
    route: string,
    label: string,
    value: number,
    limit: number,
    format: (n: number) => string,
    atLeast = false,
  ) => {
    const pass = atLeast ? value >= limit : value <= limit;
    lines.push(
      `${pass ? "PASS" : "FAIL"}  ${route.padEnd(14)} ${label.padEnd(34)} ${format(value).padStart(9)}  (budget ${atLeast ? "≥" : "≤"} ${format(limit)})`,
    );
  };
  for (const row of rows) {
    check(row.route, "script transferred (no interaction)", row.scriptBytes, BUDGETS.scriptBytes(row.route), kb);
    check(row.route, "simulated LCP", row.lcpSeconds, BUDGETS.lcpSeconds, (n) => `${n.toFixed(2)} s`);
    check(row.route, "Lighthouse performance", row.performance, BUDGETS.performance, String, true);
    check(row.route, "TBT", row.tbtMs, BUDGETS.tbtMs, (n) => `${Math.round(n)} ms`);
    check(row.route, "CLS", row.cls, BUDGETS.cls, (n) => n.toFixed(3));
    check(
      row.route,
      "HTML + CSS before the first image",
      row.htmlCssBeforeFirstImageBytes,
      BUDGETS.htmlCssBeforeFirstImageBytes,
      kb,
    );
  }
  const { route, scriptBytes } = notFound;
  check("404", "script (from its HTML, brotli)", scriptBytes, BUDGETS.scriptBytes(route), kb);
  return lines;
}
