import type { Request, Response } from "express";
import { sendCachedCopy } from "./cached-page-responder";
import { preparePage, type CachedPage, type PageCache } from "./page-cache";

/** Stores a response and sends this first copy under its own CSP (its nonce is the one in the body). */
export function storeAndSend(
  req: Request,
  res: Response,
  entry: {
    cache: PageCache;
    key: string;
    /** The cache generation read before the content was: a write since then means it is stale. */
    generation: number;
    routeHeaders: Record<string, string>;
    body: Buffer;
    /** 200, or 404 for the not-found page. */
    status?: number;
    cacheControl?: "no-cache" | "no-store";
  },
): CachedPage {
  const page = preparePage({
    status: entry.status,
    frameHeaders: res.getHeaders(),
    routeHeaders: entry.routeHeaders,
    cspNonce: res.locals.cspNonce,
    body: entry.body,
    cacheControl: entry.cacheControl,
  });
  entry.cache.set(entry.key, page, entry.generation);
  setHeaders(res, page.sharedHeaders);
  sendCachedCopy(req, res, page, []);
  return page;
}

/** Sets flat [name, value, …] headers one by one, replacing what the middleware set. */
export function setHeaders(res: Response, headers: readonly string[]) {
  for (let i = 0; i < headers.length; i += 2) res.setHeader(headers[i]!, headers[i + 1]!);
}
