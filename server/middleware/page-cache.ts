import type { Request, RequestHandler, Response } from "express";
import { cacheKeyFor, type CachedPage, type PageCache } from "../page-cache";

/**
 * Runs before the security headers: a cached page's inline-script hashes must
 * be in this response's CSP (its scripts carry an older nonce).
 */
export function findCachedPage(pageCache: PageCache): RequestHandler {
  return (req, res, next) => {
    const key = cacheKeyFor(req.method, req.originalUrl);
    const page = key ? pageCache.get(key) : undefined;
    if (page) {
      res.locals.cachedPage = page;
      res.locals.scriptHashes = page.scriptHashes;
    }
    next();
  };
}

/** Answers from the cache found above, after the security headers are set. */
export const serveCachedPage: RequestHandler = (req, res, next) => {
  const page = res.locals.cachedPage;
  if (!page) return next();
  sendCachedPage(req, res, page);
};

function preferredEncoding(req: Request): "br" | "gzip" | null {
  const accepted = req.get("accept-encoding") ?? "";
  if (/\bbr\b/.test(accepted)) return "br";
  if (/\bgzip\b/.test(accepted)) return "gzip";
  return null;
}

/** Precompressed bytes, an ETag, and 304 when the browser already has them. */
export function sendCachedPage(req: Request, res: Response, page: CachedPage): void {
  res.set(page.headers);
  res.set({
    // Browsers revalidate every time (cheap with the ETag), so an edit shows at once.
    "Cache-Control": "no-cache",
    ETag: page.etag,
    Vary: "Accept-Encoding",
  });
  if (req.get("if-none-match") === page.etag) {
    res.status(304).end();
    return;
  }
  const encoding = preferredEncoding(req);
  const body = encoding === "br" ? page.brotli : encoding === "gzip" ? page.gzip : page.body;
  if (encoding) res.set("Content-Encoding", encoding);
  res.set("Content-Length", String(body.length));
  res.status(200);
  if (req.method === "HEAD") res.end();
  else res.end(body);
}

declare module "express-serve-static-core" {
  interface Locals {
    cachedPage?: CachedPage;
  }
}
