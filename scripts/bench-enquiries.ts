/**
 * What durability costs (issue 9 §3, decision 0022): enquiries stored per second
 * with SQLite's synchronous = FULL (what the server uses: every commit syncs the
 * WAL, so an acknowledged enquiry survives power loss) against NORMAL (syncs
 * only at checkpoints: survives a crash of the process, not of the machine).
 *
 * Each store is what POST /api/contact does after validation: one transaction
 * with the enquiry and its notification job. Sequential, in process, on a
 * database file under the OS temp directory (on this machine the same disk as
 * the project). Also times a bare fsync of that disk, which FULL pays per commit.
 */
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { submitEnquiry } from "~/contact/submissions.server";
import { migrateToLatest, openDatabase } from "~/db/database.server";
import { parseEnv } from "~/env.server";
import { createLogger } from "~/lib/logger.server";
import { createServices } from "~/services.server";
import { createLocalStorage } from "~/storage/storage.server";

type Mode = "FULL" | "NORMAL";
export type EnquiryBenchRun = { synchronous: Mode; enquiries: number; seconds: number; perSecond: number; p50Ms: number; p99Ms: number };
export type EnquiryBenchReport = { date: string; directory: string; fsyncP50Ms: number; runs: EnquiryBenchRun[]; fullCostPercent: number };

const percentile = (sorted: number[], p: number) => sorted[Math.min(sorted.length - 1, Math.floor((p / 100) * sorted.length))] ?? 0;
const round = (value: number, digits = 2) => Number(value.toFixed(digits));

async function storeFor(mode: Mode, seconds: number): Promise<EnquiryBenchRun> {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), `cornerstone-bench-enquiries-${mode.toLowerCase()}-`));
  const db = openDatabase(dir, { synchronous: mode });
  try {
    await migrateToLatest(db);
    const env = parseEnv({ DATA_DIR: dir, LOG_LEVEL: "silent" });
    const storage = createLocalStorage({ rootDir: path.join(dir, "uploads"), signingSecret: "x".repeat(32) });
    // Notifications off: the job row is written all the same (status "off"), so the write is the same size.
    const services = createServices({ env, db, logger: createLogger({ level: "silent" }), storage, mail: null });
    let n = 0;
    const store = async () => {
      n += 1;
      const ip = `10.${(n >> 16) & 255}.${(n >> 8) & 255}.${n & 255}`;
      const outcome = await submitEnquiry(services, { name: "Bench Visitor", email: "bench@example.nz", message: "Could you quote for a 12 m dry-stone wall, please?" }, ip);
      if (outcome.status !== "stored") throw new Error(`not stored: ${outcome.status}`);
    };
    for (let i = 0; i < 100; i++) await store(); // warm-up
    const latencies: number[] = [];
    const started = performance.now();
    const until = started + seconds * 1000;
    while (performance.now() < until) {
      const t0 = performance.now();
      await store();
      latencies.push(performance.now() - t0);
    }
    const elapsed = (performance.now() - started) / 1000;
    latencies.sort((a, b) => a - b);
    return {
      synchronous: mode,
      enquiries: latencies.length,
      seconds: round(elapsed),
      perSecond: Math.round(latencies.length / elapsed),
      p50Ms: round(percentile(latencies, 50), 3),
      p99Ms: round(percentile(latencies, 99), 3),
    };
  } finally {
    await db.destroy();
    fs.rmSync(dir, { recursive: true, force: true });
  }
}

function fsyncMs(dir: string): number {
  const file = path.join(dir, "fsync-probe");
  const fd = fs.openSync(file, "w");
  const times: number[] = [];
  try {
    for (let i = 0; i < 200; i++) {
      fs.writeSync(fd, Buffer.alloc(4096, i));
      const t0 = performance.now();
      fs.fsyncSync(fd);
      times.push(performance.now() - t0);
    }
  } finally {
    fs.closeSync(fd);
    fs.rmSync(file, { force: true });
  }
  return round(percentile(times.sort((a, b) => a - b), 50), 3);
}

export async function benchEnquiries(options: { seconds?: number } = {}): Promise<EnquiryBenchReport> {
  const seconds = options.seconds ?? 5;
  console.log(`\n== Enquiries stored per second: synchronous = FULL vs NORMAL (WAL), ${seconds} s each, sequential, in process`);
  const runs = [await storeFor("NORMAL", seconds), await storeFor("FULL", seconds), await storeFor("NORMAL", seconds), await storeFor("FULL", seconds)];
  const probeDir = fs.mkdtempSync(path.join(os.tmpdir(), "cornerstone-bench-fsync-"));
  const fsync = fsyncMs(probeDir);
  fs.rmSync(probeDir, { recursive: true, force: true });
  const best = (mode: Mode) => Math.max(...runs.filter((run) => run.synchronous === mode).map((run) => run.perSecond));
  const fullCostPercent = round((1 - best("FULL") / best("NORMAL")) * 100, 1);
  const rows = runs.map((run) => [run.synchronous, String(run.enquiries), String(run.perSecond), run.p50Ms.toFixed(3), run.p99Ms.toFixed(3)]);
  const header = ["synchronous", "enquiries", "per second", "p50 ms", "p99 ms"];
  const widths = header.map((title, i) => Math.max(title.length, ...rows.map((row) => row[i]!.length)));
  const line = (cells: string[]) => cells.map((cell, i) => (i === 0 ? cell.padEnd(widths[i]!) : cell.padStart(widths[i]!))).join("  ");
  console.log([line(header), widths.map((w) => "-".repeat(w)).join("  "), ...rows.map(line)].join("\n"));
  console.log(`fsync of a 4 KB write on ${os.tmpdir()}: p50 ${fsync} ms. FULL costs ${fullCostPercent}% of NORMAL's rate (best runs).`);
  return { date: new Date().toISOString(), directory: os.tmpdir(), fsyncP50Ms: fsync, runs, fullCostPercent };
}
