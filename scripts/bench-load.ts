/** The "load" part of `npm run bench`: autocannon against each of LOAD_TARGETS on the production build. */
import { autocannon, statusCounts } from "./lib/autocannon";
import { round, table } from "./lib/bench-report";
import { rawGet } from "./lib/http-raw";
import type { ProductionServer } from "./lib/production-server";

/** The load part's settings, from the bench's command line. */
export type LoadOptions = {
  durationS: number;
  /** Seconds of warm-up before each measured run (discarded). */
  warmupS: number;
  connections: number;
};

type Target = {
  name: string;
  method: "GET" | "POST";
  path: string;
  /** POST only: a different X-Forwarded-For per request, so the per-IP limit never trips. */
  varyClientIp?: boolean;
  /** Ask for brotli, as every phone browser does. */
  brotli?: boolean;
};

export type LoadResult = {
  target: string;
  requestsPerSecond: number;
  p50Ms: number;
  p99Ms: number;
  requests: number;
  statuses: Record<string, number>;
  socketErrors: number;
  responseBytes?: number;
};

const LOAD_TARGETS: Target[] = [
  { name: "GET /", method: "GET", path: "/" },
  { name: "GET / (br, as browsers ask)", method: "GET", path: "/", brotli: true },
  { name: "GET /stonework", method: "GET", path: "/stonework" },
  { name: "GET /api/content/hero.title", method: "GET", path: "/api/content/hero.title" },
  { name: "GET /api/galleries/homepage", method: "GET", path: "/api/galleries/homepage" },
  { name: "POST /api/contact (one IP: rate-limited)", method: "POST", path: "/api/contact" },
  { name: "POST /api/contact (varying IP: accepted)", method: "POST", path: "/api/contact", varyClientIp: true },
];

/** A valid enquiry for POST /api/contact. */
const ENQUIRY = JSON.stringify({
  name: "Load Test",
  email: "load.test@example.com",
  message: "Could you quote for a 12 m dry-stone garden wall, please?",
});

async function run(url: string, target: Target, seconds: number, connections: number) {
  let counter = Math.floor(Math.random() * 2 ** 24);
  const result = await autocannon({
    url: url + target.path,
    connections,
    duration: seconds,
    method: target.method,
    ...(target.method === "POST" && { headers: { "content-type": "application/json" }, body: ENQUIRY }),
    ...(target.brotli && { headers: { "accept-encoding": "br" } }),
    ...(target.varyClientIp && {
      requests: [
        {
          setupRequest: (request: { headers?: Record<string, string> }) => {
            counter = (counter + 1) % 2 ** 24;
            const ip = `10.${(counter >> 16) & 255}.${(counter >> 8) & 255}.${counter & 255}`;
            return { ...request, headers: { ...request.headers, "x-forwarded-for": ip } };
          },
        },
      ],
    }),
  });
  return {
    requestsPerSecond: round(result.requests.average, 0),
    p50Ms: result.latency.p50,
    p99Ms: result.latency.p99,
    requests: result.requests.total,
    statuses: statusCounts(result),
    socketErrors: result.errors + result.timeouts,
  };
}

const statusList = (result: LoadResult) =>
  Object.entries(result.statuses)
    .map(([status, count]) => `${status}:${count}`)
    .join(" ");

export async function loadPart(server: ProductionServer, options: LoadOptions) {
  console.log(
    `\n== Load: ${options.durationS} s, ${options.connections} connections, autocannon, ${options.warmupS} s warm-up each`,
  );
  const ours: LoadResult[] = [];
  for (const target of LOAD_TARGETS) {
    await run(server.url, target, options.warmupS, options.connections);
    const result: LoadResult = {
      target: target.name,
      ...(await run(server.url, target, options.durationS, options.connections)),
    };
    if (target.method === "GET") {
      const response = await rawGet(server.url + target.path, target.brotli ? { "Accept-Encoding": "br" } : {});
      if (target.brotli && response.headers["content-encoding"] !== "br")
        throw new Error(`${target.path} was not sent with brotli`);
      result.responseBytes = response.wireBytes;
    }
    console.error(
      `  ${target.name}: ${result.requestsPerSecond} req/s, p99 ${result.p99Ms} ms [${statusList(result)}]`,
    );
    ours.push(result);
  }
  const rows = ours.map((result) => [
    result.target,
    result.responseBytes === undefined ? "" : String(result.responseBytes),
    String(result.requestsPerSecond),
    result.p50Ms.toFixed(2),
    result.p99Ms.toFixed(2),
    statusList(result),
  ]);
  console.log(table(["target", "body B", "req/s", "p50 ms", "p99 ms", "statuses"], rows));
  return {
    tool: "autocannon",
    connections: options.connections,
    durationSeconds: options.durationS,
    warmupSeconds: options.warmupS,
    ours,
  };
}
