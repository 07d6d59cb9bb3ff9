import fs from "node:fs/promises";
import http from "node:http";
import type { AddressInfo } from "node:net";
import os from "node:os";
import path from "node:path";
import { setFlagsFromString } from "node:v8";
import { runInNewContext } from "node:vm";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createApp } from "../../server/app";
import { listPrecompressedAssets } from "../../server/precompressed-assets";
import { createTestContext, type TestContext } from "./helpers";

/**
 * A real garbage collection, so heap figures are what is still referenced:
 * the flag is switched on at run time and `gc` taken from a fresh context
 * (the same function `node --expose-gc` gives).
 */
function collectGarbage(): () => void {
  setFlagsFromString("--expose-gc");
  return runInNewContext("gc") as () => void;
}

let ctx: TestContext;
let assetsDir: string;
let server: http.Server;
let base: string;

beforeAll(async () => {
  ctx = await createTestContext();
  const clientDir = await fs.mkdtemp(path.join(os.tmpdir(), "cornerstone-assets-"));
  assetsDir = path.join(clientDir, "assets");
  await fs.mkdir(assetsDir);
  await fs.writeFile(path.join(assetsDir, "entry-AbC123.js"), "console.log('hello');\n".repeat(100));
  await fs.writeFile(path.join(assetsDir, "entry-AbC123.js.br"), "brotli bytes");
  await fs.writeFile(path.join(assetsDir, "entry-AbC123.js.gz"), "gzip bytes");
  await fs.writeFile(path.join(assetsDir, "small-XyZ.css"), "a{}");
  server = http.createServer(createApp(ctx.services, { clientAssetsDir: clientDir })).listen(0, "127.0.0.1");
  await new Promise((resolve) => server.once("listening", resolve));
  base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
});
afterAll(async () => {
  server.closeAllConnections();
  await new Promise((resolve) => server.close(resolve));
  await fs.rm(path.dirname(assetsDir), { recursive: true, force: true });
  await ctx.close();
});

const agent = new http.Agent({ keepAlive: true, maxSockets: 8 });

function get(
  pathname: string,
  headers: Record<string, string> = {},
): Promise<{ status: number; headers: http.IncomingHttpHeaders; body: string }> {
  return new Promise((resolve, reject) => {
    http
      .get(`${base}${pathname}`, { agent, headers }, (res) => {
        let body = "";
        res.setEncoding("utf8");
        res.on("data", (chunk: string) => (body += chunk));
        res.on("end", () => resolve({ status: res.statusCode ?? 0, headers: res.headers, body }));
      })
      .on("error", reject);
  });
}

describe("hashed assets", () => {
  it("lists the precompressed copies once, at start-up", () => {
    expect([...listPrecompressedAssets(assetsDir)]).toEqual([["entry-AbC123.js", { br: true, gz: true }]]);
  });

  it("serves the brotli copy, the gzip copy, and the plain file", async () => {
    const br = await get("/assets/entry-AbC123.js", { "Accept-Encoding": "br, gzip" });
    expect([br.status, br.headers["content-encoding"], br.body]).toEqual([200, "br", "brotli bytes"]);
    expect(br.headers["cache-control"]).toBe("public, max-age=31536000, immutable");
    const gz = await get("/assets/entry-AbC123.js", { "Accept-Encoding": "gzip" });
    expect([gz.status, gz.headers["content-encoding"], gz.body]).toEqual([200, "gzip", "gzip bytes"]);
    const css = await get("/assets/small-XyZ.css");
    expect([css.status, css.body]).toEqual([200, "a{}"]);
  });

  it("never sends a copy in a coding the browser gives q=0", async () => {
    const sent: Record<string, string | undefined> = {};
    for (const accept of ["br;q=0, gzip", "gzip, br;q=0", "br;q=0, gzip;q=0"])
      sent[accept] = (await get("/assets/entry-AbC123.js", { "Accept-Encoding": accept })).headers["content-encoding"];
    expect(sent).toEqual({ "br;q=0, gzip": "gzip", "gzip, br;q=0": "gzip", "br;q=0, gzip;q=0": undefined });
  });

  it("answers a missing asset with a short 404", async () => {
    const missing = await get("/assets/nope-123.js", { "Accept-Encoding": "br" });
    expect(missing.status).toBe(404);
    expect(missing.body).toBe("Not found");
    expect(missing.headers["cache-control"]).toBe("no-store");
  });

  it("keeps the heap within 10 MB after 20,000 requests for distinct missing names", async () => {
    const gc = collectGarbage();
    const heapUsed = () => {
      gc();
      gc();
      return process.memoryUsage().heapUsed;
    };
    // Long names, as an attacker would send: 1,000 characters each, 20 MB if each were remembered.
    const padding = "a".repeat(1_000);
    let next = 0;
    const worker = async () => {
      while (next < 20_000) {
        const i = next++;
        const res = await get(`/assets/${padding}-${i}.js`, { "Accept-Encoding": "br, gzip" });
        if (res.status !== 404) throw new Error(`expected 404, got ${res.status}`);
      }
    };
    await get("/assets/warm-up.js");
    const before = heapUsed();
    await Promise.all(Array.from({ length: 8 }, worker));
    const after = heapUsed();
    expect(next).toBe(20_000);
    const grownMb = (after - before) / 1024 / 1024;
    console.info(`heap after 20,000 missing-asset requests: ${grownMb >= 0 ? "+" : ""}${grownMb.toFixed(1)} MB`);
    expect(grownMb).toBeLessThan(10);
  }, 90_000);
});
