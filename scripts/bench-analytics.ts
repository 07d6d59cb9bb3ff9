/**
 * The cost of privacy-first visit counting (issue 11 §3), called from scripts/bench.ts
 * (`npm run bench -- --only=analytics [--rounds=8]`). Three parts:
 *
 *   per request  In-process CPU time of what the request path adds: the page-view check for a
 *                request that is not a page view, for a bot, and the whole count of a browser's
 *                view (bot check, address, Map and Set updates; no hashing there); median of 5 runs.
 *   GET /        Each round starts two production servers on copies of the same seeded data, one
 *                with ANALYTICS=on and one with ANALYTICS=off, and loads each in turn with a
 *                browser's user agent, so every request of the "on" server is counted. Start order
 *                and load order alternate over a cycle of four rounds. Medians over the rounds of
 *                throughput, p99 and the servers' own CPU time per request.
 *   profile      One more ANALYTICS=on server under the same load with V8's CPU profiler: the
 *                share of its busy CPU spent in the counting path (steady on a shared machine).
 */
import { spawn, spawnSync } from "node:child_process";
import { existsSync } from "node:fs";
import fs from "node:fs/promises";
import http, { type IncomingMessage, type ServerResponse } from "node:http";
import os from "node:os";
import path from "node:path";
import express from "express";
import { createAnalytics } from "~/analytics/analytics.server";
import { migrateToLatest, openDatabase } from "~/db/database.server";
import { parseEnv } from "~/env.server";
import { systemClock } from "~/lib/clock";
import { createLogger } from "~/lib/logger.server";
import { createPageViewCounter } from "../server/page-view-counter";
import { startTestServer, TEST_ADMIN, waitUntilHealthy, type TestServer } from "../tests/support/test-server";
import { PRODUCTION_MALLOC_ENV, PROJECT_ROOT, ensureBuild, freePort, seedDemoData } from "./lib/production-server";

const WRK = "/usr/bin/wrk";
const BROWSER = "Mozilla/5.0 (Linux; Android 14; Pixel 7) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/126.0.0.0 Mobile Safari/537.36";

export type AnalyticsBenchOptions = { durationS: number; connections: number; threads: number; rounds?: number };

const median = (values: number[]) => {
  const sorted = [...values].sort((a, b) => a - b);
  const middle = Math.floor(sorted.length / 2);
  return sorted.length % 2 ? sorted[middle]! : (sorted[middle - 1]! + sorted[middle]!) / 2;
};
const round = (value: number, digits = 2) => Number(value.toFixed(digits));

// ---------------------------------------------------------------------------------------------
// Per request, in process

function fakeRequest(url: string, headers: Record<string, string>): IncomingMessage {
  const socket = { remoteAddress: "127.0.0.1" };
  return { method: "GET", url, headers, socket, connection: socket } as unknown as IncomingMessage;
}

/**
 * CPU nanoseconds per call: the median of 5 runs of `iterations` calls each. CPU time, not wall
 * time, so other processes sharing the cores do not inflate it.
 */
function timePerCall(iterations: number, call: (i: number) => void): number {
  const runs: number[] = [];
  for (let run = 0; run < 5; run++) {
    for (let i = 0; i < 2000; i++) call(i); // warm-up
    const started = process.cpuUsage();
    for (let i = 0; i < iterations; i++) call(i);
    const used = process.cpuUsage(started);
    runs.push(((used.user + used.system) * 1000) / iterations);
  }
  return round(median(runs), 0);
}

export async function perRequest() {
  const dir = await fs.mkdtemp(path.join(os.tmpdir(), "cornerstone-bench-analytics-"));
  const db = openDatabase(dir);
  try {
    await migrateToLatest(db);
    const logger = createLogger({ level: "silent" });
    // Caps raised so the distinct-visitor run measures hashing and inserting, not dropping.
    const analytics = createAnalytics({ db, logger, clock: systemClock, enabled: true, timeZone: "Pacific/Auckland", limits: { maxBufferedVisitors: 1e7 } });
    await analytics.start();
    const app = express();
    app.set("trust proxy", "loopback");
    const env = parseEnv({ DATA_DIR: dir, LOG_LEVEL: "silent" });
    const counter = createPageViewCounter(app, { analytics, env })!;
    const res = { statusCode: 200 } as ServerResponse;
    const iterations = 200_000;

    const asset = fakeRequest("/assets/root-abc123.js", { "user-agent": BROWSER });
    const bot = fakeRequest("/", { "user-agent": "Mozilla/5.0 (compatible; Googlebot/2.1; +http://www.google.com/bot.html)" });
    const returning = fakeRequest("/", { "user-agent": BROWSER, "x-forwarded-for": "203.0.113.9", referer: "https://www.google.com/" });
    const distinct = Array.from({ length: 4096 }, (_, i) =>
      fakeRequest("/", { "user-agent": BROWSER, "x-forwarded-for": `10.${(i >> 8) & 255}.${i & 255}.${(i * 7) & 255}` }),
    );

    const results = {
      notAPageViewNs: timePerCall(iterations, () => counter.countAnswered(asset, res)),
      botNs: timePerCall(iterations, () => counter.countAnswered(bot, res)),
      browserReturningVisitorNs: timePerCall(iterations, () => counter.countAnswered(returning, res)),
      browserNewVisitorNs: timePerCall(20_000, (i) => counter.countAnswered(distinct[i % distinct.length]!, res)),
    };
    await analytics.stop();
    console.log(
      [
        "Per request (CPU time, median of 5 runs, in process):",
        `  not a page view (e.g. /assets/…)           ${results.notAPageViewNs} ns`,
        `  a bot's page view (not counted)             ${results.botNs} ns`,
        `  a browser's view, returning visitor         ${results.browserReturningVisitorNs} ns`,
        `  a browser's view, visitor new to the buffer ${results.browserNewVisitorNs} ns`,
      ].join("\n"),
    );
    return results;
  } finally {
    await db.destroy();
    await fs.rm(dir, { recursive: true, force: true });
  }
}

