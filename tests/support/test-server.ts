import { spawn, type ChildProcess } from "node:child_process";
import fs from "node:fs/promises";
import net from "node:net";
import os from "node:os";
import path from "node:path";
import { fileURLToPath } from "node:url";

const SERVER_ENTRY = path.resolve(path.dirname(fileURLToPath(import.meta.url)), "../../build/server/index.js");

export const TEST_ADMIN = { username: "owner", password: "correct horse battery staple" } as const;

export type TestServer = {
  url: string;
  port: number;
  pid: number;
  dataDir: string;
  /** Everything the server printed, for assertions and failure reports. */
  output(): string;
  /** Sends a signal without waiting; `exited` resolves with the exit code. */
  signal(signal: NodeJS.Signals): void;
  exited: Promise<number | null>;
  stop(): Promise<number | null>;
};

export async function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const probe = net.createServer();
    probe.unref();
    probe.on("error", reject);
    probe.listen(0, "127.0.0.1", () => {
      const { port } = probe.address() as net.AddressInfo;
      probe.close(() => resolve(port));
    });
  });
}

/** Polls /healthz until the server answers 200; fails with its output if it exits or takes 30 s. */
export async function waitUntilHealthy(url: string, child: ChildProcess, output: () => string) {
  const deadline = Date.now() + 30_000;
  while (Date.now() < deadline) {
    if (child.exitCode !== null) throw new Error(`The server exited early:\n${output()}`);
    try {
      const res = await fetch(`${url}/healthz`);
      if (res.ok) return;
    } catch {
      // Not listening yet.
    }
    await new Promise((r) => setTimeout(r, 100));
  }
  throw new Error(`The server did not become healthy:\n${output()}`);
}

/** The environment of a production server started by a test: port, data directory, administrator. */
export function testServerEnv(port: number, dataDir: string): NodeJS.ProcessEnv {
  return {
    ...process.env,
    NODE_ENV: "production",
    PORT: String(port),
    HOST: "127.0.0.1",
    DATA_DIR: dataDir,
    SITE_URL: `http://127.0.0.1:${port}`,
    ADMIN_USERNAME: TEST_ADMIN.username,
    ADMIN_PASSWORD: TEST_ADMIN.password,
    // Tests give each browser context its own client address via X-Forwarded-For.
    TRUST_PROXY: "loopback",
    LOG_LEVEL: "warn",
  };
}

/**
 * Starts the production build on a free port with a fresh temporary DATA_DIR.
 * `prepare` runs against the empty data directory first (e.g. to seed images).
 */
export async function startTestServer(
  options: {
    env?: Record<string, string>;
    prepare?: (dataDir: string) => Promise<void>;
    /** Serve this data directory instead of a fresh one (it is still removed on stop()). */
    dataDir?: string;
    /** A port chosen beforehand (when something must know the server's URL before it starts). */
    port?: number;
    /** Another build's server entry (the bench compares with the previous main build). */
    serverEntry?: string;
    /** Node's own options before the entry (as `npm run serve` gives them). */
    nodeArgs?: string[];
  } = {},
): Promise<TestServer> {
  const dataDir = options.dataDir ?? (await fs.mkdtemp(path.join(os.tmpdir(), "cornerstone-e2e-")));
  if (options.prepare) await options.prepare(dataDir);
  const port = options.port ?? (await freePort());
  const url = `http://127.0.0.1:${port}`;
  let log = "";
  const child = spawn(process.execPath, [...(options.nodeArgs ?? []), options.serverEntry ?? SERVER_ENTRY], {
    env: { ...testServerEnv(port, dataDir), ...options.env },
    stdio: ["ignore", "pipe", "pipe"],
  });
  const exited = new Promise<number | null>((resolve) => child.once("exit", (code) => resolve(code)));
  child.stdout!.on("data", (chunk) => (log += chunk));
  child.stderr!.on("data", (chunk) => (log += chunk));
  try {
    await waitUntilHealthy(url, child, () => log);
  } catch (error) {
    child.kill("SIGKILL");
    await fs.rm(dataDir, { recursive: true, force: true });
    throw error;
  }
  return {
    url,
    port,
    pid: child.pid!,
    dataDir,
    output: () => log,
    signal: (signal) => child.kill(signal),
    exited,
    async stop() {
      if (child.exitCode === null && child.signalCode === null) child.kill("SIGTERM");
      const code = await exited;
      await fs.rm(dataDir, { recursive: true, force: true });
      return code;
    },
  };
}
