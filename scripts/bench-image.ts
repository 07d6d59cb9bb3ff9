/**
 * The "image" part of `npm run bench`: scripts/bench-image-pipeline.ts run as a child process on
 * a landscape and an EXIF-rotated portrait JPEG, with the production malloc tuning and with glibc's defaults.
 */
import { spawn } from "node:child_process";
import path from "node:path";
import { table } from "./lib/bench-report";
import { PRODUCTION_MALLOC_ENV, PROJECT_ROOT } from "./lib/production-server";

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
async function runImagePipeline(
  label: string,
  args: string[],
  env: Record<string, string | undefined>,
): Promise<ImageRun> {
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

export async function imagePart() {
  console.log("\n== Image pipeline (6000×4000 ~20 MB JPEG → AVIF/WebP 480–2400 px + JPEG + placeholder)");
  const runsDone: ImageRun[] = [];
  // No malloc tuning at all in the child for the "glibc defaults" run (an empty MALLOC_MMAP_THRESHOLD_ would mean 0).
  const defaults = { MALLOC_ARENA_MAX: undefined, MALLOC_MMAP_THRESHOLD_: undefined };
  runsDone.push(await runImagePipeline("landscape, production malloc env", [], PRODUCTION_MALLOC_ENV));
  runsDone.push(
    await runImagePipeline("portrait (EXIF 6), production malloc env", ["--portrait"], PRODUCTION_MALLOC_ENV),
  );
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
