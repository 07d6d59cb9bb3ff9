import type { IncomingMessage, ServerResponse } from "node:http";
import type { Express } from "express";
import proxyAddress from "proxy-addr";
import type { Logger } from "~/lib/logger.server";
import { logRequest } from "./middleware/request-logger";
import { createNonce, STRICT_TRANSPORT_SECURITY } from "./middleware/security-headers";
import { cacheKeyFor, encodedBody, type CachedPage, type PageCache } from "./page-cache";

/** A cached public page straight from memory, before Express (decision 0010); false when not cached. */
export function createCachedPageResponder(
  app: Express,
  pageCache: PageCache,
  logger: Logger,
  /** SITE_URL is https://: HSTS on every copy, as the app sends it (server/middleware/security-headers.ts). */
  options: { httpsSite?: boolean } = {},
) {
  const logging = logger.isLevelEnabled("info");
  const trustProxy = app.get("trust proxy fn") as (address: string, hop: number) => boolean;

  return function respondFromCache(req: IncomingMessage, res: ServerResponse): boolean {
    const key = cacheKeyFor(req.method ?? "", req.url ?? "");
    const page = key ? pageCache.get(key) : undefined;
    if (!page) return false;
    const startedAt = logging ? process.hrtime.bigint() : 0n;
    const headers = cachedCopyHeaders(page, createNonce(), options.httpsSite || isSecure(req));
    // Says this copy came from memory, not from a render (the first response has an ETag too).
    headers.push("X-Cache", "hit");
    sendCachedCopy(req, res, page, headers);
    if (logging) {
      logRequest(logger, {
        method: req.method!,
        url: req.url!,
        status: res.statusCode,
        startedAt,
        ip: proxyAddress(req, trustProxy),
      });
    }
    return true;
  };

  /** As Express's `req.secure`, honouring X-Forwarded-Proto only from a trusted proxy. */
  function isSecure(req: IncomingMessage): boolean {
    if ((req.socket as { encrypted?: boolean }).encrypted) return true;
    const forwarded = req.headers["x-forwarded-proto"];
    if (!forwarded || !trustProxy(req.socket.remoteAddress ?? "", 0)) return false;
    const first = (Array.isArray(forwarded) ? forwarded[0] : forwarded)?.split(",")[0]?.trim();
    return first === "https";
  }
}

/** The headers of one copy of a cached page: the shared ones, a fresh CSP nonce, HSTS over HTTPS. */
export function cachedCopyHeaders(page: CachedPage, nonce: string, secure: boolean): string[] {
  const headers = page.sharedHeaders.slice();
  if (page.contentSecurityPolicy) {
    const { before, after } = page.contentSecurityPolicy;
    headers.push("Content-Security-Policy", before + nonce + after);
  }
  if (secure) headers.push("Strict-Transport-Security", STRICT_TRANSPORT_SECURITY);
  return headers;
}

/** Sends a copy of a cached page: 304 when the browser has it, else the encoding it accepts. */
export function sendCachedCopy(req: IncomingMessage, res: ServerResponse, page: CachedPage, headers: string[]): void {
  if (page.status === 200 && req.headers["if-none-match"] === page.etag) {
    res.writeHead(304, headers);
    res.end();
    return;
  }
  const { encoding, body } = encodedBody(page, req);
  if (encoding) headers.push("Content-Encoding", encoding);
  headers.push("Content-Length", String(body.length));
  res.writeHead(page.status, headers);
  if (req.method === "HEAD") res.end();
  else res.end(body);
}
