/**
 * npm run bench [-- --only=image,load,weight,sign-in] [--duration=10] [--connections=50] [--threads=2] [--tool=autocannon]
 *
 * Parts, each runnable alone with --only (comma-separated):
 *   image   scripts/bench-image-pipeline.ts on a generated 6000×4000 ~20 MB JPEG (landscape and
 *           EXIF-rotated portrait), with the production malloc tuning (judged) and with glibc defaults;
 *           then scripts/bench-image-memory.ts: peak RSS of the web process and the image worker per image.
 *   load    10 s at 50 connections (after a 2 s warm-up) against the production build, seeded with
 *           the demo galleries: GET /, /stonework, two JSON reads and POST /api/contact, with wrk
 *           (autocannon when wrk is missing); then nginx serving the very same response bytes,
 *           loaded the same way, as a "how fast could these bytes go" yardstick.
 *   sign-in scripts/bench-sign-in.ts: floods of wrong sign-ins, the database limiter, the owner's sign-in meanwhile.
 *   weight  What a phone (390 px wide, 3× DPR) downloads for /stonework, with photo-like galleries at
 *           a phone camera's size: compressed HTML, its CSS and JS, and the AVIF each <picture> would
 *           pick; the first screen (nothing lazy) apart — compared with the uploaded originals.
 *   enquiries  Enquiries stored per second with synchronous = FULL against NORMAL (scripts/bench-enquiries.ts).
 *   backends  SQLite + disk next to PostgreSQL + S3: GET / and the public API reads, one enquiry's
 *           latency (scripts/bench-backends.ts).
 *   analytics  scripts/bench-analytics.ts: the per-request cost of visit counting, and GET / with
 *           ANALYTICS=on and =off as medians of interleaved runs.
 *   memory  scripts/bench-memory.ts: peak RSS of the server as `npm run serve` starts it under 80,000
 *           junk requests of three kinds, and the cost of request logging on cached GET /.
 *   baseline  scripts/bench-baseline.ts: cached GET / (brotli) of this build against another build
 *           (--baseline=<git ref>, default main), median of 3 interleaved runs each.
 *
 * Prints tables and a target check, and merges the figures into reports/bench.json. Needs a
 * production build (`npm run build`; made automatically only when build/ is missing).
 */
import { spawn, spawnSync } from "node:child_process";
import { existsSync } from "node:fs";
import fs from "node:fs/promises";
import { createRequire } from "node:module";
import os from "node:os";
import path from "node:path";
import { benchSignIn } from "./bench-sign-in";
import { benchImageMemory } from "./bench-image-memory";
import { benchBackup } from "./bench-backup";
import { benchBackends } from "./bench-backends";
import { benchAgainstBaseline } from "./bench-baseline";
import { analyticsBench } from "./bench-analytics";
import { benchMemory } from "./bench-memory";
import { islandFilesInPage } from "../app/islands/island-loader";
import { rawGet } from "./lib/http-raw";
import {
  PRODUCTION_MALLOC_ENV,
  PROJECT_ROOT,
  freePort,
  startProductionServer,
  stopOnInterrupt,
  type ProductionServer,
} from "./lib/production-server";

// ---------------------------------------------------------------------------------------------
// Options and targets

const PARTS = ["image", "load", "weight", "sign-in", "enquiries", "backup", "backends", "analytics", "memory", "baseline"] as const;
type Part = (typeof PARTS)[number];

function option(name: string): string | undefined {
  const prefix = `--${name}=`;
  return process.argv.find((arg) => arg.startsWith(prefix))?.slice(prefix.length);
}

const only = option("only")?.split(",").map((part) => part.trim());
for (const part of only ?? []) {
  if (!PARTS.includes(part as Part)) {
    console.error(`--only: unknown part "${part}" (use ${PARTS.join(", ")})`);
    process.exit(2);
  }
}
const runs = (part: Part) => !only || only.includes(part);

const DURATION_S = Number(option("duration") ?? 10);
const WARMUP_S = 2;
const CONNECTIONS = Number(option("connections") ?? 50);
/** wrk threads: 2 (wrk's default, one per core). With 1, wrk itself caps nginx at ~56k req/s here; Node is unaffected. */
const THREADS = Number(option("threads") ?? 2);

