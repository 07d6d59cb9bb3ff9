/**
 * npm run lighthouse [-- --only=/,/stonework] [--presets=mobile,desktop] [--runs=5] [--cpu-slowdown=4]
 *
 * Lighthouse audits of every public page, mobile (simulated slow 4G, CPU slowdown) and desktop,
 * against the production build with photo-like demo galleries. The budgets are judged on the
 * mobile medians (scripts/lib/lighthouse-budgets.ts); the 404 page's script is summed from its HTML,
 * since Lighthouse does not audit a 404. Writes reports/lighthouse/: every run's report, beside each
 * mobile one its -lcp-graph.txt, and summary.json. Exits non-zero only when an audit cannot run.
 * Audits run one at a time, so they do not skew each other's timings.
 */
import fs from "node:fs/promises";
import path from "node:path";
import * as chromeLauncher from "chrome-launcher";
import lighthouse, { type Config, type Result } from "lighthouse";
import desktopConfig from "lighthouse/core/config/desktop-config.js";
import * as Lantern from "lighthouse/core/lib/lantern/lantern.js";
import { islandFilesInPage } from "../app/islands/page-script";
import { PUBLIC_PAGE_PATHS } from "../app/public-pages";
import { CHROMIUM_FLAGS, CHROMIUM_PATH } from "../tests/support/chromium";
import { median, table } from "./lib/bench-report";
import { lcpGraphLines } from "./lib/lantern-lcp-graph";
import { MOBILE_RUNS, budgetLines, pageWeights, type MedianRow } from "./lib/lighthouse-budgets";
import { PROJECT_ROOT, startProductionServer, stopOnInterrupt } from "./lib/production-server";

/** Lighthouse scales the trace's CPU tasks by this on mobile; its benchmarkIndex says how fast this machine was meanwhile. */
const CPU_SLOWDOWN = Number(option("cpu-slowdown")?.[0] ?? 4);
if (!(CPU_SLOWDOWN >= 1)) throw new Error("--cpu-slowdown: a number of at least 1");
const mobileThrottling = {
  ...Lantern.Simulation.Constants.throttling.mobileSlow4G,
  cpuSlowdownMultiplier: CPU_SLOWDOWN,
};
const ALL_PRESETS: { name: "mobile" | "desktop"; config: Config }[] = [
  // Lighthouse's default config
  { name: "mobile", config: { extends: "lighthouse:default", settings: { throttling: mobileThrottling } } },
  { name: "desktop", config: desktopConfig },
];

/** `--name=a,b` from the command line, or undefined. */
function option(name: string): string[] | undefined {
  const arg = process.argv.slice(2).find((a) => a.startsWith(`--${name}=`));
  return arg
    ? arg
        .slice(name.length + 3)
        .split(",")
        .filter(Boolean)
    : undefined;
}
function chosen<T>(all: readonly T[], wanted: string[] | undefined, key: (item: T) => string, name: string): T[] {
  if (!wanted) return [...all];
  const unknown = wanted.filter((w) => !all.some((item) => key(item) === w));
  if (unknown.length)
    throw new Error(`--${name}: unknown ${unknown.join(", ")} (choose from ${all.map(key).join(", ")})`);
  return all.filter((item) => wanted.includes(key(item)));
}
const ROUTES = chosen(PUBLIC_PAGE_PATHS, option("only"), String, "only");
const PRESETS = chosen(ALL_PRESETS, option("presets"), (p) => p.name, "presets");
const RUNS = Number(option("runs")?.[0] ?? MOBILE_RUNS);
if (!Number.isInteger(RUNS) || RUNS < 1) throw new Error("--runs: a whole number of at least 1");
const CATEGORIES = ["performance", "accessibility", "best-practices", "seo"] as const;
const REPORT_DIR = path.join(PROJECT_ROOT, "reports", "lighthouse");

const CHROME_FLAGS = ["--headless=new", ...CHROMIUM_FLAGS];

/** A path outside the route table: the 404 page. */
const NOT_FOUND_PATH = "/no-such-page";

/**
 * Audits that cannot pass on this set-up, whatever the code does, and why.
 * Printed next to a failure so nobody chases them.
 */
