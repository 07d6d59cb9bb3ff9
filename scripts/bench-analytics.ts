/**
 * The cost of privacy-first visit counting (issue 11 §3), called from scripts/bench.ts
 * (`npm run bench -- --only=analytics [--rounds=8]`). Three parts:
 *
 *   per request  In-process CPU time of what the request path adds: the page-view check for a
 *                request that is not a page view, for a bot, and the whole count of a browser's
 *                view (bot check, address, Map and Set updates; no hashing there); median of 5 runs.
 *                In scripts/bench-analytics-per-request.ts.
 *   GET /        Each round starts two production servers on copies of the same seeded data, one
 *                with ANALYTICS=on and one with ANALYTICS=off, and loads each in turn with a
 *                browser's user agent, so every request of the "on" server is counted. Start order
 *                and load order alternate over a cycle of four rounds. Medians over the rounds of
 *                throughput, p99 and the servers' own CPU time per request.
 *   profile      One more ANALYTICS=on server under the same load with V8's CPU profiler: the
 *                share of its busy CPU spent in the counting path (steady on a shared machine).
 *                In scripts/bench-analytics-profile.ts.
 */
import { existsSync } from "node:fs";
import fs from "node:fs/promises";
import http from "node:http";
import os from "node:os";
import path from "node:path";
import { startTestServer, TEST_ADMIN, type TestServer } from "../tests/support/test-server";
import { WRK } from "./lib/load-generators";
import { measureRun, runWrk, type AnalyticsBenchOptions, type WrkRun } from "./bench-analytics-load";
import { perRequest } from "./bench-analytics-per-request";
import { profiledShare } from "./bench-analytics-profile";
import { median, round } from "./lib/bench-report";
import { PRODUCTION_MALLOC_ENV, ensureBuild, seedDemoData } from "./lib/production-server";

export type { AnalyticsBenchOptions } from "./bench-analytics-load";

// ---------------------------------------------------------------------------------------------
// GET / with counting on and off

/** Views the "on" server counted, through the owner's report (which flushes first). */
async function countedViews(server: TestServer): Promise<number> {
  try {
    return await readCountedViews(server);
  } catch (error) {
    throw new Error(
      `Could not read the counted views (${String(error)}); server output:\n${server.output().slice(-4000)}`,
    );
  }
}

/** A JSON request on a fresh connection (an idle keep-alive socket may have been closed by the server meanwhile). */
function requestJson(url: string, init: { method?: string; headers?: Record<string, string>; body?: string } = {}) {
  return new Promise<{ status: number; headers: http.IncomingHttpHeaders; body: unknown }>((resolve, reject) => {
    const request = http.request(
      url,
      { method: init.method ?? "GET", headers: init.headers, agent: false },
      (response) => {
        let text = "";
        response.setEncoding("utf8");
        response.on("data", (chunk) => (text += chunk));
        response.on("end", () =>
          resolve({
            status: response.statusCode ?? 0,
            headers: response.headers,
            body: text ? JSON.parse(text) : null,
          }),
        );
      },
    );
    request.on("error", reject);
    request.end(init.body);
  });
}

async function readCountedViews(server: TestServer): Promise<number> {
  const login = await requestJson(`${server.url}/api/login`, {
    method: "POST",
    headers: { "Content-Type": "application/json" },
    body: JSON.stringify(TEST_ADMIN),
  });
  const cookie = login.headers["set-cookie"]?.[0]?.split(";")[0] ?? "";
  const report = await requestJson(`${server.url}/api/admin/analytics`, { headers: { cookie } });
  if (report.status !== 200) throw new Error(`GET /api/admin/analytics answered ${report.status}`);
  return (report.body as { totals: { views: number } }).totals.views;
}