const WRK = "/usr/bin/wrk";
/** wrk when installed, else autocannon; --tool=autocannon forces the latter. */
const USE_WRK = option("tool") !== "autocannon" && existsSync(WRK);
const NGINX = "/usr/sbin/nginx";
const REPORT_FILE = path.join(PROJECT_ROOT, "reports", "bench.json");

const TARGETS = {
  homeRequestsPerSecond: 5000,
  homeShareOfNginx: 1 / 3,
  p99Ms: 50,
  imageSeconds: 6,
  imagePeakRssMB: 400,
};

/** A valid enquiry for POST /api/contact. */
const ENQUIRY = JSON.stringify({
  name: "Load Test",
  email: "load.test@example.com",
  message: "Could you quote for a 12 m dry-stone garden wall, please?",
});

type Target = {
  name: string;
  method: "GET" | "POST";
  path: string;
  /** POST only: a different X-Forwarded-For per request, so the per-IP limit never trips. */
  varyClientIp?: boolean;
  /** Ask for brotli, as every phone browser does; nginx then serves the same brotli bytes. */
  brotli?: boolean;
};

const LOAD_TARGETS: Target[] = [
  { name: "GET /", method: "GET", path: "/" },
  { name: "GET / (br, as browsers ask)", method: "GET", path: "/", brotli: true },
  { name: "GET /stonework", method: "GET", path: "/stonework" },
  { name: "GET /api/content/hero.title", method: "GET", path: "/api/content/hero.title" },
  { name: "GET /api/galleries/homepage", method: "GET", path: "/api/galleries/homepage" },
  { name: "POST /api/contact (one IP: rate-limited)", method: "POST", path: "/api/contact" },
  { name: "POST /api/contact (varying IP: accepted)", method: "POST", path: "/api/contact", varyClientIp: true },
];

// ---------------------------------------------------------------------------------------------
// Small helpers

const round = (value: number, digits = 2) => Number(value.toFixed(digits));
const kb = (bytes: number) => `${(bytes / 1024).toFixed(1)} KB`;
const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

function table(header: string[], rows: string[][]): string {
  const widths = header.map((title, i) => Math.max(title.length, ...rows.map((row) => (row[i] ?? "").length)));
  const line = (cells: string[]) => cells.map((cell, i) => (i === 0 ? cell.padEnd(widths[i]!) : cell.padStart(widths[i]!))).join("  ");
  return [line(header), widths.map((w) => "-".repeat(w)).join("  "), ...rows.map(line)].join("\n");
}

function commandOutput(command: string, args: string[]): string {
  const result = spawnSync(command, args, { encoding: "utf8" });
  return `${result.stdout ?? ""}${result.stderr ?? ""}`.trim();
}

async function machine() {
  const cpuinfo = await fs.readFile("/proc/cpuinfo", "utf8").catch(() => "");
  return {
    cpus: os.cpus().length,
    cpuModel: /model name\s*:\s*(.+)/.exec(cpuinfo)?.[1]?.trim() ?? os.cpus()[0]?.model ?? "unknown",
    ramGB: round(os.totalmem() / 2 ** 30, 1),
    node: process.version,
    wrk: existsSync(WRK) ? commandOutput(WRK, ["--version"]).split("\n")[0] : null,
    nginx: existsSync(NGINX) ? commandOutput(NGINX, ["-v"]) : null,
  };
}

// ---------------------------------------------------------------------------------------------
// Part 1: the image pipeline (the colleague's script, run as a child step)

type ImageRun = {
  label: string;
  inputBytes: number;
  seconds: number;
  cpuSeconds: number;
  peakRssMB: number;
  maxRssMB: number;
  baselineRssMB: number;
};

