/**
 * The "profile" part of the analytics bench (scripts/bench-analytics.ts): counting's share of a
 * loaded server's CPU, from a V8 CPU profile.
 */
import { spawn } from "node:child_process";
import fs from "node:fs/promises";
import os from "node:os";
import path from "node:path";
import { waitUntilHealthy } from "../tests/support/test-server";
import { runWrk, type AnalyticsBenchOptions } from "./bench-analytics-load";
import { round } from "./lib/bench-report";
import { PRODUCTION_MALLOC_ENV, PROJECT_ROOT, freePort } from "./lib/production-server";

type ProfileNode = { id: number; callFrame: { functionName: string; url: string }; children?: number[] };
type CpuProfile = { nodes: ProfileNode[]; samples: number[]; timeDeltas: number[] };

/** Functions of the counting path, by the names they keep in the server bundle. */
const COUNTING_FUNCTIONS = new Set(["countAnswered", "countWhenAnswered"]);

/**
 * Runs an ANALYTICS=on server under V8's sampling profiler and the same load, and reports the share
 * of its busy CPU time spent in the counting path. Both sides of the ratio slow down alike when other
 * processes compete for the cores, so this share is much steadier than req/s on a shared machine.
 * Samples before the first cached answer (start-up) are left out.
 */
export async function profiledShare(template: string, seconds: number, options: AnalyticsBenchOptions) {
  const profileDir = await fs.mkdtemp(path.join(os.tmpdir(), "cornerstone-bench-analytics-profile-"));
  try {
    // Started by hand: --cpu-prof is not allowed in NODE_OPTIONS.
    const dataDir = path.join(profileDir, "data");
    await fs.cp(template, dataDir, { recursive: true });
    const port = await freePort();
    const url = `http://127.0.0.1:${port}`;
    let output = "";
    const child = spawn(
      process.execPath,
      ["--cpu-prof", `--cpu-prof-dir=${profileDir}`, path.join(PROJECT_ROOT, "build/server/index.js")],
      {
        env: {
          ...process.env,
          ...PRODUCTION_MALLOC_ENV,
          NODE_ENV: "production",
          PORT: String(port),
          HOST: "127.0.0.1",
          DATA_DIR: dataDir,
          SITE_URL: url,
          TRUST_PROXY: "loopback",
          LOG_LEVEL: "warn",
          ANALYTICS: "on",
        },
        stdio: ["ignore", "pipe", "pipe"],
      },
    );
    const exited = new Promise((resolve) => child.once("exit", resolve));
    child.stdout!.on("data", (chunk) => (output += chunk));
    child.stderr!.on("data", (chunk) => (output += chunk));
    let requests = 0;
    try {
      await waitUntilHealthy(url, child, () => output);
      runWrk(url, 2, options);
      requests = runWrk(url, seconds, options).requests;
    } finally {
      child.kill("SIGTERM"); // the profile is written as the process exits
      await exited;
    }
    const file = (await fs.readdir(profileDir)).find((name) => name.endsWith(".cpuprofile"));
    if (!file) throw new Error("The server wrote no CPU profile");
    const profile = JSON.parse(await fs.readFile(path.join(profileDir, file), "utf8")) as CpuProfile;

    const byId = new Map(profile.nodes.map((node) => [node.id, node]));
    const parentOf = new Map<number, number>();
    for (const node of profile.nodes) for (const child of node.children ?? []) parentOf.set(child, node.id);
    const stackHas = (id: number, names: Set<string>) => {
      for (let current: number | undefined = id; current !== undefined; current = parentOf.get(current)) {
        if (names.has(byId.get(current)!.callFrame.functionName)) return true;
      }
      return false;
    };
    const servingStarted = profile.samples.findIndex((id) => stackHas(id, new Set(["respondFromCache"])));
    let busy = 0;
    let counting = 0;
    for (let i = Math.max(0, servingStarted); i < profile.samples.length; i++) {
      const name = byId.get(profile.samples[i]!)!.callFrame.functionName;
      if (name === "(idle)") continue;
      const micros = profile.timeDeltas[i] ?? 0;
      busy += micros;
      if (stackHas(profile.samples[i]!, COUNTING_FUNCTIONS)) counting += micros;
    }
    const result = {
      requests,
      busyCpuSeconds: round(busy / 1e6),
      countingCpuSeconds: round(counting / 1e6, 3),
      countingSharePercent: round((counting / busy) * 100, 2),
    };
    console.log(
      `Profiled ANALYTICS=on server under the same load (${seconds} s): counting is ${result.countingSharePercent}% of its busy CPU ` +
        `(${result.countingCpuSeconds} s of ${result.busyCpuSeconds} s, ${requests} requests; profiler overhead included on both sides)`,
    );
    return result;
  } finally {
    await fs.rm(profileDir, { recursive: true, force: true });
  }
}
