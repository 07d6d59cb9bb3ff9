// @same-on-every-backend: it picks its own database and storage, or runs scripts on a data directory
import { spawn, type ChildProcess } from "node:child_process";
import { createHash } from "node:crypto";
import fs from "node:fs/promises";
import http from "node:http";
import os from "node:os";
import path from "node:path";
import { afterAll, beforeAll, expect, test } from "vitest";
import type { AnalyticsReport } from "~/analytics/report";
import { signInOverHttp } from "../support/admin-api-client";
import { CHROMIUM_FLAGS, CHROMIUM_PATH } from "../support/chromium";
import { freePort, startTestServer, type TestServer } from "../support/test-server";

/**
 * Instant page changes with a real prerender. Chromium starts no prerender from a page a
 * DevTools session is attached to (decision 0055), and Playwright attaches to every page, so here
 * Chromium runs on its own, without any remote debugging, and a same-origin front in front of the
 * production server records what it asks for: the harness page prerenders /stonework and
 * /landscaping, then opens /stonework only.
 */

type LoggedRequest = { method: string; path: string; purpose: string | undefined };

// A browser's user agent: HeadlessChrome is a bot, and bots are not counted.
const USER_AGENT =
  "Mozilla/5.0 (X11; Linux x86_64) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/156.0.0.0 Safari/537.36 PrerenderTest/1";
const PRERENDER = "prefetch;prerender";

const HARNESS_PAGE = `<!doctype html><title>harness</title>
<script type="speculationrules">{"prerender":[{"urls":["/stonework","/landscaping"],"eagerness":"immediate"}]}</script>
<script>
  // The front answers once it has seen both prerender requests; then the visitor opens one page.
  fetch("/__harness/prerendered").then(function () { location.href = "/stonework"; });
</script>`;

/**
 * Added to the shown page by the front (its hash allowed in the page's CSP): reports, once the page
 * is shown, its navigation's activationStart (above 0 only for a prerender that was activated).
 */
const ACTIVATION_PROBE = `(function(){var r=function(){var n=performance.getEntriesByType("navigation")[0];navigator.sendBeacon("/__harness/activation?start="+n.activationStart)};if(document.prerendering)document.addEventListener("prerenderingchange",r,{once:true});else r()})()`;
const ACTIVATION_PROBE_HASH = `'sha256-${createHash("sha256").update(ACTIVATION_PROBE).digest("base64")}'`;

let server: TestServer;
let front: http.Server;
let frontUrl: string;
let chromium: ChildProcess | undefined;
let profileDir: string | undefined;
const requests: LoggedRequest[] = [];
const activationStarts: number[] = [];
const waitingForPrerenders: http.ServerResponse[] = [];

const prerendered = (page: string) => requests.some((r) => r.path === page && r.purpose === PRERENDER);

function answerWaitingHarness() {
  if (!prerendered("/stonework") || !prerendered("/landscaping")) return;
  for (const res of waitingForPrerenders.splice(0)) res.end("ok");
}

beforeAll(async () => {
  const port = await freePort();
  frontUrl = `http://127.0.0.1:${port}`;
  // The site must know the front's origin as its own (SITE_URL), since the browser only sees the front.
  server = await startTestServer({ env: { SITE_URL: frontUrl } });
  front = http.createServer((req, res) => {
    const url = new URL(req.url!, frontUrl);
    const purpose = req.headers["sec-purpose"];
    requests.push({
      method: req.method!,
      path: url.pathname,
      purpose: typeof purpose === "string" ? purpose : undefined,
    });
    if (url.pathname === "/__harness")
      return void res.writeHead(200, { "Content-Type": "text/html" }).end(HARNESS_PAGE);
    if (url.pathname === "/__harness/prerendered") {
      waitingForPrerenders.push(res);
      return answerWaitingHarness();
    }
    if (url.pathname === "/__harness/activation") {
      activationStarts.push(Number(url.searchParams.get("start")));
      return void res.writeHead(204).end();
    }
    answerWaitingHarness();
    const probed = url.pathname === "/stonework";
    const headers = { ...req.headers, host: `127.0.0.1:${port}`, "x-forwarded-for": "198.51.100.7" };
    if (probed) headers["accept-encoding"] = "identity";
    const upstream = http.request(`${server.url}${req.url}`, { method: req.method, headers }, (upstreamRes) => {
      if (!probed) {
        res.writeHead(upstreamRes.statusCode!, upstreamRes.headers);
        return void upstreamRes.pipe(res);
      }
      const chunks: Buffer[] = [];
      upstreamRes.on("data", (chunk: Buffer) => chunks.push(chunk));
      upstreamRes.on("end", () => {
        const html = Buffer.concat(chunks)
          .toString("utf8")
          .replace("</head>", `<script>${ACTIVATION_PROBE}</script></head>`);
        const csp = String(upstreamRes.headers["content-security-policy"]).replace(
          "script-src",
          `script-src ${ACTIVATION_PROBE_HASH}`,
        );
        const body = Buffer.from(html);
        res.writeHead(upstreamRes.statusCode!, {
          ...upstreamRes.headers,
          "content-security-policy": csp,
          "content-length": body.length,
        });
        res.end(body);
      });
    });
    upstream.on("error", () => res.destroy());
    req.pipe(upstream);
  });
  await new Promise<void>((resolve) => front.listen(port, "127.0.0.1", resolve));
});

