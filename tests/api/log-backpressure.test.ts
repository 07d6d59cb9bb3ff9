// @same-on-every-backend: it picks its own database and storage, or runs scripts on a data directory
import { spawn, type ChildProcessByStdio } from "node:child_process";
import fs from "node:fs/promises";
import http from "node:http";
import os from "node:os";
import path from "node:path";
import type { Readable } from "node:stream";
import { afterEach, assert, describe, expect, it } from "vitest";
import { freePort, testServerEnv, waitUntilHealthy } from "../support/test-server";

/**
 * The production logger against a log reader that is slow or stuck: the real server
 * in a child process, its standard output on a pipe this test reads only when it chooses to.
 */

type Site = {
  url: string;
  child: ChildProcessByStdio<null, Readable, Readable>;
  dataDir: string;
  exited: Promise<number | null>;
};
const sites: Site[] = [];
afterEach(async () => {
  for (const site of sites.splice(0)) {
    if (site.child.exitCode === null && site.child.signalCode === null) site.child.kill("SIGKILL");
    await site.exited;
    await fs.rm(site.dataDir, { recursive: true, force: true });
  }
});

/** Starts the server with LOG_LEVEL=info; its stdout is paused at once, so the pipe fills. */
async function startSite(): Promise<Site> {
  const dataDir = await fs.mkdtemp(path.join(os.tmpdir(), "cornerstone-logs-"));
  const port = await freePort();
  const url = `http://127.0.0.1:${port}`;
  const child = spawn(process.execPath, ["--import", "tsx", "tests/support/fake-site-server.ts"], {
    env: { ...testServerEnv(port, dataDir), LOG_LEVEL: "info" },
    stdio: ["ignore", "pipe", "pipe"],
  });
  child.stdout.pause();
  let errors = "";
  child.stderr.on("data", (chunk) => (errors += chunk));
  const site: Site = {
    url,
    child,
    dataDir,
    exited: new Promise((resolve) => child.once("exit", (code) => resolve(code))),
  };
  sites.push(site);
  await waitUntilHealthy(url, child, () => errors);
  return site;
}

/** `count` requests for distinct 4 KB API paths (404s), 32 at a time. */
async function flood(url: string, count: number): Promise<void> {
  const agent = new http.Agent({ keepAlive: true, maxSockets: 32 });
  const padding = "x".repeat(4096);
  let next = 0;
  const worker = async () => {
    while (next < count) {
      const i = next++;
      await new Promise<void>((resolve, reject) => {
        http
          .get(`${url}/api/${padding}-${i}`, { agent }, (res) => {
            res.resume();
            res.on("end", resolve);
          })
          .on("error", reject);
      });
    }
  };
  await Promise.all(Array.from({ length: 32 }, worker));
  agent.destroy();
}

/** Waits until the process exits, or `ms` has passed; "running" then. */
async function exitWithin(site: Site, ms: number): Promise<number | null | "running"> {
  let timer!: NodeJS.Timeout;
  const limit = new Promise<"running">((resolve) => (timer = setTimeout(() => resolve("running"), ms)));
  const result = await Promise.race([site.exited, limit]);
  clearTimeout(timer);
  return result;
}

// 4 MB of ~400-byte lines is about 10,500: 14,000 requests overflow the buffer on any machine.
const REQUESTS = 14_000;

describe("request logs on a slow reader", () => {
  it("holds at most 4 MB, drops and counts the rest, and says how many once the reader catches up", async () => {
    const site = await startSite();
    await flood(site.url, REQUESTS);

    // Now read everything: what was held, then the report of what was dropped.
    let received = "";
    site.child.stdout.setEncoding("utf8");
    site.child.stdout.on("data", (chunk: string) => (received += chunk));
    site.child.stdout.resume();
    // The report comes as soon as the reader has caught up. A buffer that never overflowed sends
    // none: once the output has been quiet for 10 s the wait ends, and the assertion says so
    // (rather than the test's own timeout).
    let quiet!: NodeJS.Timeout;
    const dropped = await new Promise<{ dropped: number; bytesBefore: number } | null>((resolve) => {
      const check = () => {
        clearTimeout(quiet);
        quiet = setTimeout(() => resolve(null), 10_000);
        const index = received.indexOf('"dropped":');
        const lineEnd = received.indexOf("\n", index);
        if (index === -1 || lineEnd === -1) return;
        site.child.stdout.off("data", check);
        const lineStart = received.lastIndexOf("\n", index) + 1;
        resolve({ dropped: JSON.parse(received.slice(lineStart, lineEnd)).dropped, bytesBefore: lineStart });
      };
      site.child.stdout.on("data", check);
      check();
    });
    clearTimeout(quiet);
    assert(dropped, `no "dropped" report in the ${received.length} bytes read`);

    const requestLines = received
      .slice(0, dropped.bytesBefore)
      .split("\n")
      .filter((line) => line.includes('"msg":"request"'))
      .map((line) => JSON.parse(line) as { path: string });
    // Held: the 4 MB buffer plus what the pipe itself took (64 KB on Linux), never the 60 MB sent.
    expect(dropped.bytesBefore).toBeLessThan(4 * 1024 * 1024 + 1024 * 1024);
    expect(dropped.dropped).toBeGreaterThan(0);
    expect(requestLines.length + dropped.dropped).toBeGreaterThanOrEqual(REQUESTS);
    // Each 4 KB path is logged as its first 256 characters and a mark.
    expect(requestLines.find((line) => line.path.startsWith("/api/"))?.path).toBe(
      `/api/${"x".repeat(251)}…[truncated]`,
    );
  }, 240_000);

  it("exits within the grace period on SIGTERM while the reader has stopped reading and the buffer is full", async () => {
    const site = await startSite();
    await flood(site.url, REQUESTS);
    site.child.kill("SIGTERM");
    // SHUTDOWN_GRACE_MS: 10 s. Before the fix the exit hook retried the write forever.
    expect(await exitWithin(site, 10_000)).toBe(0);
  }, 120_000);
});