const ENVIRONMENT_LIMITS: Record<string, string> = {
  "is-on-https":
    "The audit server speaks plain HTTP on 127.0.0.1; HTTPS is the reverse proxy's job in production (HSTS is already sent over HTTPS).",
  "redirects-http": "Needs an HTTPS deployment that redirects port 80; there is no TLS here.",
  "uses-http2": "Node serves HTTP/1.1; HTTP/2 comes from the reverse proxy (e.g. Caddy or nginx) in production.",
  "is-crawlable":
    "Blocked from indexing (robots/X-Robots-Tag) — check whether the server treats a 127.0.0.1 SITE_URL as a non-production host.",
  canonical: "The canonical URL comes from SITE_URL; here that is the temporary http://127.0.0.1:<port> address.",
};

type Scores = Record<(typeof CATEGORIES)[number], number | null>;

type FailingAudit = {
  id: string;
  title: string;
  score: number | null;
  displayValue?: string;
  /** For table audits such as inspector-issues: what each row names (issue type, URL). */
  items?: string[];
  environment?: string;
};

/** A short text per row of an audit's table (issue type and URLs, or the URL), to say what failed. */
function describeItems(details: unknown): string[] | undefined {
  const items = (details as { items?: unknown[] } | undefined)?.items;
  if (!Array.isArray(items)) return undefined;
  const texts = items.slice(0, 5).map((raw) => {
    const item = raw as {
      issueType?: string;
      url?: string;
      source?: string;
      subItems?: { items?: { url?: string }[] };
    };
    const urls = (item.subItems?.items ?? []).map((sub) => sub.url).filter(Boolean);
    return [item.issueType, item.url, item.source, ...urls].filter(Boolean).join(" ");
  });
  return texts.filter(Boolean).length ? texts.filter(Boolean) : undefined;
}

type AuditSummary = {
  route: string;
  preset: string;
  url: string;
  report: string;
  scores: Scores;
  lcpSeconds: number | null;
  tbtMs: number | null;
  cls: number | null;
  totalByteWeight: number | null;
  /** Per category below 100: its weighted audits that did not score full marks. */
  failing: Partial<Record<(typeof CATEGORIES)[number], FailingAudit[]>>;
  runWarnings: string[];
  /** How the page load was throttled, e.g. "simulated: 150 ms RTT, 1.6 Mbit/s, 4× CPU". */
  throttling: string;
  /** Lighthouse's measure of this machine's speed during the audit (a Moto G Power scores about 1,000). */
  benchmarkIndex: number;
};

function describeThrottling(lhr: Result): string {
  const { throttlingMethod, throttling } = lhr.configSettings;
  if (throttlingMethod === "provided") return "none (provided)";
  const mbit = (throttling.throughputKbps ?? 0) / 1024;
  return `${throttlingMethod}: ${throttling.rttMs} ms RTT, ${mbit.toFixed(1)} Mbit/s, ${throttling.cpuSlowdownMultiplier}× CPU slowdown`;
}

function reportName(preset: string, route: string): string {
  return `${preset}-${route === "/" ? "home" : route.slice(1).replaceAll("/", "-")}`;
}

function numeric(lhr: Result, auditId: string): number | null {
  return lhr.audits[auditId]?.numericValue ?? null;
}

function summarize(lhr: Result, route: string, preset: string, report: string): AuditSummary {
  const scores = {} as Scores;
  const failing: AuditSummary["failing"] = {};
  for (const id of CATEGORIES) {
    const category = lhr.categories[id];
    const score = category?.score == null ? null : Math.round(category.score * 100);
    scores[id] = score;
    if (!category || score === 100) continue;
    failing[id] = category.auditRefs
      .filter((ref) => ref.weight > 0)
      .map((ref) => lhr.audits[ref.id])
      .filter(
        (audit): audit is NonNullable<typeof audit> => audit !== undefined && audit.score !== null && audit.score < 1,
      )
      .map((audit) => ({
        id: audit.id,
        title: audit.title,
        score: audit.score,
        displayValue: audit.displayValue,
        items: audit.details?.type === "table" ? describeItems(audit.details) : undefined,
        environment: ENVIRONMENT_LIMITS[audit.id],
      }));
  }
  const lcp = numeric(lhr, "largest-contentful-paint");
  return {
    route,
    preset,
    url: lhr.finalDisplayedUrl,
    report,
    scores,
    lcpSeconds: lcp === null ? null : Number((lcp / 1000).toFixed(2)),
    tbtMs: numeric(lhr, "total-blocking-time"),
    cls: numeric(lhr, "cumulative-layout-shift"),
    totalByteWeight: numeric(lhr, "total-byte-weight"),
    failing,
    runWarnings: lhr.runWarnings,
    throttling: describeThrottling(lhr),
    benchmarkIndex: Math.round(lhr.environment.benchmarkIndex),
  };
}