/** `env` values override the inherited environment; `undefined` removes a variable (an empty one would still count). */
async function runImagePipeline(label: string, args: string[], env: Record<string, string | undefined>): Promise<ImageRun> {
  const childEnv: NodeJS.ProcessEnv = { ...process.env };
  for (const [name, value] of Object.entries(env)) {
    if (value === undefined) delete childEnv[name];
    else childEnv[name] = value;
  }
  const script = path.join(PROJECT_ROOT, "scripts", "bench-image-pipeline.ts");
  // execArgv carries tsx's loader into the child, as bench-image-pipeline.ts itself does.
  const child = spawn(process.execPath, [...process.execArgv, script, ...args], {
    cwd: PROJECT_ROOT,
    env: childEnv,
    stdio: ["ignore", "pipe", "inherit"],
  });
  let stdout = "";
  child.stdout.on("data", (chunk) => (stdout += chunk));
  const code = await new Promise<number | null>((resolve) => child.once("exit", resolve));
  if (code !== 0) throw new Error(`bench-image-pipeline.ts ${args.join(" ")} exited with ${code}`);
  const result = JSON.parse(stdout) as Omit<ImageRun, "label">;
  const { inputBytes, seconds, cpuSeconds, peakRssMB, maxRssMB, baselineRssMB } = result;
  return { label, inputBytes, seconds, cpuSeconds, peakRssMB, maxRssMB, baselineRssMB };
}

async function imagePart() {
  console.log("\n== Image pipeline (6000×4000 ~20 MB JPEG → AVIF/WebP 480–2400 px + JPEG + placeholder)");
  const runsDone: ImageRun[] = [];
  // No malloc tuning at all in the child for the "glibc defaults" run (an empty MALLOC_MMAP_THRESHOLD_ would mean 0).
  const defaults = { MALLOC_ARENA_MAX: undefined, MALLOC_MMAP_THRESHOLD_: undefined };
  runsDone.push(await runImagePipeline("landscape, production malloc env", [], PRODUCTION_MALLOC_ENV));
  runsDone.push(await runImagePipeline("portrait (EXIF 6), production malloc env", ["--portrait"], PRODUCTION_MALLOC_ENV));
  runsDone.push(await runImagePipeline("landscape, glibc malloc defaults", [], defaults));
  runsDone.push(await runImagePipeline("portrait (EXIF 6), glibc malloc defaults", ["--portrait"], defaults));
  console.log(
    table(
      ["run", "input MB", "seconds", "CPU s", "peak RSS MB", "baseline RSS MB"],
      runsDone.map((run) => [
        run.label,
        (run.inputBytes / 1e6).toFixed(1),
        run.seconds.toFixed(2),
        run.cpuSeconds.toFixed(2),
        String(run.peakRssMB),
        String(run.baselineRssMB),
      ]),
    ),
  );
  return { runs: runsDone };
}

// ---------------------------------------------------------------------------------------------
// Part 2: load

type LoadResult = {
  target: string;
  server: "node" | "nginx";
  tool: "wrk" | "autocannon";
  requestsPerSecond: number;
  p50Ms: number;
  p99Ms: number;
  requests: number;
  /** Status code → count where known; wrk alone only tells non-2xx/3xx apart. */
  statuses: Record<string, number>;
  socketErrors: number;
  responseBytes?: number;
};

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

/** "1.23ms" → 1.23; wrk prints us, ms, s and m. */
function wrkMs(value: string): number {
  const match = /^([\d.]+)(us|ms|s|m)$/.exec(value.trim());
  if (!match) throw new Error(`Unexpected wrk duration "${value}"`);
  const factor = { us: 0.001, ms: 1, s: 1000, m: 60_000 }[match[2] as "us" | "ms" | "s" | "m"];
  return Number(match[1]) * factor;
}

async function runWrk(url: string, target: Target, seconds: number, scriptDir: string): Promise<Omit<LoadResult, "target" | "server">> {
  const args = [`-t${THREADS}`, `-c${CONNECTIONS}`, `-d${seconds}s`, "--latency"];
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

async function runAutocannon(url: string, target: Target, seconds: number): Promise<Omit<LoadResult, "target" | "server">> {
  const autocannon = createRequire(import.meta.url)("autocannon") as Autocannon;
  let counter = Math.floor(Math.random() * 2 ** 24);
  const options: Record<string, unknown> = { url: url + target.path, connections: CONNECTIONS, duration: seconds, method: target.method };
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
    statuses: Object.fromEntries(Object.entries(result.statusCodeStats ?? {}).map(([code, { count }]) => [code, count])),
    socketErrors: result.errors + result.timeouts,
  };
}

