/**
 * Benchmarks processImage on a camera-sized photo.
 *
 *   npx tsx scripts/bench-image-pipeline.ts              # generates a 6000x4000 ~20 MB JPEG
 *   npx tsx scripts/bench-image-pipeline.ts --portrait   # same, stored with EXIF orientation 6
 *   npx tsx scripts/bench-image-pipeline.ts photo.jpg    # or uses your own file
 *
 * Processing runs in a fresh child process so generating the test image does
 * not count towards the measured peak RSS. The child inherits the environment,
 * so malloc tuning (MALLOC_ARENA_MAX, MALLOC_MMAP_THRESHOLD_) can be compared.
 */
import { spawnSync } from "node:child_process";
import { createReadStream } from "node:fs";
import { mkdtemp, rm, stat, writeFile } from "node:fs/promises";
import os from "node:os";
import path from "node:path";
import { fileURLToPath } from "node:url";
import sharp from "sharp";
import { processImage } from "~/images/image-pipeline.server";
import { createLocalStorage } from "~/storage/local-storage.server";
import { photoLikeJpeg } from "./lib/photo-like-jpeg";

const WIDTH = 6000;
const HEIGHT = 4000;

async function generatePhotoLikeJpeg(file: string, portrait: boolean): Promise<void> {
  await writeFile(file, await photoLikeJpeg({ width: WIDTH, height: HEIGHT, portrait }));
}

async function runBenchmark(inputFile: string): Promise<void> {
  const dir = await mkdtemp(path.join(os.tmpdir(), "cornerstone-bench-"));
  try {
    const storage = createLocalStorage({ rootDir: dir, signingSecret: "b".repeat(32) });
    const { bytes: inputBytes } = await storage.write("originals/bench", createReadStream(inputFile));
    const baselineRssMB = process.memoryUsage.rss() / 2 ** 20;

    let peakRss = process.memoryUsage.rss();
    const sampler = setInterval(() => {
      peakRss = Math.max(peakRss, process.memoryUsage.rss());
    }, 20);
    const started = performance.now();
    const cpuBefore = process.cpuUsage();
    const result = await processImage(storage, "originals/bench");
    const seconds = (performance.now() - started) / 1000;
    const cpu = process.cpuUsage(cpuBefore);
    clearInterval(sampler);
    peakRss = Math.max(peakRss, process.memoryUsage.rss());

    const variants = [
      ...result.variants.avif.map((v) => ({ format: "avif", ...v })),
      ...result.variants.webp.map((v) => ({ format: "webp", ...v })),
      { format: "jpeg", ...result.variants.jpeg },
    ];
    console.log(
      JSON.stringify(
        {
          inputBytes,
          inputMB: Number((inputBytes / 1e6).toFixed(1)),
          upright: { width: result.width, height: result.height },
          seconds: Number(seconds.toFixed(2)),
          // CPU time across all threads: if seconds varies but this doesn't, the machine was busy.
          cpuSeconds: Number(((cpu.user + cpu.system) / 1e6).toFixed(2)),
          peakRssMB: Math.round(peakRss / 2 ** 20),
          // maxRSS is in KiB and covers the whole process lifetime.
          maxRssMB: Math.round(process.resourceUsage().maxRSS / 1024),
          baselineRssMB: Math.round(baselineRssMB),
          placeholderBytes: result.placeholder.length,
          environment: {
            sharpConcurrency: sharp.concurrency(),
            UV_THREADPOOL_SIZE: process.env.UV_THREADPOOL_SIZE ?? null,
            MALLOC_ARENA_MAX: process.env.MALLOC_ARENA_MAX ?? null,
            MALLOC_MMAP_THRESHOLD_: process.env.MALLOC_MMAP_THRESHOLD_ ?? null,
          },
          variants,
        },
        null,
        2,
      ),
    );
  } finally {
    await rm(dir, { recursive: true, force: true });
  }
}

async function main(): Promise<void> {
  const args = process.argv.slice(2);
  if (args[0] === "--child" && args[1]) {
    await runBenchmark(args[1]);
    return;
  }
  const portrait = args.includes("--portrait");
  let inputFile = args.find((arg) => !arg.startsWith("--"));
  let tempDir: string | undefined;
  try {
    if (!inputFile) {
      tempDir = await mkdtemp(path.join(os.tmpdir(), "cornerstone-bench-input-"));
      inputFile = path.join(tempDir, "photo.jpg");
      await generatePhotoLikeJpeg(inputFile, portrait);
      const megabytes = ((await stat(inputFile)).size / 1e6).toFixed(1);
      console.error(`generated ${WIDTH}x${HEIGHT}${portrait ? " (orientation 6)" : ""} JPEG, ${megabytes} MB`);
    }
    // execArgv carries tsx's loader flags into the child.
    const child = spawnSync(
      process.execPath,
      [...process.execArgv, fileURLToPath(import.meta.url), "--child", inputFile],
      { stdio: "inherit" },
    );
    process.exitCode = child.status ?? 1;
  } finally {
    if (tempDir) await rm(tempDir, { recursive: true, force: true });
  }
}

await main();
