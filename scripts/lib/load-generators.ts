/**
 * The load generators of `npm run bench`: wrk (with a Lua script for POSTs) and autocannon, run
 * against one target and parsed into the same shape.
 */
import { spawnSync } from "node:child_process";
import fs from "node:fs/promises";
import { createRequire } from "node:module";
import path from "node:path";
import { round } from "./bench-report";

export const WRK = "/usr/bin/wrk";

/** A valid enquiry for POST /api/contact. */
const ENQUIRY = JSON.stringify({
  name: "Load Test",
  email: "load.test@example.com",
  message: "Could you quote for a 12 m dry-stone garden wall, please?",
});

export type Target = {
  name: string;
  method: "GET" | "POST";
  path: string;
  /** POST only: a different X-Forwarded-For per request, so the per-IP limit never trips. */
  varyClientIp?: boolean;
  /** Ask for brotli, as every phone browser does; nginx then serves the same brotli bytes. */
  brotli?: boolean;
};

/** How hard to load: wrk's threads (autocannon has one) and the open connections. */
export type LoadToolOptions = { threads: number; connections: number };

/** One run of a load generator against one target. */
export type LoadRun = {
  tool: "wrk" | "autocannon";
  requestsPerSecond: number;
  p50Ms: number;
  p99Ms: number;
  requests: number;
  /** Status code → count where known; wrk alone only tells non-2xx/3xx apart. */
  statuses: Record<string, number>;
  socketErrors: number;
};

/** "1.23ms" → 1.23; wrk prints us, ms, s and m. */
export function wrkMs(value: string): number {
  const match = /^([\d.]+)(us|ms|s|m)$/.exec(value.trim());
  if (!match) throw new Error(`Unexpected wrk duration "${value}"`);
  const factor = { us: 0.001, ms: 1, s: 1000, m: 60_000 }[match[2] as "us" | "ms" | "s" | "m"];
  return Number(match[1]) * factor;
}

/** wrk's Lua: method and body, an optional varying X-Forwarded-For, and a status count for POSTs. */
function wrkScript(target: Target): string {
  if (target.method === "GET") return "";
  return `
wrk.method = "POST"
wrk.body = ${JSON.stringify(ENQUIRY)}
wrk.headers["Content-Type"] = "application/json"

local threads = {}
local next_id = 0
function setup(thread)
  next_id = next_id + 1
  thread:set("id", next_id)
  table.insert(threads, thread)
end

statuses = {}
local counter = 0
local base = 0
function init(args)
  math.randomseed(os.time() * 1000 + (id or 0))
  base = math.random(0, 16777215)
end

${
  target.varyClientIp
    ? `function request()
  counter = counter + 1
  local n = (base + counter) % 16777216
  local ip = string.format("10.%d.%d.%d", math.floor(n / 65536) % 256, math.floor(n / 256) % 256, n % 256)
  return wrk.format(nil, nil, { ["Content-Type"] = "application/json", ["X-Forwarded-For"] = ip })
end`
    : ""
}

function response(status, headers, body)
  statuses[status] = (statuses[status] or 0) + 1
end

function done(summary, latency, requests)
  local total = {}
  for _, thread in ipairs(threads) do
    for status, count in pairs(thread:get("statuses")) do
      total[status] = (total[status] or 0) + count
    end
  end
  local parts = {}
  for status, count in pairs(total) do table.insert(parts, status .. "=" .. count) end
  io.write("STATUSES " .. table.concat(parts, " ") .. "\\n")
end
`;
}

export async function runWrk(
  url: string,
  target: Target,
  seconds: number,
  scriptDir: string,
  options: LoadToolOptions,
): Promise<LoadRun> {
  const args = [`-t${options.threads}`, `-c${options.connections}`, `-d${seconds}s`, "--latency"];
  const script = wrkScript(target);
  if (script) {
    const file = path.join(scriptDir, `${target.varyClientIp ? "post-varying-ip" : "post"}.lua`);
    await fs.writeFile(file, script);
    args.push("-s", file);
  }
  if (target.brotli) args.push("-H", "Accept-Encoding: br");
  args.push(url + target.path);
  const result = spawnSync(WRK, args, { encoding: "utf8" });
  if (result.status !== 0) throw new Error(`wrk failed: ${result.stderr || result.stdout}`);
  const out = result.stdout;
  const number = (pattern: RegExp) => {
    const match = pattern.exec(out);
    if (!match) throw new Error(`Could not parse wrk output (${pattern}):\n${out}`);
    return match;
  };
  const requests = Number(number(/(\d+) requests in/)[1]);
  const non2xx = Number(/Non-2xx or 3xx responses: (\d+)/.exec(out)?.[1] ?? 0);
  const socket = /Socket errors: connect (\d+), read (\d+), write (\d+), timeout (\d+)/.exec(out);
  let statuses: Record<string, number> = { "2xx/3xx": requests - non2xx, other: non2xx };
  const statusLine = /STATUSES ?(.*)/.exec(out);
  if (statusLine) {
    statuses = Object.fromEntries(
      (statusLine[1] ?? "")
        .split(" ")
        .filter(Boolean)
        .map((pair) => pair.split("="))
        .map(([status, count]) => [status!, Number(count)]),
    );
  }
  return {
    tool: "wrk",
    requestsPerSecond: round(Number(number(/Requests\/sec:\s+([\d.]+)/)[1]), 0),
    p50Ms: round(wrkMs(number(/^\s+50%\s+(\S+)\s*$/m)[1]!)),
    p99Ms: round(wrkMs(number(/^\s+99%\s+(\S+)\s*$/m)[1]!)),
    requests,
    statuses,
    socketErrors: socket ? socket.slice(1).reduce((sum, n) => sum + Number(n), 0) : 0,
  };
}

/** The subset of autocannon's API used here (it ships no type declarations). */
type Autocannon = (options: Record<string, unknown>) => Promise<{
  requests: { average: number; total: number };
  latency: { p50: number; p99: number };
  statusCodeStats?: Record<string, { count: number }>;
  errors: number;
  timeouts: number;
}>;

export async function runAutocannon(
  url: string,
  target: Target,
  seconds: number,
  load: LoadToolOptions,
): Promise<LoadRun> {
  const autocannon = createRequire(import.meta.url)("autocannon") as Autocannon;
  let counter = Math.floor(Math.random() * 2 ** 24);
  const options: Record<string, unknown> = {
    url: url + target.path,
    connections: load.connections,
    duration: seconds,
    method: target.method,
  };
  if (target.method === "POST") {
    options.headers = { "content-type": "application/json" };
    options.body = ENQUIRY;
  }
  if (target.brotli) options.headers = { "accept-encoding": "br" };
  if (target.varyClientIp) {
    options.requests = [
      {
        setupRequest: (request: { headers?: Record<string, string> }) => {
          counter = (counter + 1) % 2 ** 24;
          const ip = `10.${(counter >> 16) & 255}.${(counter >> 8) & 255}.${counter & 255}`;
          return { ...request, headers: { ...request.headers, "x-forwarded-for": ip } };
        },
      },
    ];
  }
  const result = await autocannon(options);
  return {
    tool: "autocannon",
    requestsPerSecond: round(result.requests.average, 0),
    p50Ms: result.latency.p50,
    p99Ms: result.latency.p99,
    requests: result.requests.total,
    statuses: Object.fromEntries(
      Object.entries(result.statusCodeStats ?? {}).map(([code, { count }]) => [code, count]),
    ),
    socketErrors: result.errors + result.timeouts,
  };
}
