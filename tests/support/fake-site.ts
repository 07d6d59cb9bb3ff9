import fs from "node:fs/promises";
import http from "node:http";
import type { AddressInfo } from "node:net";
import os from "node:os";
import path from "node:path";
import { parseEnv } from "~/env.server";
import { createLogger } from "~/lib/logger.server";
import { createRequestListener } from "../../server/app";
import { openServices } from "../../server/bootstrap";
import { createPageCache } from "../../server/page-cache";
import { fakeReactRouterBuild, type FakePage } from "./fake-react-router-build";

export type RawResponse = { status: number; headers: http.IncomingHttpHeaders; body: string };

/**
 * The server's real request listener (cached-page responder, Express, React
 * Router) over a real SQLite file, with a page cache as in production and a
 * stand-in build whose page the test writes. Requests go over a real socket
 * with exactly the headers given.
 */
export async function startFakeSite(page: FakePage, envOverrides: Record<string, string> = {}) {
  const dataDir = await fs.mkdtemp(path.join(os.tmpdir(), "cornerstone-site-"));
  const env = parseEnv({ DATA_DIR: dataDir, LOG_LEVEL: "silent", NODE_ENV: "test", ...envOverrides });
  const pageCache = createPageCache();
  const services = await openServices(env, createLogger({ level: env.LOG_LEVEL }), {
    onPublicContentChanged: () => pageCache.clear(),
  });
  const listener = createRequestListener(services, {
    reactRouter: { build: fakeReactRouterBuild(page), mode: "production" },
    pageCache,
  });
  const server = http.createServer(listener).listen(0, "127.0.0.1");
  await new Promise((resolve) => server.once("listening", resolve));
  const { port } = server.address() as AddressInfo;

  function request(
    method: string,
    pathname: string,
    headers: Record<string, string> = {},
    body?: string,
  ): Promise<RawResponse> {
    return new Promise((resolve, reject) => {
      const req = http.request({ host: "127.0.0.1", port, method, path: pathname, headers }, (res) => {
        let text = "";
        res.setEncoding("latin1");
        res.on("data", (chunk: string) => (text += chunk));
        res.on("end", () => resolve({ status: res.statusCode ?? 0, headers: res.headers, body: text }));
      });
      req.on("error", reject);
      req.end(body);
    });
  }

  return {
    origin: `http://127.0.0.1:${port}`,
    services,
    pageCache,
    request,
    async close() {
      server.closeAllConnections();
      await new Promise((resolve) => server.close(resolve));
      await services.db.destroy();
      await fs.rm(dataDir, { recursive: true, force: true });
    },
  };
}

export type FakeSite = Awaited<ReturnType<typeof startFakeSite>>;

/** A promise and the function that resolves it. */
export function gate() {
  let open!: () => void;
  const opened = new Promise<void>((resolve) => (open = resolve));
  return { open, opened };
}
