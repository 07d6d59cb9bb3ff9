/**
 * The "backends" part of `npm run bench`: the same production build on its two back ends, in the
 * same run, loaded the same way:
 *   SQLite + local disk (the default install) and PostgreSQL 15 + an S3 bucket (a throwaway
 *   cluster and s3rver, from tests/support/backends.ts), both seeded with the demo galleries.
 * Measured: GET / and the public API reads (cached, as visitors get them, and with a query string,
 * which skips the page cache and renders from the database), one image variant from /media/, and
 * one enquiry's latency (POST /api/contact, one at a time, a new client address each).
 */
import { spawn } from "node:child_process";
import { existsSync } from "node:fs";
import { createRequire } from "node:module";
import { parseEnv } from "~/env.server";
import { seedDemoGallery } from "~/galleries/demo-images.server";
import type { GalleryType } from "~/galleries/gallery";
import { createLogger } from "~/lib/logger.server";
import { openServices } from "../server/bootstrap";
import { startScaledBackends } from "../tests/support/backends";
import { round, table } from "./lib/bench-report";
import { WRK, wrkMs } from "./lib/load-generators";
import { DEMO_GALLERIES, PRODUCTION_MALLOC_ENV, ensureBuild, freePort } from "./lib/production-server";
import { startTestServer, type TestServer } from "../tests/support/test-server";

export type BackendsBenchOptions = { durationSeconds: number; connections: number; threads: number; tool?: string };

type Measured = { requestsPerSecond: number; p99Ms: number; non2xx: number };

/** wrk when installed (else autocannon): one GET target for `seconds`. */
async function load(url: string, seconds: number, options: BackendsBenchOptions): Promise<Measured> {
  if (options.tool !== "autocannon" && existsSync(WRK)) {
    // Asynchronously: the S3 server (s3rver) runs in this process and must keep answering meanwhile.
    const child = spawn(WRK, [`-t${options.threads}`, `-c${options.connections}`, `-d${seconds}s`, "--latency", url]);
    let out = "";
    child.stdout.on("data", (chunk) => (out += chunk));
    child.stderr.on("data", (chunk) => (out += chunk));
    const status = await new Promise<number | null>((resolve) => child.once("close", resolve));
    if (status !== 0) throw new Error(`wrk failed: ${out}`);
    return {
      requestsPerSecond: round(Number(/Requests\/sec:\s+([\d.]+)/.exec(out)![1]), 0),
      p99Ms: round(wrkMs(/^\s+99%\s+(\S+)\s*$/m.exec(out)![1]!)),
      non2xx: Number(/Non-2xx or 3xx responses: (\d+)/.exec(out)?.[1] ?? 0),
    };
  }
  type Autocannon = (
    o: Record<string, unknown>,
  ) => Promise<{ requests: { average: number }; latency: { p99: number }; non2xx: number }>;
  const autocannon = createRequire(import.meta.url)("autocannon") as Autocannon;
  const result = await autocannon({ url, connections: options.connections, duration: seconds });
  return { requestsPerSecond: round(result.requests.average, 0), p99Ms: result.latency.p99, non2xx: result.non2xx };
}

/** One enquiry at a time, each from a new client address: p50/p99 of the whole request, in ms. */
async function enquiryLatency(
  server: TestServer,
  count: number,
): Promise<{ p50Ms: number; p99Ms: number; count: number }> {
  const times: number[] = [];
  for (let i = 0; i < count; i++) {
    const started = performance.now();
    const res = await fetch(`${server.url}/api/contact`, {
      signal: AbortSignal.timeout(30_000),
      method: "POST",
      headers: {
        "Content-Type": "application/json",
        "X-Forwarded-For": `10.77.${Math.floor(i / 250)}.${(i % 250) + 1}`,
      },
      body: JSON.stringify({
        name: "Bench Visitor",
        email: "bench@example.com",
        message: "Could you quote for a 12 m dry-stone wall, please?",
      }),
    });
    await res.arrayBuffer();
    if (res.status !== 201) throw new Error(`POST /api/contact answered ${res.status}`);
    times.push(performance.now() - started);
  }
  times.sort((a, b) => a - b);
  const at = (q: number) => times[Math.min(times.length - 1, Math.ceil(q * times.length) - 1)]!;
  return { p50Ms: round(at(0.5)), p99Ms: round(at(0.99)), count };
}

