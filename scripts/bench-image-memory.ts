/**
 * Peak memory of the web process and of the image worker while one image is registered.
 * Part of `npm run bench` (the image part); alone:
 *
 *   npx tsx scripts/bench-image-memory.ts
 *
 * Each case gets a freshly started production server (build/server/index.js with
 * `npm run serve`'s malloc settings), so one case's peak never hides in another's. The
 * figures come from outside, from /proc: VmHWM (peak RSS) of the server's process and of its
 * one child, the worker, sampled every 20 ms while the registration runs. The worker starts
 * with the first job, so its peak is that job's (plus Node and libvips, ~60 MB).
 */
import { fileURLToPath } from "node:url";
import { MAX_UPLOAD_BYTES } from "~/galleries/gallery";
import { pngBomb, truncatedJpeg } from "../tests/fixtures/image-bombs";
import { registerOverHttp, signInOverHttp, uploadOverHttp } from "../tests/support/admin-api-client";
import { childPids, peakRssMB } from "../tests/support/process-memory";
import { startTestServer } from "../tests/support/test-server";
import { PRODUCTION_MALLOC_ENV, ensureBuild } from "./lib/production-server";
import { photoLikeJpeg } from "./lib/photo-like-jpeg";

/** The web process stays under this while images are processed. */
export const WEB_PEAK_RSS_TARGET_MB = 250;

type Case = { name: string; make: () => Promise<Buffer> };

const CASES: Case[] = [
  {
    name: "24 MP portrait JPEG (6000×4000, EXIF 6)",
    make: () => photoLikeJpeg({ width: 6000, height: 4000, portrait: true }),
  },
  {
    name: "108 MP JPEG (12,000×9,000)",
    make: () => photoLikeJpeg({ width: 12_000, height: 9000, quality: 88, noise: 12 }),
  },
  { name: "PNG bomb 2400×110,000", make: async () => pngBomb(2400, 110_000) },
  { name: "PNG bomb 20,000×20,000", make: async () => pngBomb(20_000, 20_000) },
  { name: "truncated JPEG (6000×4000, first half)", make: () => truncatedJpeg(6000, 4000) },
];

export type ImageMemoryResult = {
  case: string;
  fileMB: number;
  status: number;
  message: string | null;
  seconds: number;
  /** The web process's peak before the registration (start-up, sign-in, the upload itself). */
  webPeakBeforeMB: number;
  webPeakMB: number;
  workerPeakMB: number | null;
};

const round = (value: number) => Math.round(value);

async function measure(testCase: Case): Promise<ImageMemoryResult> {
  const file = await testCase.make();
  if (file.length > MAX_UPLOAD_BYTES) throw new Error(`${testCase.name} is over the upload limit`);
  const server = await startTestServer({ env: { ...PRODUCTION_MALLOC_ENV } });
  try {
    const cookie = await signInOverHttp(server.url);
    const url = await uploadOverHttp(server.url, cookie, file);
    const webPeakBeforeMB = await peakRssMB(server.pid);

    let workerPeak: number | null = null;
    let done = false;
    const sample = async () => {
      for (const pid of await childPids(server.pid).catch(() => [])) {
        const peak = await peakRssMB(pid).catch(() => null);
        if (peak !== null) workerPeak = Math.max(workerPeak ?? 0, peak);
      }
    };
    const sampler = (async () => {
      while (!done) {
        await sample();
        await new Promise((resolve) => setTimeout(resolve, 20));
      }
    })();
    const started = performance.now();
    const result = await registerOverHttp(server.url, cookie, url);
    const seconds = (performance.now() - started) / 1000;
    done = true;
    await sampler;
    await sample();
    return {
      case: testCase.name,
      fileMB: Number((file.length / 1e6).toFixed(1)),
      status: result.status,
      message: result.status === 201 ? null : (result.body.message ?? null),
      seconds: Number(seconds.toFixed(2)),
      webPeakBeforeMB: round(webPeakBeforeMB),
      webPeakMB: round(await peakRssMB(server.pid)),
      workerPeakMB: workerPeak === null ? null : round(workerPeak),
    };
  } finally {
    await server.stop();
  }
}

function table(rows: ImageMemoryResult[]): string {
  const header = ["image", "file MB", "status", "seconds", "web peak MB (before)", "worker peak MB"];
  const cells = rows.map((r) => [
    r.case,
    r.fileMB.toFixed(1),
    String(r.status),
    r.seconds.toFixed(2),
    `${r.webPeakMB} (${r.webPeakBeforeMB})`,
    r.workerPeakMB === null ? "–" : String(r.workerPeakMB),
  ]);
  const widths = header.map((title, i) => Math.max(title.length, ...cells.map((row) => row[i]!.length)));
  const line = (row: string[]) =>
    row.map((cell, i) => (i === 0 ? cell.padEnd(widths[i]!) : cell.padStart(widths[i]!))).join("  ");
  return [line(header), widths.map((w) => "-".repeat(w)).join("  "), ...cells.map(line)].join("\n");
}

/** Runs every case, prints a table and the target check, and returns the figures for reports/bench.json. */
export async function benchImageMemory() {
  ensureBuild();
  console.log(
    "\n== Image memory (web process and image worker, peak RSS from /proc, a fresh production server per image)",
  );
  const results: ImageMemoryResult[] = [];
  for (const testCase of CASES) {
    console.error(`  ${testCase.name}…`);
    results.push(await measure(testCase));
  }
  console.log(table(results));
  for (const r of results.filter((r) => r.message)) console.log(`  ${r.case}: ${r.status} "${r.message}"`);
  const worst = Math.max(...results.map((r) => r.webPeakMB));
  const met = worst < WEB_PEAK_RSS_TARGET_MB;
  console.log(
    `Target: web process peak < ${WEB_PEAK_RSS_TARGET_MB} MB for every image: ${met ? "met" : "MISSED"} (highest ${worst} MB)`,
  );
  return {
    date: new Date().toISOString(),
    results,
    check: { target: `web peak RSS < ${WEB_PEAK_RSS_TARGET_MB} MB`, highestMB: worst, met },
  };
}

if (process.argv[1] === fileURLToPath(import.meta.url)) {
  await benchImageMemory();
}