/** A 2 s warm-up (discarded), then the measured run. */
async function measure(server: "node" | "nginx", url: string, target: Target, scriptDir: string): Promise<LoadResult> {
  const run = (seconds: number) => (USE_WRK ? runWrk(url, target, seconds, scriptDir) : runAutocannon(url, target, seconds));
  await run(WARMUP_S);
  const result = { target: target.name, server, ...(await run(DURATION_S)) };
  const statuses = Object.entries(result.statuses)
    .map(([status, count]) => `${status}:${count}`)
    .join(" ");
  console.error(`  ${server} ${target.name}: ${result.requestsPerSecond} req/s, p99 ${result.p99Ms} ms [${statuses}]`);
  return result;
}

/** The path nginx serves a target's saved bytes on: brotli copies under /br/, sent with Content-Encoding: br. */
const nginxPath = (target: Target) => (target.brotli ? `/br${target.path}` : target.path);
/** Where those bytes live under nginx's root ("/" → index.html). */
const nginxFile = (target: Target) => {
  const route = nginxPath(target);
  return route.endsWith("/") ? `${route.slice(1)}index.html` : route.slice(1);
};

async function startNginx(dir: string): Promise<{ url: string; stop(): Promise<void> } | { error: string }> {
  const port = await freePort();
  const conf = path.join(dir, "nginx.conf");
  // Root may run this: let the workers read the temp dir either way.
  const user = process.getuid?.() === 0 ? "user root;\n" : "";
  await fs.writeFile(
    conf,
    `${user}daemon off;
worker_processes auto;
pid ${dir}/nginx.pid;
error_log ${dir}/error.log;
events {}
http {
  access_log off;
  sendfile on;
  keepalive_requests 1000000;
  server {
    listen 127.0.0.1:${port};
    location / { root ${dir}/www; default_type text/html; }
    location /br/ { root ${dir}/www; default_type text/html; add_header Content-Encoding br; }
  }
}
`,
  );
  const check = spawnSync(NGINX, ["-t", "-q", "-p", dir, "-e", `${dir}/error.log`, "-c", conf], { encoding: "utf8" });
  if (check.status !== 0) return { error: `nginx -t failed: ${check.stderr}` };
  const child = spawn(NGINX, ["-p", dir, "-e", `${dir}/error.log`, "-c", conf], { stdio: "ignore" });
  const exited = new Promise<void>((resolve) => child.once("exit", () => resolve()));
  const url = `http://127.0.0.1:${port}`;
  for (let i = 0; i < 100; i++) {
    try {
      await rawGet(`${url}/`);
      return {
        url,
        async stop() {
          child.kill("SIGQUIT"); // graceful stop of the master process
          await exited;
        },
      };
    } catch {
      await sleep(50);
    }
  }
  child.kill("SIGKILL");
  return { error: `nginx did not start: ${await fs.readFile(`${dir}/error.log`, "utf8").catch(() => "")}` };
}

