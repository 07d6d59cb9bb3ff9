import { spawn, spawnSync } from "node:child_process";
import fs from "node:fs/promises";
import https from "node:https";
import os from "node:os";
import path from "node:path";
import { freePort } from "./test-server";

/**
 * A real Caddy (Debian's 2.6) in front of a test server, over HTTPS with its
 * internal CA on a loopback address: no admin endpoint, no trust-store
 * install, HOME and XDG dirs in a temporary folder, the HTTP port free.
 * The site block is the one deploy/Caddyfile uses (reverse_proxy only).
 */
export type Caddy = {
  url: string;
  port: number;
  /** Caddy's internal root certificate (PEM), to verify its TLS properly. */
  rootCertificate: string;
  output(): string;
  stop(): Promise<void>;
};

export function caddyBinary(): string {
  const found = spawnSync("sh", ["-c", "command -v caddy"], { encoding: "utf8" }).stdout.trim();
  if (!found) {
    // Fail loudly: the proxy test is never skipped silently.
    throw new Error("Caddy is not installed. Install it with:  sudo apt-get install -y caddy");
  }
  return found;
}

/** GET over HTTPS trusting only `ca`; resolves with the status, or rejects while Caddy is not ready. */
function probe(url: string, ca: string | undefined): Promise<number> {
  return new Promise((resolve, reject) => {
    const req = https.get(url, { ca, rejectUnauthorized: ca !== undefined }, (res) => {
      res.resume();
      resolve(res.statusCode ?? 0);
    });
    req.on("error", reject);
    req.setTimeout(2000, () => req.destroy(new Error("timeout")));
  });
}

/**
 * deploy/Caddyfile's `reverse_proxy` directive to Node (with its block: how it holds and retries
 * requests while Node restarts), pointed at `upstream`.
 */
export async function shippedProxyDirective(upstream: string): Promise<string> {
  const lines = (await fs.readFile(path.resolve("deploy/Caddyfile"), "utf8")).split("\n");
  const start = lines.findIndex((line) => /^\s*reverse_proxy 127\.0\.0\.1:3000\b/.test(line));
  if (start < 0) throw new Error("deploy/Caddyfile has no `reverse_proxy 127.0.0.1:3000` directive");
  // The directive's own block, to its closing brace (blocks nest).
  let depth = 0;
  let end = start;
  do {
    depth += (lines[end]!.match(/\{/g) ?? []).length - (lines[end]!.match(/\}/g) ?? []).length;
    end += 1;
  } while (depth > 0 && end < lines.length);
  return lines.slice(start, end).join("\n").trim().replace("127.0.0.1:3000", upstream);
}

export async function startCaddy(options: {
  upstream: string;
  port?: number;
  /** The site's proxy directive; by default a bare `reverse_proxy` to the upstream. */
  proxyDirective?: string;
}): Promise<Caddy> {
  const binary = caddyBinary();
  const dir = await fs.mkdtemp(path.join(os.tmpdir(), "cornerstone-caddy-"));
  const port = options.port ?? (await freePort());
  const httpPort = await freePort();
  const url = `https://127.0.0.1:${port}`;
  const caddyfile = `{
	admin off
	skip_install_trust
	http_port ${httpPort}
	https_port ${port}
	storage file_system ${path.join(dir, "storage")}
}

${url} {
	bind 127.0.0.1
	tls internal
	${options.proxyDirective ?? `reverse_proxy ${options.upstream}`}
}
`;
  await fs.writeFile(path.join(dir, "Caddyfile"), caddyfile);
  let log = "";
  const child = spawn(binary, ["run", "--config", path.join(dir, "Caddyfile"), "--adapter", "caddyfile"], {
    cwd: dir,
    env: {
      ...process.env,
      HOME: dir,
      XDG_DATA_HOME: path.join(dir, "data"),
      XDG_CONFIG_HOME: path.join(dir, "config"),
    },
    stdio: ["ignore", "pipe", "pipe"],
  });
  child.stdout.on("data", (chunk) => (log += chunk));
  child.stderr.on("data", (chunk) => (log += chunk));
  const exited = new Promise<void>((resolve) => child.once("exit", () => resolve()));
  const stop = async () => {
    if (child.exitCode === null && child.signalCode === null) child.kill("SIGTERM");
    await exited;
    await fs.rm(dir, { recursive: true, force: true });
  };

  const rootFile = path.join(dir, "storage", "pki", "authorities", "local", "root.crt");
  const deadline = Date.now() + 30_000;
  let rootCertificate: string | undefined;
  while (Date.now() < deadline) {
    if (child.exitCode !== null) break;
    rootCertificate ??= await fs.readFile(rootFile, "utf8").catch(() => undefined);
    if (rootCertificate) {
      try {
        await probe(`${url}/healthz`, rootCertificate);
        return { url, port, rootCertificate, output: () => log, stop };
      } catch {
        // Not serving yet.
      }
    }
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
  await stop();
  throw new Error(`Caddy did not start:\n${log}`);
}
