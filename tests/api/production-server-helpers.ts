import { existsSync } from "node:fs";
import fs from "node:fs/promises";
import os from "node:os";
import path from "node:path";
import { fileURLToPath } from "node:url";
import { freePort, startTestServer, type TestServer } from "../support/test-server";
import { acquireBackend } from "./helpers";

const SERVER_ENTRY = path.resolve(path.dirname(fileURLToPath(import.meta.url)), "../../build/server/index.js");

/**
 * `npm run serve` as a child process (build/server/index.js, as in production) on this run's back
 * end: SQLite and the disk, or (TEST_BACKEND=postgres-s3) a fresh PostgreSQL database and bucket.
 * The production build must exist (`npm test` builds it first; alone: `npm run build`).
 */
export async function startProductionServerOnBackend(env: Record<string, string> = {}): Promise<TestServer> {
  if (!existsSync(SERVER_ENTRY)) throw new Error("build/server/index.js is missing: run `npm run build` first.");
  const port = await freePort();
  const dataDir = await fs.mkdtemp(path.join(os.tmpdir(), "cornerstone-e2e-"));
  const backend = await acquireBackend({ DATA_DIR: dataDir, SITE_URL: `http://127.0.0.1:${port}` });
  try {
    const server = await startTestServer({ port, dataDir, env: { ...backend.env, ...env } });
    return {
      ...server,
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