async function loadPart(server: ProductionServer) {
  console.log(
    `\n== Load: ${DURATION_S} s, ${CONNECTIONS} connections, ${USE_WRK ? `wrk -t${THREADS}` : "autocannon"}, ${WARMUP_S} s warm-up each`,
  );
  const tmp = await fs.mkdtemp(path.join(os.tmpdir(), "cornerstone-bench-load-"));
  try {
    const ours: LoadResult[] = [];
    for (const target of LOAD_TARGETS) ours.push(await measure("node", server.url, target, tmp));

    // The same bytes from nginx, fetched the way wrk asks: uncompressed, or brotli for the br targets.
    const nginxResults: LoadResult[] = [];
    let nginxNote: string | null = null;
    if (!existsSync(NGINX)) nginxNote = `${NGINX} not installed: no comparison`;
    else {
      await fs.chmod(tmp, 0o755);
      const getTargets = LOAD_TARGETS.filter((target) => target.method === "GET");
      for (const target of getTargets) {
        const response = await rawGet(server.url + target.path, target.brotli ? { "Accept-Encoding": "br" } : {});
        if (response.status !== 200) throw new Error(`${target.path} answered ${response.status}`);
        if (target.brotli && response.headers["content-encoding"] !== "br") throw new Error(`${target.path} was not sent with brotli`);
        const file = path.join(tmp, "www", nginxFile(target));
        await fs.mkdir(path.dirname(file), { recursive: true, mode: 0o755 });
        await fs.writeFile(file, response.wire, { mode: 0o644 });
        const result = ours.find((r) => r.target === target.name)!;
        result.responseBytes = response.wire.length;
      }
      const nginx = await startNginx(tmp);
      if ("error" in nginx) nginxNote = nginx.error;
      else {
        try {
          for (const target of getTargets) {
            const check = await rawGet(nginx.url + nginxPath(target));
            const saved = await fs.readFile(path.join(tmp, "www", nginxFile(target)));
            if (check.status !== 200 || !check.wire.equals(saved)) throw new Error(`nginx does not serve the saved ${target.path}`);
            const asServed = { ...target, path: nginxPath(target) };
            nginxResults.push({ ...(await measure("nginx", nginx.url, asServed, tmp)), responseBytes: saved.length });
          }
        } finally {
          await nginx.stop();
        }
      }
    }

    const rows = ours.map((result) => {
      const baseline = nginxResults.find((r) => r.target === result.target);
      return [
        result.target,
        result.responseBytes === undefined ? "" : String(result.responseBytes),
        String(result.requestsPerSecond),
        result.p50Ms.toFixed(2),
        result.p99Ms.toFixed(2),
        Object.entries(result.statuses)
          .map(([status, count]) => `${status}:${count}`)
          .join(" "),
        baseline ? String(baseline.requestsPerSecond) : "",
        baseline ? baseline.p99Ms.toFixed(2) : "",
        baseline ? (result.requestsPerSecond / baseline.requestsPerSecond).toFixed(2) : "",
      ];
    });
    console.log(
      table(["target", "body B", "req/s", "p50 ms", "p99 ms", "statuses", "nginx req/s", "nginx p99", "ours/nginx"], rows),
    );
    if (!USE_WRK && nginxResults.length) {
      // Measured here: autocannon tops out near 27k req/s (16k for 40 KB pages), far below nginx.
      nginxNote = "autocannon (one JS thread) saturates before nginx does, so the nginx rates and ratios flatter us; use wrk.";
    }
    if (nginxNote) console.log(`nginx: ${nginxNote}`);
    return { tool: USE_WRK ? "wrk" : "autocannon", threads: USE_WRK ? THREADS : null, connections: CONNECTIONS, durationSeconds: DURATION_S, warmupSeconds: WARMUP_S, ours, nginx: nginxResults, nginxNote };
  } finally {
    await fs.rm(tmp, { recursive: true, force: true });
  }
}

// ---------------------------------------------------------------------------------------------
// Part 3: what a phone downloads for /stonework

// Issue 20: a 390 px wide phone at 3× (an iPhone 14/15's screen).
const PHONE = { viewportWidth: 390, dpr: 3 };
const PHONE_UA =
  "Mozilla/5.0 (Linux; Android 14; Pixel 8) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/126.0.0.0 Mobile Safari/537.36";

function decodeEntities(text: string): string {
  return text
    .replace(/&quot;/g, '"')
    .replace(/&#x27;|&#39;/g, "'")
    .replace(/&lt;/g, "<")
    .replace(/&gt;/g, ">")
    .replace(/&amp;/g, "&");
}

/** Tags named `name` with their attributes (lower-case names, entity-decoded values). */
function tags(html: string, name: string): Record<string, string>[] {
  const found: Record<string, string>[] = [];
  for (const match of html.matchAll(new RegExp(`<${name}\\b([^>]*)>`, "gi"))) {
    const attributes: Record<string, string> = {};
    for (const attr of (match[1] ?? "").matchAll(/([^\s=/>]+)(?:\s*=\s*(?:"([^"]*)"|'([^']*)'|([^\s>]+)))?/g)) {
      attributes[attr[1]!.toLowerCase()] = decodeEntities(attr[2] ?? attr[3] ?? attr[4] ?? "");
    }
    found.push(attributes);
  }
  return found;
}

/** The slot width in CSS px that `sizes` gives on the phone; only (min|max)-width conditions are understood. */
function slotWidth(sizes: string, viewportWidth: number): number {
  const length = (value: string) => {
    // calc(100vw - 32px) and calc((100vw - 96px) / 3), as the gallery's sizes say.
    const calc = /^calc\(\(?\s*100vw\s*-\s*([\d.]+)px\s*\)?(?:\s*\/\s*([\d.]+))?\s*\)$/.exec(value.trim());
    if (calc) return (viewportWidth - Number(calc[1])) / Number(calc[2] ?? 1);
    const match = /^([\d.]+)(px|vw)$/.exec(value.trim());
    if (!match) return viewportWidth; // anything else: assume full width
    return match[2] === "vw" ? (Number(match[1]) / 100) * viewportWidth : Number(match[1]);
  };
  for (const entry of sizes.split(",").map((part) => part.trim())) {
    const conditional = /^(\([^)]*\)(?:\s+and\s+\([^)]*\))*)\s+(.+)$/.exec(entry);
    if (!conditional) return length(entry);
    const conditions = conditional[1]!.split(/\s+and\s+/i);
    const matches = conditions.every((condition) => {
      const parsed = /^\(\s*(min|max)-width\s*:\s*([\d.]+)px\s*\)$/.exec(condition.trim());
      if (!parsed) return false;
      return parsed[1] === "min" ? viewportWidth >= Number(parsed[2]) : viewportWidth <= Number(parsed[2]);
    });
    if (matches) return length(conditional[2]!);
  }
  return viewportWidth;
}