async function seed(env: Record<string, string>) {
  const services = await openServices(parseEnv({ ...env, LOG_LEVEL: "silent" }), createLogger({ level: "silent" }));
  try {
    for (const [galleryType, count] of Object.entries(DEMO_GALLERIES) as [GalleryType, number][]) {
      await seedDemoGallery(services, galleryType, count);
    }
  } finally {
    await services.close();
  }
}

export async function benchBackends(options: BackendsBenchOptions) {
  ensureBuild();
  console.log(
    `\n== Back ends: SQLite + disk vs PostgreSQL 15 + S3 (s3rver), ${options.durationSeconds} s at ${options.connections} connections each`,
  );
  const backends = await startScaledBackends();
  const servers: { name: string; server: TestServer; cleanup?: () => Promise<void> }[] = [];
  try {
    const common = { ...PRODUCTION_MALLOC_ENV, TRUST_PROXY: "loopback", LOG_LEVEL: "warn" };
    const sqlite = await startTestServer({ env: common, prepare: (dataDir) => seed({ DATA_DIR: dataDir }) });
    servers.push({ name: "SQLite + disk", server: sqlite });
    const port = await freePort();
    const provisioned = await backends.provision([`http://127.0.0.1:${port}`]);
    const postgres = await startTestServer({
      port,
      env: { ...common, ...provisioned.env },
      prepare: (dataDir) => seed({ DATA_DIR: dataDir, SITE_URL: `http://127.0.0.1:${port}`, ...provisioned.env }),
    });
    servers.push({ name: "PostgreSQL + S3", server: postgres, cleanup: provisioned.remove });

    const variant = (
      (await (await fetch(`${sqlite.url}/api/galleries/homepage`)).json()) as { imagePath: string }[]
    )[0]!.imagePath;
    const variantOnPostgres = (
      (await (await fetch(`${postgres.url}/api/galleries/homepage`)).json()) as { imagePath: string }[]
    )[0]!.imagePath;
    const targets = [
      { name: "GET /", path: () => "/" },
      { name: "GET /api/content/hero.title", path: () => "/api/content/hero.title" },
      { name: "GET /api/galleries/homepage", path: () => "/api/galleries/homepage" },
      { name: "GET /?uncached (renders from the database)", path: () => "/?uncached" },
      { name: "GET /api/galleries/homepage?uncached", path: () => "/api/galleries/homepage?uncached" },
      {
        name: "GET /media/<960w JPEG> (disk / bucket)",
        path: (server: TestServer) => (server === sqlite ? variant : variantOnPostgres),
      },
    ];
    const results: { target: string; backend: string; requestsPerSecond: number; p99Ms: number; non2xx: number }[] = [];
    for (const target of targets) {
      for (const { name, server } of servers) {
        const url = server.url + target.path(server);
        await load(url, 2, options); // warm-up, discarded
        const measured = await load(url, options.durationSeconds, options);
        console.error(`  ${name} ${target.name}: ${measured.requestsPerSecond} req/s, p99 ${measured.p99Ms} ms`);
        results.push({ target: target.name, backend: name, ...measured });
      }
    }
    const enquiries = [];
    for (const { name, server } of servers) enquiries.push({ backend: name, ...(await enquiryLatency(server, 200)) });

    const cell = (target: string, backend: string) =>
      results.find((r) => r.target === target && r.backend === backend)!;
    console.log(
      table(
        ["target", "SQLite req/s", "p99 ms", "PostgreSQL req/s", "p99 ms", "PG/SQLite"],
        targets.map(({ name }) => {
          const [a, b] = [cell(name, "SQLite + disk"), cell(name, "PostgreSQL + S3")];
          return [
            name,
            String(a.requestsPerSecond),
            a.p99Ms.toFixed(2),
            String(b.requestsPerSecond),
            b.p99Ms.toFixed(2),
            (b.requestsPerSecond / a.requestsPerSecond).toFixed(2),
          ];
        }),
      ),
    );
    console.log(
      table(
        ["one enquiry (POST /api/contact, one at a time)", "p50 ms", "p99 ms"],
        enquiries.map((e) => [e.backend, e.p50Ms.toFixed(2), e.p99Ms.toFixed(2)]),
      ),
    );
    if (results.some((r) => r.non2xx > 0)) console.log("Some responses were not 2xx: see reports/bench.json.");
    return {
      date: new Date().toISOString(),
      connections: options.connections,
      durationSeconds: options.durationSeconds,
      results,
      enquiries,
    };
  } finally {
    for (const { server, cleanup } of servers) {
      await server.stop();
      await cleanup?.();
    }
    await backends.stop();
  }
}