/** One audit in a fresh Chromium, so no cache or storage carries over between pages. */
async function audit(url: string, config: Config | undefined): Promise<{ lhr: Result; json: string }> {
  const chrome = await chromeLauncher.launch({
    chromePath: CHROMIUM_PATH,
    chromeFlags: CHROME_FLAGS,
    logLevel: "error",
  });
  try {
    const result = await lighthouse(url, { port: chrome.port, output: "json", logLevel: "error" }, config);
    if (!result) throw new Error(`Lighthouse returned nothing for ${url}`);
    if (result.lhr.runtimeError)
      throw new Error(`${url}: ${result.lhr.runtimeError.code} ${result.lhr.runtimeError.message}`);
    return { lhr: result.lhr, json: typeof result.report === "string" ? result.report : result.report.join("\n") };
  } finally {
    chrome.kill();
  }
}

/** Lighthouse now and then loses a trace (NO_NAVSTART, NO_FCP…): try again before giving up. */
async function auditWithRetries(
  url: string,
  config: Config | undefined,
  attempts = 3,
): Promise<{ lhr: Result; json: string }> {
  for (let attempt = 1; ; attempt++) {
    try {
      return await audit(url, config);
    } catch (error) {
      if (attempt >= attempts) throw error;
      console.error(
        `  attempt ${attempt} failed (${error instanceof Error ? error.message : String(error)}); retrying`,
      );
    }
  }
}

function printTable(rows: AuditSummary[]): void {
  const header = ["route", "preset", "Perf", "A11y", "BP", "SEO", "LCP s", "TBT ms", "CLS", "bytes", "bench"];
  const lines = rows.map((row) => [
    row.route,
    row.preset,
    ...CATEGORIES.map((id) => String(row.scores[id] ?? "n/a")),
    row.lcpSeconds?.toFixed(2) ?? "n/a",
    row.tbtMs === null ? "n/a" : String(Math.round(row.tbtMs)),
    row.cls === null ? "n/a" : row.cls.toFixed(3),
    row.totalByteWeight === null ? "n/a" : row.totalByteWeight.toLocaleString("en-US"),
    String(row.benchmarkIndex),
  ]);
  console.log(`\n${table(header, lines)}`);
}

function printFailures(rows: AuditSummary[]): void {
  const withFailures = rows.filter((row) => Object.keys(row.failing).length > 0);
  if (!withFailures.length) return;
  console.log("\nAudits below full marks (categories under 100):");
  for (const row of withFailures) {
    for (const [category, audits] of Object.entries(row.failing)) {
      console.log(`  ${row.preset} ${row.route} — ${category} ${row.scores[category as keyof Scores]}:`);
      for (const audit of audits) {
        const value = audit.displayValue ? ` (${audit.displayValue})` : "";
        console.log(`    - ${audit.id}: ${audit.title}${value}, score ${audit.score}`);
        for (const item of audit.items ?? []) console.log(`      · ${item}`);
        if (audit.environment) console.log(`      not fixable here: ${audit.environment}`);
      }
    }
  }
}

