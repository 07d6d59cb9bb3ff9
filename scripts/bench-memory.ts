/**
 * Memory and logging under junk traffic, called from scripts/bench.ts
 * (`npm run bench -- --only=memory`). The server runs exactly as `npm run serve` starts it (its
 * node flags read from package.json) with the default LOG_LEVEL=info, its log on a pipe that this
 * process drains.
 *
 *   peak RSS   80,000 requests at 50 connections, one fresh server per kind: distinct unknown 4 KB
 *              paths, distinct missing /assets/… names, distinct Referer hosts on GET /. Peak RSS
 *              (VmHWM) of the server, and every answer's status (none may fail).
 *   logging    Cached GET / with LOG_LEVEL=info against =warn, two servers side by side, loaded in
 *              turn over alternating rounds: the cost of request logging (target ≤ 10 %), in
 *              throughput and in the server's own CPU time per request.
 */
import { readFileSync } from "node:fs";
import path from "node:path";
import { cpuTicks, peakRssMB } from "../tests/support/process-memory";
import { startTestServer, type TestServer } from "../tests/support/test-server";
import { autocannon, statusCounts } from "./lib/autocannon";
import { median } from "./lib/bench-report";
import { PRODUCTION_MALLOC_ENV, PROJECT_ROOT, ensureBuild } from "./lib/production-server";

const REQUESTS = 80_000;
const CONNECTIONS = 50;
/** The default production server stays within this, whatever the junk. */
const PEAK_RSS_TARGET_MB = 300;
/** Request logging costs at most this share of cached GET / throughput. */
const LOGGING_COST_TARGET = 0.1;

/** Linux's clock tick (USER_HZ): 100 per second. */
const TICK_MICROSECONDS = 10_000;

/** The node flags of `npm run serve` (e.g. the heap ceiling), so the bench runs what production runs. */
export function serveNodeFlags(): string[] {
  const scripts = (
    JSON.parse(readFileSync(path.join(PROJECT_ROOT, "package.json"), "utf8")) as { scripts: Record<string, string> }
  ).scripts;
  const match = /\bnode\s+(.*?)\s*scripts\/serve\.mjs/.exec(scripts.serve ?? "");
  return match?.[1] ? match[1].split(/\s+/) : [];
}

function startServer(logLevel: "info" | "warn"): Promise<TestServer> {
  return startTestServer({
    env: { ...PRODUCTION_MALLOC_ENV, NODE_OPTIONS: serveNodeFlags().join(" "), LOG_LEVEL: logLevel },
  });
}

const JUNK = "j".repeat(4000);
const KINDS = {
  "unknown 4 KB paths": (i: number) => ({ path: `/${JUNK}-${i}` }),
  "missing /assets/… names": (i: number) => ({ path: `/assets/${JUNK}-${i}.js` }),
  "distinct Referer hosts on /": (i: number) => ({
    path: "/",
    headers: { referer: `https://referrer-${i}.example.com/page` },
  }),
} as const;

async function peakRun(kind: keyof typeof KINDS) {
  const server = await startServer("info");
  try {
    let counter = 0;
    const result = await autocannon({
      url: server.url,
      connections: CONNECTIONS,
      amount: REQUESTS,
      requests: [
        {
          setupRequest: (request: { headers?: Record<string, string> }) => {
            const { path: requestPath, headers } = KINDS[kind](counter++) as {
              path: string;
              headers?: Record<string, string>;
            };
            return { ...request, path: requestPath, headers: { ...request.headers, ...headers } };
          },
        },
      ],
    });
    return {
      kind,
      requests: result.requests.total,
      statuses: statusCounts(result),
      failed: result.errors + result.timeouts,
      peakRssMB: Math.round(await peakRssMB(server.pid)),
    };
  } finally {
    await server.stop();
  }
}

