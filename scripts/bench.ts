/**
 * npm run bench [-- --only=image,load,…] [--duration=10] [--connections=50] [--upload-runs=3]
 *
 * Runs the parts (each part's scripts/bench-*.ts says what it measures), prints tables and a
 * target check, and merges the figures into reports/bench.json. Needs a production build (made
 * when build/ is missing). `npm run bench` runs with --openssl-legacy-provider for the offsite part:
 * s3rver seals its listing continuation tokens with DES, which Node 20 refuses otherwise.
 */
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
import {
  PRODUCTION_MALLOC_ENV,
  PROJECT_ROOT,
  startProductionServer,
  stopOnInterrupt,
  type ProductionServer,
} from "./lib/production-server";

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
const LOAD_OPTIONS: LoadOptions = { durationS: DURATION_S, warmupS: WARMUP_S, connections: CONNECTIONS };
const REPORT_FILE = path.join(PROJECT_ROOT, "reports", "bench.json");

const TARGETS = {
  homeRequestsPerSecond: 5000,
  p99Ms: 50,
  imageSeconds: 6,
  imagePeakRssMB: 400,
};

// ---------------------------------------------------------------------------------------------
// The machine the figures come from

async function machine() {
  const cpuinfo = await fs.readFile("/proc/cpuinfo", "utf8").catch(() => "");
  return {
    cpus: os.cpus().length,
    cpuModel: /model name\s*:\s*(.+)/.exec(cpuinfo)?.[1]?.trim() ?? os.cpus()[0]?.model ?? "unknown",
    ramGB: round(os.totalmem() / 2 ** 30, 1),
    node: process.version,
  };
}

/** The production build with the production malloc tuning, stopped after `part` (or on Ctrl-C). */
async function withServer<T>(
  env: Record<string, string>,
  part: (server: ProductionServer) => Promise<T>,
  photoLike = false,
) {
  const server = await startProductionServer({ env: { ...PRODUCTION_MALLOC_ENV, ...env }, photoLike });
  stopOnInterrupt(server.stop);
  try {
    return await part(server);
  } finally {
    await server.stop();
  }
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
    const load = await withServer({ TRUST_PROXY: "loopback" }, (server) => loadPart(server, LOAD_OPTIONS));
    const checks: Check[] = [];
    report.load = { date: new Date().toISOString(), ...load, checks };
    // GET / both ways: uncompressed and brotli (what every phone asks).
    for (const name of ["GET /", "GET / (br, as browsers ask)"]) {
      const home = load.ours.find((r) => r.target === name)!;
      checks.push({
        target: `${name} ≥ ${TARGETS.homeRequestsPerSecond} req/s`,
        value: `${home.requestsPerSecond} req/s`,
        met: home.requestsPerSecond >= TARGETS.homeRequestsPerSecond,
      });
    }
    for (const result of load.ours) {
      checks.push({
        target: `${result.target}: p99 < ${TARGETS.p99Ms} ms`,
        value: `${result.p99Ms} ms`,
        met: result.p99Ms < TARGETS.p99Ms,
      });
    }
  }
  // Photo-like images at a phone camera's size, so the photos weigh what real ones do.
  if (runs("weight")) report.weight = { date: new Date().toISOString(), ...(await withServer({}, weightPart, true)) };
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
