/**
 * The analytics bench's load (scripts/bench-analytics.ts): wrk's GET / with a browser's user agent,
 * so every request of an ANALYTICS=on server is counted, and the server's own CPU time per request.
 */
import { spawnSync } from "node:child_process";
import { cpuTicks } from "../tests/support/process-memory";
import type { TestServer } from "../tests/support/test-server";
import { round } from "./lib/bench-report";
import { WRK, wrkMs } from "./lib/load-generators";

export const BROWSER =
  "Mozilla/5.0 (Linux; Android 14; Pixel 7) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/126.0.0.0 Mobile Safari/537.36";

export type AnalyticsBenchOptions = { durationS: number; connections: number; threads: number; rounds?: number };

export type WrkRun = { requestsPerSecond: number; p99Ms: number; requests: number; serverCpuMicrosPerRequest: number };

const CLOCK_TICKS_PER_SECOND = Number(spawnSync("getconf", ["CLK_TCK"], { encoding: "utf8" }).stdout.trim()) || 100;

/** CPU seconds a process has used (user + system), from /proc. */
async function cpuSeconds(pid: number): Promise<number> {
  return (await cpuTicks(pid)) / CLOCK_TICKS_PER_SECOND;
}

/**
 * One wrk run against a server, with the server's own CPU time per request: on a shared machine
 * throughput swings with whatever else runs, while the CPU a request costs the server barely does.
 */
export async function measureRun(server: TestServer, seconds: number, options: AnalyticsBenchOptions): Promise<WrkRun> {
  const cpuBefore = await cpuSeconds(server.pid);
  const run = runWrk(server.url, seconds, options);
  const cpuUsed = (await cpuSeconds(server.pid)) - cpuBefore;
  return { ...run, serverCpuMicrosPerRequest: round((cpuUsed * 1e6) / run.requests, 1) };
}

export function runWrk(
  url: string,
  seconds: number,
  options: AnalyticsBenchOptions,
): Omit<WrkRun, "serverCpuMicrosPerRequest"> {
  const args = [`-t${options.threads}`, `-c${options.connections}`, `-d${seconds}s`, "--latency"];
  args.push(
    "-H",
    `User-Agent: ${BROWSER}`,
    "-H",
    "X-Forwarded-For: 203.0.113.9",
    "-H",
    "Accept-Encoding: br",
    `${url}/`,
  );
  const result = spawnSync(WRK, args, { encoding: "utf8" });
  if (result.status !== 0) throw new Error(`wrk failed: ${result.stderr || result.stdout}`);
  const out = result.stdout;
  const rps = /Requests\/sec:\s+([\d.]+)/.exec(out);
  const p99 = /^\s+99%\s+(\S+)\s*$/m.exec(out);
  const requests = /(\d+) requests in/.exec(out);
  if (!rps || !p99 || !requests) throw new Error(`Could not parse wrk output:\n${out}`);
  return { requestsPerSecond: Number(rps[1]), p99Ms: wrkMs(p99[1]!), requests: Number(requests[1]) };
}
