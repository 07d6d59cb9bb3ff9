/**
 * The "load" part of `npm run bench`: each of LOAD_TARGETS against the production build, then
 * nginx serving the very same response bytes, loaded the same way, as a yardstick.
 */
import { existsSync } from "node:fs";
import fs from "node:fs/promises";
import os from "node:os";
import path from "node:path";
import { table } from "./lib/bench-report";
import { rawGet } from "./lib/http-raw";
import { runAutocannon, runWrk, type LoadRun, type LoadToolOptions, type Target } from "./lib/load-generators";
import { NGINX, startNginx } from "./lib/nginx";
import type { ProductionServer } from "./lib/production-server";

/** The load part's settings, from the bench's command line. */
export type LoadOptions = LoadToolOptions & {
  durationS: number;
  /** Seconds of warm-up before each measured run (discarded). */
  warmupS: number;
  /** wrk, else autocannon. */
  useWrk: boolean;
};

export type LoadResult = LoadRun & {
  target: string;
  server: "node" | "nginx";
  responseBytes?: number;
};

export const LOAD_TARGETS: Target[] = [
  { name: "GET /", method: "GET", path: "/" },
  { name: "GET / (br, as browsers ask)", method: "GET", path: "/", brotli: true },
  { name: "GET /stonework", method: "GET", path: "/stonework" },
  { name: "GET /api/content/hero.title", method: "GET", path: "/api/content/hero.title" },
  { name: "GET /api/galleries/homepage", method: "GET", path: "/api/galleries/homepage" },
  { name: "POST /api/contact (one IP: rate-limited)", method: "POST", path: "/api/contact" },
  { name: "POST /api/contact (varying IP: accepted)", method: "POST", path: "/api/contact", varyClientIp: true },
];

/** A warm-up run (discarded), then the measured run. */
export async function measure(
  server: "node" | "nginx",
  url: string,
  target: Target,
  scriptDir: string,
  options: LoadOptions,
): Promise<LoadResult> {
  const run = (seconds: number) =>
    options.useWrk ? runWrk(url, target, seconds, scriptDir, options) : runAutocannon(url, target, seconds, options);
  await run(options.warmupS);
  const result = { target: target.name, server, ...(await run(options.durationS)) };
  const statuses = Object.entries(result.statuses)
    .map(([status, count]) => `${status}:${count}`)
    .join(" ");
  console.error(`  ${server} ${target.name}: ${result.requestsPerSecond} req/s, p99 ${result.p99Ms} ms [${statuses}]`);
  return result;
}

/** The path nginx serves a target's saved bytes on: brotli copies under /br/, sent with Content-Encoding: br. */
const nginxPath = (target: Target) => (target.brotli ? `/br${target.path}` : target.path);
/** Where those bytes live under nginx's root ("/" → index.html). */
const nginxFile = (target: Target) => {
  const route = nginxPath(target);
  return route.endsWith("/") ? `${route.slice(1)}index.html` : route.slice(1);
};

export async function loadPart(server: ProductionServer, options: LoadOptions) {
  console.log(
    `\n== Load: ${options.durationS} s, ${options.connections} connections, ${options.useWrk ? `wrk -t${options.threads}` : "autocannon"}, ${options.warmupS} s warm-up each`,
  );
  const tmp = await fs.mkdtemp(path.join(os.tmpdir(), "cornerstone-bench-load-"));
  try {
    const ours: LoadResult[] = [];
    for (const target of LOAD_TARGETS) ours.push(await measure("node", server.url, target, tmp, options));

    // The same bytes from nginx, fetched the way wrk asks: uncompressed, or brotli for the br targets.
    const nginxResults: LoadResult[] = [];
    let nginxNote: string | null = null;
    if (!existsSync(NGINX)) nginxNote = `${NGINX} not installed: no comparison`;
    else {
      await fs.chmod(tmp, 0o755);
      const getTargets = LOAD_TARGETS.filter((target) => target.method === "GET");
      for (const target of getTargets) {
        const response = await rawGet(server.url + target.path, target.brotli ? { "Accept-Encoding": "br" } : {});
        if (response.status !== 200) throw new Error(`${target.path} answered ${response.status}`);
        if (target.brotli && response.headers["content-encoding"] !== "br")
          throw new Error(`${target.path} was not sent with brotli`);
        const file = path.join(tmp, "www", nginxFile(target));
        await fs.mkdir(path.dirname(file), { recursive: true, mode: 0o755 });
        await fs.writeFile(file, response.wire, { mode: 0o644 });
        const result = ours.find((r) => r.target === target.name)!;
        result.responseBytes = response.wire.length;
      }
      const nginx = await startNginx(tmp);
      if ("error" in nginx) nginxNote = nginx.error;
      else {
        try {
          for (const target of getTargets) {
            const check = await rawGet(nginx.url + nginxPath(target));
            const saved = await fs.readFile(path.join(tmp, "www", nginxFile(target)));
            if (check.status !== 200 || !check.wire.equals(saved))
              throw new Error(`nginx does not serve the saved ${target.path}`);
            const asServed = { ...target, path: nginxPath(target) };
            nginxResults.push({
              ...(await measure("nginx", nginx.url, asServed, tmp, options)),
              responseBytes: saved.length,
            });
          }
        } finally {
          await nginx.stop();
        }
      }
    }

    const rows = ours.map((result) => {
      const baseline = nginxResults.find((r) => r.target === result.target);
      return [
        result.target,
        result.responseBytes === undefined ? "" : String(result.responseBytes),
        String(result.requestsPerSecond),
        result.p50Ms.toFixed(2),
        result.p99Ms.toFixed(2),
        Object.entries(result.statuses)
          .map(([status, count]) => `${status}:${count}`)
          .join(" "),
        baseline ? String(baseline.requestsPerSecond) : "",
        baseline ? baseline.p99Ms.toFixed(2) : "",
        baseline ? (result.requestsPerSecond / baseline.requestsPerSecond).toFixed(2) : "",
      ];
    });
    console.log(
      table(
        ["target", "body B", "req/s", "p50 ms", "p99 ms", "statuses", "nginx req/s", "nginx p99", "ours/nginx"],
        rows,
      ),
    );
    if (!options.useWrk && nginxResults.length) {
      // Measured here: autocannon tops out near 27k req/s (16k for 40 KB pages), far below nginx.
      nginxNote =
        "autocannon (one JS thread) saturates before nginx does, so the nginx rates and ratios flatter us; use wrk.";
    }
    if (nginxNote) console.log(`nginx: ${nginxNote}`);
    return {
      tool: options.useWrk ? "wrk" : "autocannon",
      threads: options.useWrk ? options.threads : null,
      connections: options.connections,
      durationSeconds: options.durationS,
      warmupSeconds: options.warmupS,
      ours,
      nginx: nginxResults,
      nginxNote,
    };
  } finally {
    await fs.rm(tmp, { recursive: true, force: true });
  }
}
