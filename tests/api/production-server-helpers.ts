import { existsSync, readFileSync } from "node:fs";
import fs from "node:fs/promises";
import os from "node:os";
import path from "node:path";
import { fileURLToPath } from "node:url";
import { freePort, startTestServer, type TestServer } from "../support/test-server";
import { acquireBackend } from "./helpers";

const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), "../..");
const SERVER_ENTRY = path.join(ROOT, "build/server/index.js");
/** Reports every uncaught exception on stderr, even one a process-wide handler would swallow. */
export const UNCAUGHT_MONITOR = path.join(ROOT, "tests/support/uncaught-exception-monitor.mjs");
export const UNCAUGHT_MARKER = "UNCAUGHT EXCEPTION (monitor):";

/**
 * `npm run serve` as package.json has it: its environment (`NAME=value` before `node`), Node's
 * options (between `node` and the script) and the script it runs (scripts/serve.mjs, which serves
 * this checkout's build in the same process), so the child runs exactly as in production.
 */
export function serveCommand(): { env: Record<string, string>; nodeArgs: string[]; entry: string } {
  const serve = (
    JSON.parse(readFileSync(path.join(ROOT, "package.json"), "utf8")) as { scripts: Record<string, string> }
  ).scripts.serve!;
  const words = serve.trim().split(/\s+/);
  const node = words.indexOf("node");
  const script = words.at(-1);
  if (node < 0 || (script !== "scripts/serve.mjs" && script !== "build/server/index.js"))
    throw new Error(`Unexpected serve script: ${serve}`);
  const env = Object.fromEntries(words.slice(0, node).map((word) => word.split("=", 2) as [string, string]));
  return { env, nodeArgs: words.slice(node + 1, -1), entry: path.join(ROOT, script) };
}

/**
 * `npm run serve` as a child process (build/server/index.js, as in production) on this run's back
 * end: SQLite and the disk, or (TEST_BACKEND=postgres-s3) a fresh PostgreSQL database and bucket.
 * The production build must exist (`npm test` builds it first; alone: `npm run build`).
 * `monitorUncaught` adds a preload that only reports uncaught exceptions (UNCAUGHT_MARKER).
 */
export async function startProductionServerOnBackend(
  env: Record<string, string> = {},
  options: { monitorUncaught?: boolean } = {},
): Promise<TestServer & { backendEnv: Record<string, string> }> {
  if (!existsSync(SERVER_ENTRY)) throw new Error("build/server/index.js is missing: run `npm run build` first.");
  const port = await freePort();
  const dataDir = await fs.mkdtemp(path.join(os.tmpdir(), "cornerstone-e2e-"));
  const backend = await acquireBackend({ DATA_DIR: dataDir, SITE_URL: `http://127.0.0.1:${port}` });
  const serve = serveCommand();
  const nodeArgs = options.monitorUncaught ? ["--import", UNCAUGHT_MONITOR, ...serve.nodeArgs] : serve.nodeArgs;
  try {
    const server = await startTestServer({
      port,
      dataDir,
      nodeArgs,
      serverEntry: serve.entry,
      env: { ...serve.env, ...backend.env, ...env },
    });
    return {
      ...server,
      backendEnv: backend.env,
      async stop() {
        const code = await server.stop();
        await backend.release();
        return code;
      },
    };
  } catch (error) {
    await backend.release();
    await fs.rm(dataDir, { recursive: true, force: true });
    throw error;
  }
}
