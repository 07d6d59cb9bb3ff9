/**
 * npm run bench -- --only=baseline [--baseline=<git ref>]
 *
 * Cached GET / of this build side by side with another build of the project (default: `main`;
 * after merging into main, pass --baseline=HEAD^1 for the main before the merge), on the same demo
 * data, as the median of 3 interleaved runs each (issue 20: ratios to nginx differ too much
 * between machines to judge a change by). The other build is made in a temporary directory from
 * `git archive`, with this checkout's node_modules.
 */
import { execFileSync } from "node:child_process";
import fs from "node:fs/promises";
import os from "node:os";
import path from "node:path";
import { startTestServer } from "../tests/support/test-server";
import { median } from "./lib/lighthouse-budgets";
import { PRODUCTION_MALLOC_ENV, PROJECT_ROOT, seedDemoData } from "./lib/production-server";

export type BaselineRun = { requestsPerSecond: number };
export type MeasureHome = (url: string) => Promise<BaselineRun>;

const RUNS = 3;

/** Builds `ref` in a temporary directory; returns its server entry. */
async function buildRef(ref: string, dir: string): Promise<string> {
  const commit = execFileSync("git", ["rev-parse", "--verify", `${ref}^{commit}`], {
    cwd: PROJECT_ROOT,
    encoding: "utf8",
  }).trim();
  execFileSync("sh", ["-c", `git archive ${commit} | tar -x -C "${dir}"`], { cwd: PROJECT_ROOT });
  await fs.symlink(path.join(PROJECT_ROOT, "node_modules"), path.join(dir, "node_modules"));
  console.error(`building ${ref} (${commit.slice(0, 7)}) in ${dir}`);
  execFileSync("npx", ["react-router", "build"], { cwd: dir, stdio: ["ignore", "ignore", "inherit"] });
  execFileSync(process.execPath, ["scripts/precompress-assets.mjs"], { cwd: dir, stdio: "ignore" });
  return path.join(dir, "build", "server", "index.js");
}

/** Seeds `dataDir` with the demo data using the checkout in `checkoutDir` (its own code and migrations). */
function seedWithBuild(checkoutDir: string, dataDir: string): void {
  const script = `import { seedDemoData } from "./scripts/lib/production-server.ts"; await seedDemoData(${JSON.stringify(dataDir)});`;
  execFileSync(process.execPath, ["--import", "tsx", "--input-type=module", "-e", script], {
    cwd: checkoutDir,
    stdio: ["ignore", "ignore", "inherit"],
  });
}

export async function benchAgainstBaseline(ref: string, measureHome: MeasureHome) {
  console.log(`\n== Cached GET / against ${ref}: median of ${RUNS} interleaved runs each`);
  const dir = await fs.mkdtemp(path.join(os.tmpdir(), "cornerstone-baseline-"));
  try {
    const baselineEntry = await buildRef(ref, dir);
    const env = { ...PRODUCTION_MALLOC_ENV };
    const current = await startTestServer({ env, prepare: async (dataDir) => void (await seedDemoData(dataDir)) });
    // The other build seeds its own data: this build's migrations may be newer than it knows.
    const baseline = await startTestServer({
      env,
      serverEntry: baselineEntry,
      prepare: async (dataDir) => seedWithBuild(dir, dataDir),
    });
    try {
      const ours: number[] = [];
      const theirs: number[] = [];
      for (let run = 0; run < RUNS; run++) {
        ours.push((await measureHome(current.url)).requestsPerSecond);
        theirs.push((await measureHome(baseline.url)).requestsPerSecond);
      }
      const result = {
        ref,
        runs: RUNS,
        thisBuild: ours,
        baseline: theirs,
        thisBuildMedian: median(ours),
        baselineMedian: median(theirs),
      };
      const ratio = result.thisBuildMedian / result.baselineMedian;
      console.log(`this build: ${ours.join(", ")} req/s (median ${result.thisBuildMedian})`);
      console.log(`${ref}: ${theirs.join(", ")} req/s (median ${result.baselineMedian})`);
      console.log(
        `ratio ${ratio.toFixed(3)} (${ratio >= 0.97 ? "no loss beyond noise" : "LOSS: this build is slower"})`,
      );
      return { ...result, ratio: Number(ratio.toFixed(3)) };
    } finally {
      await Promise.all([current.stop(), baseline.stop()]);
    }
  } finally {
    await fs.rm(dir, { recursive: true, force: true });
  }
}