async function getHome(options: AnalyticsBenchOptions) {
  if (!existsSync(WRK)) {
    console.log(`GET / on/off: ${WRK} is not installed (apt-get install wrk); skipped.`);
    return { skipped: `${WRK} not installed` };
  }
  ensureBuild();
  const template = await fs.mkdtemp(path.join(os.tmpdir(), "cornerstone-bench-analytics-seed-"));
  const servers = new Set<TestServer>();
  try {
    await seedDemoData(template);
    const common = { ...PRODUCTION_MALLOC_ENV, TRUST_PROXY: "loopback" };
    const start = async (setting: "on" | "off") => {
      const server = await startTestServer({
        env: { ...common, ANALYTICS: setting },
        prepare: (dataDir) => fs.cp(template, dataDir, { recursive: true }),
      });
      servers.add(server);
      return server;
    };
    const stop = async (server: TestServer) => {
      servers.delete(server);
      await server.stop();
    };

    // --rounds=N on the bench's command line: more rounds, steadier medians on a busy machine.
    const roundsArgument = process.argv.find((arg) => arg.startsWith("--rounds="))?.slice("--rounds=".length);
    const rounds = options.rounds ?? (Number(roundsArgument) || 8);
    const seconds = Math.max(3, Math.round(options.durationS / 2));
    const runs: Record<"on" | "off", WrkRun[]> = { on: [], off: [] };
    let viewsCounted = 0;
    for (let i = 0; i < rounds; i++) {
      // Fresh processes each round (one process can be luckier than another all along). Which one
      // starts first and which one is loaded first both alternate, in a cycle of four rounds: an A/A
      // run (both off) showed the first-started server about 3 % costlier, and the machine's load
      // drifts between the two runs of a round.
      const startOrder = i % 2 === 0 ? (["on", "off"] as const) : (["off", "on"] as const);
      const servers = {} as Record<"on" | "off", TestServer>;
      for (const name of startOrder) servers[name] = await start(name);
      const { on, off } = servers;
      for (const server of [on, off]) runWrk(server.url, 2, options); // warm-up, discarded
      const viewsBefore = await countedViews(on);
      const order = Math.floor(i / 2) % 2 === 0 ? startOrder : ([...startOrder].reverse() as ("on" | "off")[]);
      for (const name of order) {
        const run = await measureRun(name === "on" ? on : off, seconds, options);
        runs[name].push(run);
        console.error(
          `  round ${i + 1} ANALYTICS=${name}: ${run.requestsPerSecond} req/s, p99 ${run.p99Ms} ms, server CPU ${run.serverCpuMicrosPerRequest} µs/request`,
        );
      }
      viewsCounted += (await countedViews(on)) - viewsBefore;
      await stop(on);
      await stop(off);
    }
    const requestsOn = runs.on.reduce((sum, run) => sum + run.requests, 0);
    const profiled = await profiledShare(template, seconds * 2, options);

    const onMedian = median(runs.on.map((r) => r.requestsPerSecond));
    const offMedian = median(runs.off.map((r) => r.requestsPerSecond));
    const cpuOn = median(runs.on.map((r) => r.serverCpuMicrosPerRequest));
    const cpuOff = median(runs.off.map((r) => r.serverCpuMicrosPerRequest));
    const result = {
      rounds,
      secondsPerRun: seconds,
      requestsPerSecond: { on: round(onMedian, 0), off: round(offMedian, 0) },
      p99Ms: { on: round(median(runs.on.map((r) => r.p99Ms))), off: round(median(runs.off.map((r) => r.p99Ms))) },
      /** Negative: counting costs that share of throughput. */
      differencePercent: round(((onMedian - offMedian) / offMedian) * 100, 1),
      serverCpuMicrosPerRequest: { on: round(cpuOn, 1), off: round(cpuOff, 1) },
      /** Positive: counting costs that much more server CPU per request. */
      cpuDifferencePercent: round(((cpuOn - cpuOff) / cpuOff) * 100, 1),
      /** Every measured request of the "on" server was counted (a check that counting really ran). */
      viewsCounted,
      requestsOn,
      profiled,
      runs,
    };
    console.log(
      [
        `GET / (br, a browser's user agent; ${rounds} rounds of fresh servers, ${seconds} s each setting, interleaved; medians):`,
        `  ANALYTICS=on   ${result.requestsPerSecond.on} req/s, p99 ${result.p99Ms.on} ms`,
        `  ANALYTICS=off  ${result.requestsPerSecond.off} req/s, p99 ${result.p99Ms.off} ms`,
        `  difference     ${result.differencePercent}% (aim: within 5 %; one run on a shared machine is not a verdict)`,
        `  server CPU per request: on ${result.serverCpuMicrosPerRequest.on} µs, off ${result.serverCpuMicrosPerRequest.off} µs (${result.cpuDifferencePercent > 0 ? "+" : ""}${result.cpuDifferencePercent}%)`,
        `  views counted by the "on" server: ${viewsCounted} of ${requestsOn} requests completed in the measured runs`,
      ].join("\n"),
    );
    return result;
  } finally {
    for (const server of servers) await server.stop();
    await fs.rm(template, { recursive: true, force: true });
  }
}

export async function analyticsBench(options: AnalyticsBenchOptions) {
  console.log("\n== Visit counting (ANALYTICS): per-request cost, and GET / with counting on and off");
  const perRequestResult = await perRequest();
  const home = await getHome(options);
  return { date: new Date().toISOString(), perRequest: perRequestResult, getHome: home };
}
