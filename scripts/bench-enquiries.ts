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
import { allInboxItems, inboxSummary, listInbox, submitEnquiry } from "~/contact/submissions.server";
import { migrateToLatest, openDatabase } from "~/db/database.server";
import { loadSignInKeys } from "~/auth/keys.server";
import { parseEnv } from "~/env.server";
import { createImageWorker } from "~/images/image-worker.server";
import { createLogger } from "~/lib/logger.server";
import { createServices } from "~/services.server";
import { createLocalStorage } from "~/storage/local-storage.server";
import { round } from "./lib/bench-report";

type Mode = "FULL" | "NORMAL";
export type EnquiryBenchRun = {
  synchronous: Mode;
  enquiries: number;
  seconds: number;
  perSecond: number;
  p50Ms: number;
  p99Ms: number;
};
export type InboxTiming = {
  enquiries: number;
  firstPageMs: number;
  lastPageMs: number;
  unreadPageMs: number;
  summaryMs: number;
  exportAllMs: number;
};
export type EnquiryBenchReport = {
  date: string;
  directory: string;
  fsyncP50Ms: number;
  runs: EnquiryBenchRun[];
  fullCostPercent: number;
  inbox: InboxTiming[];
};

const percentile = (sorted: number[], p: number) =>
  sorted[Math.min(sorted.length - 1, Math.floor((p / 100) * sorted.length))] ?? 0;

async function storeFor(mode: Mode, seconds: number): Promise<EnquiryBenchRun> {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), `cornerstone-bench-enquiries-${mode.toLowerCase()}-`));
  const db = openDatabase(dir, { synchronous: mode });
  try {
    await migrateToLatest(db);
    const env = parseEnv({ DATA_DIR: dir, LOG_LEVEL: "silent" });
    const storage = createLocalStorage({ rootDir: path.join(dir, "uploads"), signingSecret: "x".repeat(32) });
    // Notifications off: the job row is written all the same (status "off"), so the write is the same size.
    const services = createServices({
      env,
      db,
      logger: createLogger({ level: "silent" }),
      storage,
      keys: await loadSignInKeys(env, null),
      images: createImageWorker({
        storage: { kind: "local", rootDir: path.join(dir, "uploads"), signingSecret: "x".repeat(32) },
        logger: createLogger({ level: "silent" }),
      }),
      mail: null,
    });
    let n = 0;
    const store = async () => {
      n += 1;
      const ip = `10.${(n >> 16) & 255}.${(n >> 8) & 255}.${n & 255}`;
      const outcome = await submitEnquiry(
        services,
        {
          name: "Bench Visitor",
          email: "bench@example.nz",
          message: "Could you quote for a 12 m dry-stone wall, please?",
        },
        ip,
      );
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
  return round(
    percentile(
      times.sort((a, b) => a - b),
      50,
    ),
    3,
  );
}

/** Issue 9 §5: the inbox's reads with 10 and with 10,000 enquiries (median of repeated calls). */
async function inboxTiming(count: number): Promise<InboxTiming> {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), "cornerstone-bench-inbox-"));
  const db = openDatabase(dir);
  try {
    await migrateToLatest(db);
    await db.transaction().execute(async (trx) => {
      for (let i = 0; i < count; i++) {
        const id = `00000000-0000-4000-8000-${String(i).padStart(12, "0")}`;
        const at = new Date(Date.UTC(2026, 0, 1) + Math.floor(i / 3) * 60_000).toISOString();
        await trx
          .insertInto("contact_submissions")
          .values({
            id,
            name: `Visitor ${i}`,
            email: "v@example.nz",
            phone: null,
            message: "A quote for a wall, please.",
            submitted_at: at,
            read_at: i % 4 ? at : null,
          })
          .execute();
        await trx
          .insertInto("notification_jobs")
          .values({
            id: `job-${id}`,
            kind: "enquiry",
            submission_id: id,
            payload: "{}",
            status: "sent",
            attempts: 1,
            sent_at: at,
            created_at: at,
            updated_at: at,
          })
          .execute();
      }
    });
    const services = { db };
    const median = async (fn: () => Promise<unknown>, times = 30) => {
      const samples: number[] = [];
      for (let i = 0; i < times; i++) {
        const t0 = performance.now();
        await fn();
        samples.push(performance.now() - t0);
      }
      return round(
        percentile(
          samples.sort((a, b) => a - b),
          50,
        ),
        3,
      );
    };
    // The cursor of the last full page: what "Load more" sends when it reaches the end.
    let before: string | null = null;
    for (let seen = 0; seen + 50 < count; seen += 50) {
      const page: Awaited<ReturnType<typeof listInbox>> = await listInbox(services, { before, limit: 50 });
      before = page[page.length - 1]?.cursor ?? null;
    }
    return {
      enquiries: count,
      firstPageMs: await median(() => listInbox(services, { limit: 50 })),
      lastPageMs: await median(() => listInbox(services, { limit: 50, before })),
      unreadPageMs: await median(() => listInbox(services, { limit: 50, unreadOnly: true })),
      summaryMs: await median(() => inboxSummary(services)),
      exportAllMs: await median(async () => {
        for await (const batch of allInboxItems(services)) void batch;
      }, 3),
    };
  } finally {
    await db.destroy();
    fs.rmSync(dir, { recursive: true, force: true });
  }
}