/** Requests per second, and the server's own CPU time per request (µs): the latter holds even when the client saturates first. */
async function throughput(server: TestServer, seconds: number): Promise<{ rate: number; cpuMicroseconds: number }> {
  await autocannon({ url: `${server.url}/`, connections: CONNECTIONS, duration: 1 });
  const ticksBefore = await cpuTicks(server.pid);
  const result = await autocannon({ url: `${server.url}/`, connections: CONNECTIONS, duration: seconds });
  const ticks = (await cpuTicks(server.pid)) - ticksBefore;
  return {
    rate: Math.round(result.requests.average),
    cpuMicroseconds: Math.round((ticks * TICK_MICROSECONDS) / result.requests.total),
  };
}

export async function benchMemory(options: { durationS: number; rounds?: number }) {
  ensureBuild();
  console.log(
    `\n== Memory: ${REQUESTS.toLocaleString("en")} requests at ${CONNECTIONS} connections, node ${serveNodeFlags().join(" ")}, LOG_LEVEL=info, log on a pipe`,
  );
  const peaks = [];
  for (const kind of Object.keys(KINDS) as (keyof typeof KINDS)[]) {
    const run = await peakRun(kind);
    peaks.push(run);
    console.log(
      `${kind}: peak RSS ${run.peakRssMB} MB, ${run.requests} answered (${JSON.stringify(run.statuses)}), ${run.failed} failed`,
    );
  }

  const rounds = options.rounds ?? 4;
  console.log(
    `\n== Request logging: cached GET /, LOG_LEVEL=info against =warn, ${rounds} rounds of ${options.durationS} s each`,
  );
  const info = await startServer("info");
  const warn = await startServer("warn");
  const rates = { info: [] as number[], warn: [] as number[] };
  const cpu = { info: [] as number[], warn: [] as number[] };
  try {
    for (let round = 0; round < rounds; round++) {
      // Alternate which goes first, so neither always gets the quieter moment.
      const order = round % 2 ? (["warn", "info"] as const) : (["info", "warn"] as const);
      for (const level of order) {
        const run = await throughput(level === "info" ? info : warn, options.durationS);
        rates[level].push(run.rate);
        cpu[level].push(run.cpuMicroseconds);
      }
    }
  } finally {
    await Promise.all([info.stop(), warn.stop()]);
  }
  const logging = {
    infoRequestsPerSecond: median(rates.info),
    warnRequestsPerSecond: median(rates.warn),
    infoCpuMicrosecondsPerRequest: median(cpu.info),
    warnCpuMicrosecondsPerRequest: median(cpu.warn),
    rounds: { rates, cpu },
  };
  const cost = 1 - logging.infoRequestsPerSecond / logging.warnRequestsPerSecond;
  const cpuCost = logging.infoCpuMicrosecondsPerRequest / logging.warnCpuMicrosecondsPerRequest - 1;
  console.log(
    `info ${logging.infoRequestsPerSecond} req/s, warn ${logging.warnRequestsPerSecond} req/s: logging costs ${(cost * 100).toFixed(1)} % of throughput`,
  );
  console.log(
    `server CPU per request: info ${logging.infoCpuMicrosecondsPerRequest} µs, warn ${logging.warnCpuMicrosecondsPerRequest} µs: +${(cpuCost * 100).toFixed(1)} %`,
  );

  const checks = [
    ...peaks.map((run) => ({
      target: `${run.kind}: peak RSS ≤ ${PEAK_RSS_TARGET_MB} MB, every request answered`,
      value: `${run.peakRssMB} MB, ${run.failed} failed`,
      met: run.peakRssMB <= PEAK_RSS_TARGET_MB && run.failed === 0 && run.requests === REQUESTS,
    })),
    {
      target: `request logging ≤ ${LOGGING_COST_TARGET * 100} % of cached GET / throughput`,
      value: `${(cost * 100).toFixed(1)} %`,
      met: cost <= LOGGING_COST_TARGET,
    },
  ];
  return {
    date: new Date().toISOString(),
    nodeFlags: serveNodeFlags(),
    requests: REQUESTS,
    connections: CONNECTIONS,
    peaks,
    logging: { ...logging, cost: Number(cost.toFixed(3)), cpuCost: Number(cpuCost.toFixed(3)) },
    checks,
  };
}