// ---------------------------------------------------------------------------------------------
// GET / with counting on and off

type WrkRun = { requestsPerSecond: number; p99Ms: number; requests: number; serverCpuMicrosPerRequest: number };

const CLOCK_TICKS_PER_SECOND = Number(spawnSync("getconf", ["CLK_TCK"], { encoding: "utf8" }).stdout.trim()) || 100;

/** CPU seconds a process has used (user + system), from /proc. */
async function cpuSeconds(pid: number): Promise<number> {
  const stat = await fs.readFile(`/proc/${pid}/stat`, "utf8");
  const fields = stat.slice(stat.lastIndexOf(")") + 2).split(" ");
  return (Number(fields[11]) + Number(fields[12])) / CLOCK_TICKS_PER_SECOND;
}

function wrkMs(value: string): number {
  const match = /^([\d.]+)(us|ms|s)$/.exec(value.trim());
  if (!match) throw new Error(`Unexpected wrk duration "${value}"`);
  return Number(match[1]) * { us: 0.001, ms: 1, s: 1000 }[match[2] as "us" | "ms" | "s"];
}

/**
 * One wrk run against a server, with the server's own CPU time per request: on a shared machine
 * throughput swings with whatever else runs, while the CPU a request costs the server barely does.
 */
async function measureRun(server: TestServer, seconds: number, options: AnalyticsBenchOptions): Promise<WrkRun> {
  const cpuBefore = await cpuSeconds(server.pid);
  const run = runWrk(server.url, seconds, options);
  const cpuUsed = (await cpuSeconds(server.pid)) - cpuBefore;
  return { ...run, serverCpuMicrosPerRequest: round((cpuUsed * 1e6) / run.requests, 1) };
}

function runWrk(url: string, seconds: number, options: AnalyticsBenchOptions): Omit<WrkRun, "serverCpuMicrosPerRequest"> {
  const args = [`-t${options.threads}`, `-c${options.connections}`, `-d${seconds}s`, "--latency"];
  args.push("-H", `User-Agent: ${BROWSER}`, "-H", "X-Forwarded-For: 203.0.113.9", "-H", "Accept-Encoding: br", `${url}/`);
  const result = spawnSync(WRK, args, { encoding: "utf8" });
  if (result.status !== 0) throw new Error(`wrk failed: ${result.stderr || result.stdout}`);
  const out = result.stdout;
  const rps = /Requests\/sec:\s+([\d.]+)/.exec(out);
  const p99 = /^\s+99%\s+(\S+)\s*$/m.exec(out);
  const requests = /(\d+) requests in/.exec(out);
  if (!rps || !p99 || !requests) throw new Error(`Could not parse wrk output:\n${out}`);
  return { requestsPerSecond: Number(rps[1]), p99Ms: wrkMs(p99[1]!), requests: Number(requests[1]) };
}

/** Views the "on" server counted, through the owner's report (which flushes first). */
async function countedViews(server: TestServer): Promise<number> {
  try {
    return await readCountedViews(server);
  } catch (error) {
    throw new Error(`Could not read the counted views (${String(error)}); server output:\n${server.output().slice(-4000)}`);
  }
}