/** The smallest candidate at least `needed` px wide, else the largest (like a browser with an empty cache). */
function pickCandidate(srcset: string, needed: number): { url: string; width: number } {
  const candidates = srcset
    .split(",")
    .map((entry) => entry.trim().split(/\s+/))
    .map(([url, descriptor]) => ({ url: url!, width: Number.parseInt(descriptor ?? "0", 10) }))
    .sort((a, b) => a.width - b.width);
  return candidates.find((candidate) => candidate.width >= needed) ?? candidates.at(-1)!;
}

async function weightPart(server: ProductionServer) {
  const pagePath = "/stonework";
  console.log(`\n== Page weight: ${pagePath} on a ${PHONE.viewportWidth} px wide, ${PHONE.dpr}× DPR phone (br/gzip accepted)`);
  const headers = { "User-Agent": PHONE_UA, "Accept-Encoding": "br, gzip" };
  const page = await rawGet(server.url + pagePath, { ...headers, Accept: "text/html" });
  if (page.status !== 200) throw new Error(`${pagePath} answered ${page.status}`);
  const html = page.body.toString("utf8");

  type Item = { kind: string; url: string; wireBytes: number; headerBytes: number; encoding: string; lazy?: boolean; note?: string };
  const items: Item[] = [
    { kind: "html", url: pagePath, wireBytes: page.wireBytes, headerBytes: page.headerBytes, encoding: String(page.headers["content-encoding"] ?? "identity") },
  ];
  const seen = new Set<string>([pagePath]);
  const fetchItem = async (kind: string, url: string, extra: Partial<Item> = {}, accept = "*/*") => {
    if (seen.has(url)) return;
    seen.add(url);
    const response = await rawGet(new URL(url, server.url).href, { ...headers, Accept: accept });
    if (response.status !== 200) throw new Error(`${url} answered ${response.status}`);
    items.push({ kind, url, wireBytes: response.wireBytes, headerBytes: response.headerBytes, encoding: String(response.headers["content-encoding"] ?? "identity"), ...extra });
  };

  // CSS and JS: stylesheets, the islands (loader list, module preloads, script src) and the inline module script's imports.
  for (const link of tags(html, "link")) {
    const rel = (link.rel ?? "").toLowerCase();
    if (rel === "stylesheet" && link.href) await fetchItem("css", link.href, {}, "text/css");
  }
  for (const file of islandFilesInPage(html)) await fetchItem("js", file);
  for (const match of html.matchAll(/import\s*(?:[^"';]*?from\s*)?["'](\/[^"']+\.js)["']/g)) await fetchItem("js", match[1]!);

  // Images: each <picture>'s AVIF source at the phone's slot width × DPR.
  let pictures = 0;
  for (const match of html.matchAll(/<picture\b[^>]*>([\s\S]*?)<\/picture>/gi)) {
    const inner = match[1] ?? "";
    const avif = tags(inner, "source").find((source) => source.type === "image/avif");
    const img = tags(inner, "img")[0];
    if (!avif?.srcset) continue;
    pictures += 1;
    const slot = slotWidth(avif.sizes ?? "100vw", PHONE.viewportWidth);
    const choice = pickCandidate(avif.srcset, slot * PHONE.dpr);
    await fetchItem("image", choice.url, { lazy: img?.loading === "lazy", note: `slot ${Math.round(slot)} px → ${choice.width}w` }, "image/avif,image/webp,*/*");
  }

  const sum = (list: Item[]) => list.reduce((total, item) => total + item.wireBytes, 0);
  const byKind = (kind: string) => items.filter((item) => item.kind === kind);
  const images = byKind("image");
  const eager = images.filter((item) => !item.lazy);
  const total = sum(items);
  const headerBytes = items.reduce((t, item) => t + item.headerBytes, 0);
  const originals = [server.originals.traditional, server.originals.veneer];
  const originalBytes = originals.reduce((t, o) => t + o.bytes, 0);
  const originalCount = originals.reduce((t, o) => t + o.count, 0);

  console.log(
    table(
      ["item", "count", "bytes on the wire"],
      [
        ["HTML", "1", kb(sum(byKind("html")))],
        ["CSS", String(byKind("css").length), kb(sum(byKind("css")))],
        ["JS", String(byKind("js").length), kb(sum(byKind("js")))],
        [`images (AVIF, all ${pictures} pictures; ${images.length - eager.length} lazy)`, String(images.length), kb(sum(images))],
        ["total (bodies; all images)", String(items.length), kb(total)],
        ["  + response headers", "", kb(headerBytes)],
        ["total without lazy images", String(items.length - (images.length - eager.length)), kb(total - sum(images) + sum(eager))],
        [`uploaded originals of these galleries (JPEG)`, String(originalCount), kb(originalBytes)],
      ],
    ),
  );
  const picks = [...new Set(images.map((item) => item.note))].join("; ");
  console.log(`Image choice: ${picks}. Lazy images count too: they load as the visitor scrolls.`);
  console.log(`Page total is ${((total / originalBytes) * 100).toFixed(1)}% of the originals' bytes.`);
  // The first screen: the page, its script and the photos fetched at once (not lazy).
  const firstScreen = total - sum(images) + sum(eager);
  console.log(
    `First screen on a ${PHONE.viewportWidth} px phone: ${kb(firstScreen)} (${eager.length} photo${eager.length === 1 ? "" : "s"}: ${kb(sum(eager))}) against ${kb(originalBytes)} of originals (${((firstScreen / originalBytes) * 100).toFixed(2)}%).`,
  );
  return {
    page: pagePath,
    phone: PHONE,
    totals: {
      htmlBytes: sum(byKind("html")),
      cssBytes: sum(byKind("css")),
      jsBytes: sum(byKind("js")),
      imageBytes: sum(images),
      imageBytesEagerOnly: sum(eager),
      totalBytes: total,
      totalBytesWithoutLazyImages: total - sum(images) + sum(eager),
      firstScreenBytes: total - sum(images) + sum(eager),
      headerBytes,
      originalsBytes: originalBytes,
      originalsCount: originalCount,
      pageShareOfOriginals: round(total / originalBytes, 4),
    },
    items,
  };
}

// ---------------------------------------------------------------------------------------------
// Main: run the parts, check targets, merge into reports/bench.json

type Check = { target: string; value: string; met: boolean };

async function main(): Promise<void> {
  const report: Record<string, unknown> = existsSync(REPORT_FILE) ? JSON.parse(await fs.readFile(REPORT_FILE, "utf8")) : {};
  report.machine = await machine();

  if (runs("image")) {
    const image = await imagePart();
    const checks: Check[] = [];
    report.image = { date: new Date().toISOString(), ...image, checks };
    for (const run of image.runs.filter((r) => r.label.includes("production"))) {
      checks.push({ target: `image pipeline < ${TARGETS.imageSeconds} s (${run.label})`, value: `${run.seconds} s`, met: run.seconds < TARGETS.imageSeconds });
      checks.push({ target: `image pipeline < ${TARGETS.imagePeakRssMB} MB RSS (${run.label})`, value: `${run.peakRssMB} MB`, met: run.peakRssMB < TARGETS.imagePeakRssMB });
    }
  }

  if (runs("image")) report.imageMemory = await benchImageMemory();

  if (runs("load")) {
    // TRUST_PROXY=loopback lets the "varying IP" run present a different client per request.
    const server = await startProductionServer({ env: { ...PRODUCTION_MALLOC_ENV, TRUST_PROXY: "loopback" } });
    stopOnInterrupt(server.stop);
    try {
      if (runs("load")) {
        const load = await loadPart(server);
        const checks: Check[] = [];
        report.load = { date: new Date().toISOString(), ...load, checks };
        // GET / both ways: uncompressed (what wrk asks by default) and brotli (what every phone asks).
        for (const name of ["GET /", "GET / (br, as browsers ask)"]) {
          const home = load.ours.find((r) => r.target === name)!;
          const homeNginx = load.nginx.find((r) => r.target === name);
          checks.push({ target: `${name} ≥ ${TARGETS.homeRequestsPerSecond} req/s`, value: `${home.requestsPerSecond} req/s`, met: home.requestsPerSecond >= TARGETS.homeRequestsPerSecond });
          if (homeNginx) {
            const share = home.requestsPerSecond / homeNginx.requestsPerSecond;
            checks.push({ target: `${name} ≥ 1/3 of nginx for the same bytes`, value: `${(share * 100).toFixed(1)}% (nginx ${homeNginx.requestsPerSecond} req/s)`, met: share >= TARGETS.homeShareOfNginx });
          }
        }
        for (const result of load.ours) {
          checks.push({ target: `${result.target}: p99 < ${TARGETS.p99Ms} ms`, value: `${result.p99Ms} ms`, met: result.p99Ms < TARGETS.p99Ms });
        }
      }
    } finally {
      await server.stop();
    }
  }
  if (runs("weight")) {
    // Photo-like images at a phone camera's size, so the photos weigh what real ones do (issue 20).
    const server = await startProductionServer({ env: { ...PRODUCTION_MALLOC_ENV }, photoLike: true });
    stopOnInterrupt(server.stop);
    try {
      report.weight = { date: new Date().toISOString(), ...(await weightPart(server)) };
    } finally {
      await server.stop();
    }
  }
  if (runs("baseline")) {
    const scriptDir = await fs.mkdtemp(path.join(os.tmpdir(), "cornerstone-bench-baseline-"));
    try {
      const home = LOAD_TARGETS.find((target) => target.name === "GET / (br, as browsers ask)")!;
      const baseline = await benchAgainstBaseline(option("baseline") ?? "main", (url) => measure("node", url, home, scriptDir));
      report.baseline = { date: new Date().toISOString(), target: home.name, ...baseline };
    } finally {
      await fs.rm(scriptDir, { recursive: true, force: true });
    }
  }

  if (runs("sign-in")) report.signIn = { date: new Date().toISOString(), ...(await benchSignIn()) };
  if (runs("enquiries")) report.enquiries = await (await import("./bench-enquiries")).benchEnquiries();
  if (runs("backup")) report.backup = { date: new Date().toISOString(), ...(await benchBackup()) };
  if (runs("backends")) report.backends = await benchBackends({ durationSeconds: DURATION_S, connections: CONNECTIONS, threads: THREADS, tool: option("tool") });
  if (runs("analytics")) report.analytics = await analyticsBench({ durationS: DURATION_S, connections: CONNECTIONS, threads: THREADS });
  if (runs("memory")) report.memory = await benchMemory({ durationS: DURATION_S });

  // Every check on file, including those of parts run earlier with --only.
  const checks = ["image", "load", "memory"].flatMap((part) => ((report[part] as { checks?: Check[] } | undefined)?.checks ?? []));
  if (checks.length) {
    console.log(`\n== Targets${only ? " (parts not run this time: from the earlier reports/bench.json)" : ""}`);
    console.log(table(["target", "measured", "result"], checks.map((c) => [c.target, c.value, c.met ? "met" : "MISSED"])));
  }
  await fs.mkdir(path.dirname(REPORT_FILE), { recursive: true });
  await fs.writeFile(REPORT_FILE, `${JSON.stringify(report, null, 2)}\n`);
  console.log(`\nFigures written to ${path.relative(PROJECT_ROOT, REPORT_FILE)}`);
}

main().catch((error: unknown) => {
  console.error(error instanceof Error ? (error.stack ?? error.message) : error);
  process.exit(1);
});
