/**
 * What one start costs: the production server until /healthz answers, and a script (`npm run
 * restore -- --help`, through tsx as npm runs it). Every browser test file starts a server and many
 * API tests run scripts, so this is paid a few hundred times a CI run, and at every restart.
 *
 *   npm run bench -- --only=start
 *
 * CPU time is the process's own (user + system, from /proc), which a busy machine changes less than
 * the wall time; both are medians of RUNS starts on a fresh DATA_DIR each.
 */
import { spawn } from "node:child_process";
import fs from "node:fs/promises";
import os from "node:os";
import path from "node:path";
import { median, round } from "./lib/bench-report";
import { PROJECT_ROOT, ensureBuild, freePort } from "./lib/production-server";
import { testServerEnv } from "../tests/support/test-server";

const RUNS = 7;
const TICKS_PER_SECOND = 100;

export type StartBench = {
  serverCpuMs: number;
  serverWallMs: number;
  scriptCpuMs: number;
  scriptWallMs: number;
  runs: number;
};

/** User + system CPU of a live process, in ms (Linux: fields 14 and 15 of /proc/PID/stat, in ticks). */
async function cpuMsOf(pid: number): Promise<number> {
  const fields = (await fs.readFile(`/proc/${pid}/stat`, "utf8")).split(") ")[1]!.split(" ");
  return ((Number(fields[11]) + Number(fields[12])) * 1000) / TICKS_PER_SECOND;
}

async function startServerOnce(): Promise<{ cpuMs: number; wallMs: number }> {
  const dataDir = await fs.mkdtemp(path.join(os.tmpdir(), "cornerstone-bench-start-"));
  const port = await freePort();
  const started = performance.now();
  const child = spawn(process.execPath, [path.join(PROJECT_ROOT, "build/server/index.js")], {
    env: { ...testServerEnv(port, dataDir), LOG_LEVEL: "silent" },
    stdio: "ignore",
  });
  try {
    for (;;) {
      if (child.exitCode !== null) throw new Error("the server exited while starting");
      const ok = await fetch(`http://127.0.0.1:${port}/healthz`).then(
        (r) => r.ok,
        () => false,
      );
      if (ok) break;
      await new Promise((resolve) => setTimeout(resolve, 20));
    }
    const wallMs = performance.now() - started;
    return { cpuMs: await cpuMsOf(child.pid!), wallMs };
  } finally {
    child.kill("SIGKILL");
    await new Promise((resolve) => child.once("exit", resolve));
    await fs.rm(dataDir, { recursive: true, force: true });
  }
}

/** The script through a shell that, once it has waited for it, reads its own children's CPU (fields 16 and 17). */
function runScriptOnce(): Promise<{ cpuMs: number; wallMs: number }> {
  const started = performance.now();
  return new Promise((resolve, reject) => {
    const shell = spawn(
      "/bin/sh",
      ["-c", `"${process.execPath}" --import tsx scripts/restore.ts --help >/dev/null 2>&1; cat /proc/$$/stat`],
      {
        cwd: PROJECT_ROOT,
        stdio: ["ignore", "pipe", "ignore"],
      },
    );
    let stat = "";
    shell.stdout.on("data", (chunk: Buffer) => (stat += chunk));
    shell.once("error", reject);
    shell.once("exit", (code) => {
      // --help prints the usage and exits 2, as a wrong call does: what counts here is the start.
      if (code !== 0) return reject(new Error(`the shell exited with ${code}`));
      const fields = stat.split(") ")[1]!.split(" ");
      resolve({
        cpuMs: ((Number(fields[13]) + Number(fields[14])) * 1000) / TICKS_PER_SECOND,
        wallMs: performance.now() - started,
      });
    });
  });
}

export async function benchStart(): Promise<StartBench> {
  ensureBuild();
  const server: { cpuMs: number; wallMs: number }[] = [];
  const script: { cpuMs: number; wallMs: number }[] = [];
  for (let i = 0; i < RUNS; i++) {
    server.push(await startServerOnce());
    script.push(await runScriptOnce());
  }
  const result = {
    serverCpuMs: round(median(server.map((s) => s.cpuMs))),
    serverWallMs: round(median(server.map((s) => s.wallMs))),
    scriptCpuMs: round(median(script.map((s) => s.cpuMs))),
    scriptWallMs: round(median(script.map((s) => s.wallMs))),
    runs: RUNS,
  };
  console.log(
    `\nStarts (median of ${RUNS}): the server until /healthz answers ${result.serverCpuMs} ms of CPU (${result.serverWallMs} ms); restore --help through tsx ${result.scriptCpuMs} ms of CPU (${result.scriptWallMs} ms)`,
  );
  return result;
}