/** A JSON request on a fresh connection (an idle keep-alive socket may have been closed by the server meanwhile). */
function requestJson(url: string, init: { method?: string; headers?: Record<string, string>; body?: string } = {}) {
  return new Promise<{ status: number; headers: http.IncomingHttpHeaders; body: unknown }>((resolve, reject) => {
    const request = http.request(url, { method: init.method ?? "GET", headers: init.headers, agent: false }, (response) => {
      let text = "";
      response.setEncoding("utf8");
      response.on("data", (chunk) => (text += chunk));
      response.on("end", () => resolve({ status: response.statusCode ?? 0, headers: response.headers, body: text ? JSON.parse(text) : null }));
    });
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

// ---------------------------------------------------------------------------------------------
// Counting's share of a loaded server's CPU, from a V8 CPU profile

type ProfileNode = { id: number; callFrame: { functionName: string; url: string }; children?: number[] };
type CpuProfile = { nodes: ProfileNode[]; samples: number[]; timeDeltas: number[] };

/** Functions of the counting path, by the names they keep in the server bundle. */
const COUNTING_FUNCTIONS = new Set(["countAnswered", "countWhenAnswered"]);

/**
 * Runs an ANALYTICS=on server under V8's sampling profiler and the same load, and reports the share
 * of its busy CPU time spent in the counting path. Both sides of the ratio slow down alike when other
 * processes compete for the cores, so this share is much steadier than req/s on a shared machine.
 * Samples before the first cached answer (start-up) are left out.
 */
async function profiledShare(template: string, seconds: number, options: AnalyticsBenchOptions) {
  const profileDir = await fs.mkdtemp(path.join(os.tmpdir(), "cornerstone-bench-analytics-profile-"));
  try {
    // Started by hand: --cpu-prof is not allowed in NODE_OPTIONS.
    const dataDir = path.join(profileDir, "data");
    await fs.cp(template, dataDir, { recursive: true });
    const port = await freePort();
    const url = `http://127.0.0.1:${port}`;
    let output = "";
    const child = spawn(process.execPath, ["--cpu-prof", `--cpu-prof-dir=${profileDir}`, path.join(PROJECT_ROOT, "build/server/index.js")], {
      env: {
        ...process.env,
        ...PRODUCTION_MALLOC_ENV,
        NODE_ENV: "production",
        PORT: String(port),
        HOST: "127.0.0.1",
        DATA_DIR: dataDir,
        SITE_URL: url,
        TRUST_PROXY: "loopback",
        LOG_LEVEL: "warn",
        ANALYTICS: "on",
      },
      stdio: ["ignore", "pipe", "pipe"],
    });
    const exited = new Promise((resolve) => child.once("exit", resolve));
    child.stdout!.on("data", (chunk) => (output += chunk));
    child.stderr!.on("data", (chunk) => (output += chunk));
    let requests = 0;
    try {
      await waitUntilHealthy(url, child, () => output);
      runWrk(url, 2, options);
      requests = runWrk(url, seconds, options).requests;
    } finally {
      child.kill("SIGTERM"); // the profile is written as the process exits
      await exited;
    }
    const file = (await fs.readdir(profileDir)).find((name) => name.endsWith(".cpuprofile"));
    if (!file) throw new Error("The server wrote no CPU profile");
    const profile = JSON.parse(await fs.readFile(path.join(profileDir, file), "utf8")) as CpuProfile;

    const byId = new Map(profile.nodes.map((node) => [node.id, node]));
    const parentOf = new Map<number, number>();
    for (const node of profile.nodes) for (const child of node.children ?? []) parentOf.set(child, node.id);
    const stackHas = (id: number, names: Set<string>) => {
      for (let current: number | undefined = id; current !== undefined; current = parentOf.get(current)) {
        if (names.has(byId.get(current)!.callFrame.functionName)) return true;
      }
      return false;
    };
    const servingStarted = profile.samples.findIndex((id) => stackHas(id, new Set(["respondFromCache"])));
    let busy = 0;
    let counting = 0;
    for (let i = Math.max(0, servingStarted); i < profile.samples.length; i++) {
      const name = byId.get(profile.samples[i]!)!.callFrame.functionName;
      if (name === "(idle)") continue;
      const micros = profile.timeDeltas[i] ?? 0;
      busy += micros;
      if (stackHas(profile.samples[i]!, COUNTING_FUNCTIONS)) counting += micros;
    }
    const result = {
      requests,
      busyCpuSeconds: round(busy / 1e6),
      countingCpuSeconds: round(counting / 1e6, 3),
      countingSharePercent: round((counting / busy) * 100, 2),
    };
    console.log(
      `Profiled ANALYTICS=on server under the same load (${seconds} s): counting is ${result.countingSharePercent}% of its busy CPU ` +
        `(${result.countingCpuSeconds} s of ${result.busyCpuSeconds} s, ${requests} requests; profiler overhead included on both sides)`,
    );
    return result;
  } finally {
    await fs.rm(profileDir, { recursive: true, force: true });
  }
}

export async function analyticsBench(options: AnalyticsBenchOptions) {
  console.log("\n== Visit counting (ANALYTICS): per-request cost, and GET / with counting on and off");
  const perRequestResult = await perRequest();
  const home = await getHome(options);
  return { date: new Date().toISOString(), perRequest: perRequestResult, getHome: home };
}