async function main(): Promise<void> {
  await fs.mkdir(REPORT_DIR, { recursive: true });
  const server = await startProductionServer({ photoLike: true });
  stopOnInterrupt(server.stop);
  const rows: AuditSummary[] = [];
  let lighthouseVersion = "";
  try {
    console.error(`server ${server.url}, Chromium at ${CHROMIUM_PATH}`);
    let chromeVersion = "";

    const mobileRuns = new Map<string, MedianRow[]>();
    for (const preset of PRESETS) {
      for (const route of ROUTES) {
        const url = `${server.url}${route}`;
        const runs = preset.name === "mobile" ? RUNS : 1;
        for (let run = 1; run <= runs; run++) {
          const started = Date.now();
          const { lhr, json } = await auditWithRetries(url, preset.config);
          lighthouseVersion = lhr.lighthouseVersion;
          chromeVersion = /(Headless)?Chrome\/[\d.]+/.exec(lhr.environment.hostUserAgent)?.[0] ?? "unknown";
          const row = summarize(lhr, route, preset.name, "");
          if (preset.name === "mobile") {
            const weights = pageWeights(lhr);
            const list = mobileRuns.get(route) ?? [];
            list.push({
              route,
              performance: row.scores.performance ?? 0,
              lcpSeconds: row.lcpSeconds ?? Infinity,
              tbtMs: row.tbtMs ?? Infinity,
              cls: row.cls ?? Infinity,
              ...weights,
            });
            mobileRuns.set(route, list);
          }
          // Every run's full report is kept (<preset>-<page>.json, then -run2.json…); the first one goes in the table.
          const file = path.join(REPORT_DIR, `${reportName(preset.name, route)}${run === 1 ? "" : `-run${run}`}.json`);
          await fs.writeFile(file, json);
          if (preset.name === "mobile")
            await fs.writeFile(file.replace(/\.json$/, "-lcp-graph.txt"), `${lcpGraphLines(server.url).join("\n")}\n`);
          if (run === 1) rows.push({ ...row, report: path.relative(PROJECT_ROOT, file) });
          console.error(
            `${preset.name} ${route} (run ${run}/${runs}): LCP ${row.lcpSeconds ?? "n/a"} s, TBT ${Math.round(row.tbtMs ?? NaN)} ms, benchmarkIndex ${row.benchmarkIndex}, done in ${((Date.now() - started) / 1000).toFixed(1)} s`,
          );
        }
      }
    }
    const medians = [...mobileRuns.entries()].map(([route, runs]) => {
      const row = { route } as MedianRow;
      for (const key of Object.keys(runs[0]!) as (keyof MedianRow)[])
        if (key !== "route") row[key] = median(runs.map((r) => r[key]));
      return row;
    });
    const notFoundScript = await scriptBytesOfPage(`${server.url}${NOT_FOUND_PATH}`);

    printTable(rows);
    for (const preset of PRESETS) {
      const row = rows.find((r) => r.preset === preset.name);
      if (row)
        console.log(
          `${preset.name}: ${row.throttling} (Lighthouse's ${preset.name} preset; LCP/TBT are simulated from the trace)`,
        );
    }
    const index = median(rows.filter((row) => row.preset === "mobile").map((row) => row.benchmarkIndex));
    if (index)
      console.log(
        `benchmarkIndex ${index}: a machine of 1,500 at 4× is imitated by --cpu-slowdown=${((4 * index) / 1500).toFixed(1)}`,
      );
    // A category under 100 (A11y, BP and SEO must be 100) lists its audits below full marks.
    printFailures(rows);

    console.log(`\nBudgets, mobile, median of ${RUNS} runs per page:`);
    for (const line of budgetLines(medians, { route: NOT_FOUND_PATH, scriptBytes: notFoundScript }))
      console.log(`  ${line}`);
    const warnings = [...new Set(rows.flatMap((row) => row.runWarnings))];
    if (warnings.length) console.log(`\nLighthouse run warnings:\n${warnings.map((w) => `  - ${w}`).join("\n")}`);

    const summary = {
      date: new Date().toISOString(),
      lighthouseVersion,
      chrome: chromeVersion,
      mobileMedians: medians,
      notFoundScriptBytes: notFoundScript,
      results: rows,
    };
    await fs.writeFile(path.join(REPORT_DIR, "summary.json"), `${JSON.stringify(summary, null, 2)}\n`);
    console.log(
      `\nReports: ${path.relative(PROJECT_ROOT, REPORT_DIR)}/ (summary.json and one JSON per page and preset)`,
    );
  } finally {
    await server.stop();
  }
}

/** The brotli bytes of every script a page's HTML loads (the islands' loader list, module scripts, modulepreloads). */
async function scriptBytesOfPage(url: string): Promise<number> {
  const html = await (await fetch(url)).text();
  const sources = islandFilesInPage(html);
  let total = 0;
  for (const source of sources) {
    const response = await fetch(new URL(source, url), { headers: { "Accept-Encoding": "br" } });
    // fetch decodes the body: the bytes on the wire are the Content-Length (files under 1 KB go as they are).
    const decoded = (await response.arrayBuffer()).byteLength;
    total += Number(response.headers.get("content-length") ?? decoded);
  }
  return total;
}

main().catch((error: unknown) => {
  console.error(error instanceof Error ? (error.stack ?? error.message) : error);
  process.exit(1);
});
