// @same-on-every-backend: it picks its own database and storage, or runs scripts on a data directory
import fs from "node:fs/promises";
import os from "node:os";
import path from "node:path";
import { afterAll, expect, it } from "vitest";
import { runScript } from "../support/run-script";

const dataDir = await fs.mkdtemp(path.join(os.tmpdir(), "cornerstone-script-stdin-"));
afterAll(() => fs.rm(dataDir, { recursive: true, force: true }));

// A script that stops before reading its input closes the pipe under the test's write (EPIPE):
// the test reports the script's exit and message, and the test process does not crash.
it("a script that exits before reading its stdin is reported by its exit, not an EPIPE crash", async () => {
  const unread = "x".repeat(1024 * 1024); // far more than a pipe holds, so the write outlives the script
  const result = await runScript("backup", ["--out"], { DATA_DIR: dataDir, LOG_LEVEL: "silent" }, { input: unread });
  expect(result.status).toBe(1);
  expect(result.stderr).toContain("--out needs a file name: npm run backup -- --out /path/to/backup.tar.gz");
});