afterAll(async () => {
  if (chromium && chromium.exitCode === null && chromium.signalCode === null) {
    const exited = new Promise((resolve) => chromium!.once("exit", resolve));
    // The whole process group: Debian's wrapper script and every Chromium process it started.
    process.kill(-chromium.pid!, "SIGKILL");
    await exited;
  }
  if (profileDir) await fs.rm(profileDir, { recursive: true, force: true });
  if (front) {
    const closed = new Promise((resolve) => front.close(resolve));
    front.closeAllConnections();
    await closed;
  }
  await server?.stop();
});

async function readReport(cookie: string): Promise<AnalyticsReport> {
  const res = await fetch(`${server.url}/api/admin/analytics`, { headers: { Cookie: cookie } });
  expect(res.status).toBe(200);
  return (await res.json()) as AnalyticsReport;
}

const pageViews = (report: AnalyticsReport, page: string) => report.topPages.find((p) => p.path === page)?.views ?? 0;

test(
  "a real prerender that is shown counts once, by its beacon; one never shown counts nothing",
  { timeout: 90_000 },
  async () => {
    const cookie = await signInOverHttp(server.url);
    const before = await readReport(cookie);

    profileDir = await fs.mkdtemp(path.join(os.tmpdir(), "cornerstone-prerender-"));
    let chromiumOutput = "";
    // No --remote-debugging-*: a DevTools session would stop the prerender (PrerenderingDisabledByDevTools).
    chromium = spawn(
      CHROMIUM_PATH,
      [
        ...CHROMIUM_FLAGS,
        "--headless=new",
        `--user-data-dir=${profileDir}`,
        `--user-agent=${USER_AGENT}`,
        `${frontUrl}/__harness`,
      ],
      // Its own process group, for afterAll to end.
      { detached: true, stdio: ["ignore", "pipe", "pipe"] },
    );
    chromium.stdout!.on("data", (chunk) => (chromiumOutput += chunk));
    chromium.stderr!.on("data", (chunk) => (chromiumOutput += chunk));

    const beacons = () => requests.filter((r) => r.method === "POST" && r.path === "/api/page-views/shown");
    try {
      // /stonework is shown once its page reports its activation.
      await expect.poll(() => activationStarts.length, { timeout: 60_000 }).toBe(1);
      await expect.poll(() => beacons().length).toBe(1);
    } catch (error) {
      throw new Error(
        `No shown prerender.\nRequests: ${JSON.stringify(requests)}\nChromium: ${chromiumOutput.slice(-4000)}`,
        { cause: error },
      );
    }

    // Fetched once, as a prerender, and shown without a second document request: activated, not reloaded.
    expect(requests.filter((r) => r.path === "/stonework")).toEqual([
      { method: "GET", path: "/stonework", purpose: PRERENDER },
    ]);
    expect(activationStarts[0]).toBeGreaterThan(0);
    // Prerendered too, but never shown.
    expect(requests.filter((r) => r.path === "/landscaping")).toEqual([
      { method: "GET", path: "/landscaping", purpose: PRERENDER },
    ]);

    // One view of the page shown; none of the page prerendered but never shown.
    const viewsSince = (report: AnalyticsReport) => ({
      stonework: pageViews(report, "/stonework") - pageViews(before, "/stonework"),
      landscaping: pageViews(report, "/landscaping") - pageViews(before, "/landscaping"),
      total: report.totals.views - before.totals.views,
      visitors: report.totals.visitors - before.totals.visitors,
    });
    await expect
      .poll(async () => viewsSince(await readReport(cookie)))
      .toEqual({ stonework: 1, landscaping: 0, total: 1, visitors: 1 });
    // Sent once, after activation: a request from a page still prerendering carries Sec-Purpose.
    expect(beacons()).toEqual([{ method: "POST", path: "/api/page-views/shown", purpose: undefined }]);
  },
);
