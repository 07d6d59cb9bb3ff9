/**
 * npm run bench [-- --only=image,load,weight,sign-in] [--duration=10] [--connections=50] [--threads=2] [--tool=autocannon] [--upload-runs=3]
 *
 * Parts, each runnable alone with --only (comma-separated):
 *   image   scripts/bench-image.ts: scripts/bench-image-pipeline.ts on a generated 6000×4000 ~20 MB JPEG (landscape and
 *           EXIF-rotated portrait), with the production malloc tuning (judged) and with glibc defaults;
 *           then scripts/bench-image-memory.ts: peak RSS of the web process and the image worker per image.
 *   load    scripts/bench-load.ts: 10 s at 50 connections (after a 2 s warm-up) against the production build, seeded with
 *           the demo galleries: GET /, /stonework, two JSON reads and POST /api/contact, with wrk
 *           (autocannon when wrk is missing); then nginx serving the very same response bytes,
 *           loaded the same way, as a "how fast could these bytes go" yardstick.
 *   sign-in scripts/bench-sign-in.ts: floods of wrong sign-ins, the database limiter, the owner's sign-in meanwhile.
 *   weight  scripts/bench-phone-download.ts: what a phone (390 px wide, 3× DPR) downloads for /stonework, with photo-like galleries at
 *           a phone camera's size: compressed HTML, its CSS and JS, and the AVIF each <picture> would
 *           pick; the first screen (nothing lazy) apart — compared with the uploaded originals.
 *   phone-upload  scripts/bench-phone-upload.ts: a visitor attaches two photo-like 4032×3024 camera JPEGs on /contact,
 *           in Chromium at 390×844 with CDP throttling (1.6 Mbit/s down, 750 kbit/s up, 150 ms, CPU ×4): seconds from
 *           choosing to every photo "Ready", bytes sent per photo, seconds from Send Message to "Message Sent";
 *           then the owner uploads three ~3 MB ones to a gallery: tap to the last "Image uploaded successfully",
 *           beside the bytes sent ÷ the uplink (median of --upload-runs, default 3).
 *   memory  scripts/bench-memory.ts: peak RSS of the server as `npm run serve` starts it under 80,000
 *           junk requests of three kinds, and the cost of request logging on cached GET /.
 *   offsite  scripts/bench-offsite.ts: off-site copies over a simulated 14 months of a 300-photo site (bytes sent per
 *           copy, bytes stored against the live data, the restore of the newest copy, both processes' peak memory).
 *           `npm run bench` runs with --openssl-legacy-provider for this part: the test S3 server (s3rver) seals
 *           its listing continuation tokens with DES, which Node 20 refuses otherwise, and the 14 months
 *           leave more than one page (1,000 keys) of objects in the bucket.
 *   update  scripts/bench-update.ts: npm run update under a steady load through Caddy, to a new release and
 *           to one that cannot start: the longest wait, failed requests (0 expected), the old process's drain.
 *
 * Prints tables and a target check, and merges the figures into reports/bench.json. Needs a
 * production build (`npm run build`; made automatically only when build/ is missing).
 */
import { spawnSync } from "node:child_process";
import { existsSync } from "node:fs";
import fs from "node:fs/promises";
import os from "node:os";
import path from "node:path";
import { benchBackup } from "./bench-backup";
import { benchOffsite } from "./bench-offsite";
import { imagePart } from "./bench-image";
import { benchImageMemory } from "./bench-image-memory";
import { loadPart, type LoadOptions } from "./bench-load";
import { benchMemory } from "./bench-memory";
import { weightPart } from "./bench-phone-download";
import { phoneUploadPart } from "./bench-phone-upload";
import { benchSignIn } from "./bench-sign-in";
import { round, table, type Check } from "./lib/bench-report";
import { WRK } from "./lib/load-generators";
import { NGINX } from "./lib/nginx";
import { PRODUCTION_MALLOC_ENV, PROJECT_ROOT, startProductionServer, stopOnInterrupt } from "./lib/production-server";

// ---------------------------------------------------------------------------------------------
// Options and targets

const PARTS = [
  "image",
  "load",
  "weight",
  "phone-upload",
  "sign-in",
  "backup",
  "offsite",
  "memory",
  "update",
  "start",
] as const;
type Part = (typeof PARTS)[number];

function option(name: string): string | undefined {
  const prefix = `--${name}=`;
  return process.argv.find((arg) => arg.startsWith(prefix))?.slice(prefix.length);
}

const only = option("only")
  ?.split(",")
  .map((part) => part.trim());
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

/** wrk when installed, else autocannon; --tool=autocannon forces the latter. */
const USE_WRK = option("tool") !== "autocannon" && existsSync(WRK);
const LOAD_OPTIONS: LoadOptions = {
  durationS: DURATION_S,
  warmupS: WARMUP_S,
  connections: CONNECTIONS,
  threads: THREADS,
  useWrk: USE_WRK,
};
const REPORT_FILE = path.join(PROJECT_ROOT, "reports", "bench.json");

const TARGETS = {
  homeRequestsPerSecond: 5000,
  homeShareOfNginx: 1 / 3,
  p99Ms: 50,
  imageSeconds: 6,
  imagePeakRssMB: 400,
};