export async function benchEnquiries(options: { seconds?: number } = {}): Promise<EnquiryBenchReport> {
  const seconds = options.seconds ?? 5;
  console.log(
    `\n== Enquiries stored per second: synchronous = FULL vs NORMAL (WAL), ${seconds} s each, sequential, in process`,
  );
  const runs = [
    await storeFor("NORMAL", seconds),
    await storeFor("FULL", seconds),
    await storeFor("NORMAL", seconds),
    await storeFor("FULL", seconds),
  ];
  const probeDir = fs.mkdtempSync(path.join(os.tmpdir(), "cornerstone-bench-fsync-"));
  const fsync = fsyncMs(probeDir);
  fs.rmSync(probeDir, { recursive: true, force: true });
  const best = (mode: Mode) => Math.max(...runs.filter((run) => run.synchronous === mode).map((run) => run.perSecond));
  const fullCostPercent = round((1 - best("FULL") / best("NORMAL")) * 100, 1);
  const rows = runs.map((run) => [
    run.synchronous,
    String(run.enquiries),
    String(run.perSecond),
    run.p50Ms.toFixed(3),
    run.p99Ms.toFixed(3),
  ]);
  const header = ["synchronous", "enquiries", "per second", "p50 ms", "p99 ms"];
  const widths = header.map((title, i) => Math.max(title.length, ...rows.map((row) => row[i]!.length)));
  const line = (cells: string[]) =>
    cells.map((cell, i) => (i === 0 ? cell.padEnd(widths[i]!) : cell.padStart(widths[i]!))).join("  ");
  console.log([line(header), widths.map((w) => "-".repeat(w)).join("  "), ...rows.map(line)].join("\n"));
  console.log(
    `fsync of a 4 KB write on ${os.tmpdir()}: p50 ${fsync} ms. FULL costs ${fullCostPercent}% of NORMAL's rate (best runs).`,
  );

  console.log("\n== The inbox's reads, median ms (in process)");
  const inbox = [await inboxTiming(10), await inboxTiming(10_000)];
  for (const timing of inbox) {
    console.log(
      `${String(timing.enquiries).padStart(6)} enquiries: first page ${timing.firstPageMs} ms, last page ${timing.lastPageMs} ms, ` +
        `unread page ${timing.unreadPageMs} ms, unread count ${timing.summaryMs} ms, every row for the CSV ${timing.exportAllMs} ms`,
    );
  }
  return { date: new Date().toISOString(), directory: os.tmpdir(), fsyncP50Ms: fsync, runs, fullCostPercent, inbox };
}