// ---------------------------------------------------------------------------------------------
// The machine the figures come from

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
// Main: run the parts, check targets, merge into reports/bench.json

async function main(): Promise<void> {
  const report: Record<string, unknown> = existsSync(REPORT_FILE)
    ? JSON.parse(await fs.readFile(REPORT_FILE, "utf8"))
    : {};
  report.machine = await machine();

  if (runs("image")) {
    const image = await imagePart();
    const checks: Check[] = [];
    report.image = { date: new Date().toISOString(), ...image, checks };
    for (const run of image.runs.filter((r) => r.label.includes("production"))) {
      checks.push({
        target: `image pipeline < ${TARGETS.imageSeconds} s (${run.label})`,
        value: `${run.seconds} s`,
        met: run.seconds < TARGETS.imageSeconds,
      });
      checks.push({
        target: `image pipeline < ${TARGETS.imagePeakRssMB} MB RSS (${run.label})`,
        value: `${run.peakRssMB} MB`,
        met: run.peakRssMB < TARGETS.imagePeakRssMB,
      });
    }
  }

  if (runs("image")) report.imageMemory = await benchImageMemory();

  if (runs("load")) {
    // TRUST_PROXY=loopback lets the "varying IP" run present a different client per request.
    const server = await startProductionServer({ env: { ...PRODUCTION_MALLOC_ENV, TRUST_PROXY: "loopback" } });
    stopOnInterrupt(server.stop);
    try {
      if (runs("load")) {
        const load = await loadPart(server, LOAD_OPTIONS);
        const checks: Check[] = [];
        report.load = { date: new Date().toISOString(), ...load, checks };
        // GET / both ways: uncompressed (what wrk asks by default) and brotli (what every phone asks).
        for (const name of ["GET /", "GET / (br, as browsers ask)"]) {
          const home = load.ours.find((r) => r.target === name)!;
          const homeNginx = load.nginx.find((r) => r.target === name);
          checks.push({
            target: `${name} ≥ ${TARGETS.homeRequestsPerSecond} req/s`,
            value: `${home.requestsPerSecond} req/s`,
            met: home.requestsPerSecond >= TARGETS.homeRequestsPerSecond,
          });
          if (homeNginx) {
            const share = home.requestsPerSecond / homeNginx.requestsPerSecond;
            checks.push({
              target: `${name} ≥ 1/3 of nginx for the same bytes`,
              value: `${(share * 100).toFixed(1)}% (nginx ${homeNginx.requestsPerSecond} req/s)`,
              met: share >= TARGETS.homeShareOfNginx,
            });
          }
        }
        for (const result of load.ours) {
          checks.push({
            target: `${result.target}: p99 < ${TARGETS.p99Ms} ms`,
            value: `${result.p99Ms} ms`,
            met: result.p99Ms < TARGETS.p99Ms,
          });
        }
      }
    } finally {
      await server.stop();
    }
  }
  if (runs("weight")) {
    // Photo-like images at a phone camera's size, so the photos weigh what real ones do.
    const server = await startProductionServer({ env: { ...PRODUCTION_MALLOC_ENV }, photoLike: true });
    stopOnInterrupt(server.stop);
    try {
      report.weight = { date: new Date().toISOString(), ...(await weightPart(server)) };
    } finally {
      await server.stop();
    }
  }
  if (runs("phone-upload")) {
    report.phoneUpload = {
      date: new Date().toISOString(),
      ...(await phoneUploadPart(Number(option("upload-runs") ?? 3))),
    };
  }
  if (runs("sign-in")) report.signIn = { date: new Date().toISOString(), ...(await benchSignIn()) };
  if (runs("backup")) report.backup = { date: new Date().toISOString(), ...(await benchBackup()) };
  if (runs("offsite")) report.offsite = { date: new Date().toISOString(), ...(await benchOffsite()) };
  if (runs("memory")) report.memory = await benchMemory({ durationS: DURATION_S });
  if (runs("start"))
    report.start = { date: new Date().toISOString(), ...(await (await import("./bench-start")).benchStart()) };
  if (runs("update"))
    report.update = { date: new Date().toISOString(), ...(await (await import("./bench-update")).benchUpdate()) };

  // Every check on file, including those of parts run earlier with --only.
  const checks = ["image", "load", "memory"].flatMap(
    (part) => (report[part] as { checks?: Check[] } | undefined)?.checks ?? [],
  );
  if (checks.length) {
    console.log(`\n== Targets${only ? " (parts not run this time: from the earlier reports/bench.json)" : ""}`);
    console.log(
      table(
        ["target", "measured", "result"],
        checks.map((c) => [c.target, c.value, c.met ? "met" : "MISSED"]),
      ),
    );
  }
  await fs.mkdir(path.dirname(REPORT_FILE), { recursive: true });
  await fs.writeFile(REPORT_FILE, `${JSON.stringify(report, null, 2)}\n`);
  console.log(`\nFigures written to ${path.relative(PROJECT_ROOT, REPORT_FILE)}`);
}

main().catch((error: unknown) => {
  console.error(error instanceof Error ? (error.stack ?? error.message) : error);
  process.exit(1);
});
