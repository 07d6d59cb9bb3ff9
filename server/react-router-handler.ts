import { Readable, Transform } from "node:stream";
import { pipeline } from "node:stream/promises";
import type { ReadableStream as NodeReadableStream } from "node:stream/web";
import type { Request as ExpressRequest, RequestHandler, Response as ExpressResponse } from "express";
import { createRequestHandler, type ServerBuild } from "react-router";
import type { AppServices } from "~/services.server";
import { cachedCopyHeaders, sendCachedCopy } from "./cached-page-responder";
import { setHeaders, storeAndSend } from "./cached-response";
import { HttpError } from "./http-error";
import { cacheKeyFor, type CachedPage, type PageCache } from "./page-cache";
import { isHttpsSite } from "./middleware/session";
import { notFoundKeys } from "./not-found-page";

/** Form posts to pages (the no-JS contact form) are small; refuse anything bigger. */
const PAGE_BODY_LIMIT_BYTES = 64 * 1024;

function limitBytes(limit: number) {
  let seen = 0;
  return new Transform({
    transform(chunk: Buffer, _encoding, callback) {
      seen += chunk.length;
      if (seen > limit) callback(new HttpError(413, "Request body too large"));
      else callback(null, chunk);
    },
  });
}

/** Express → Fetch Request; a post the cross-site check refused becomes a plain GET (no action runs). */
function toFetchRequest(req: ExpressRequest, res: ExpressResponse): Request {
  const url = new URL(req.originalUrl, `${req.protocol}://${req.get("host") ?? "localhost"}`);
  const headers = new Headers();
  for (const [name, value] of Object.entries(req.headers)) {
    if (value === undefined) continue;
    if (Array.isArray(value)) for (const v of value) headers.append(name, v);
    else headers.set(name, value);
  }
  const controller = new AbortController();
  res.on("close", () => controller.abort());

  const refused = res.locals.crossSiteRefused === true;
  const init: RequestInit & { duplex?: "half" } = {
    method: refused ? "GET" : req.method,
    headers,
    signal: controller.signal,
  };
  const contactPost = res.locals.contactPost;
  if (refused) {
    for (const name of ["content-type", "content-length", "transfer-encoding", "origin"]) headers.delete(name);
  } else if (contactPost) {
    // Read already (server/middleware/contact-multipart.ts): the action gets its text fields as a plain form.
    for (const name of ["content-length", "transfer-encoding"]) headers.delete(name);
    headers.set("content-type", "application/x-www-form-urlencoded;charset=UTF-8");
    init.body = new URLSearchParams(contactPost.fields).toString();
  } else if (req.method !== "GET" && req.method !== "HEAD") {
    const declared = Number(req.get("content-length") ?? 0);
    if (declared > PAGE_BODY_LIMIT_BYTES) throw new HttpError(413, "Request body too large");
    init.body = Readable.toWeb(req.pipe(limitBytes(PAGE_BODY_LIMIT_BYTES))) as ReadableStream;
    init.duplex = "half";
  }
  return new Request(url, init);
}

/** Fetch API Response → the Express response, streaming the body. */
async function sendFetchResponse(res: ExpressResponse, response: Response): Promise<void> {
  // A refused cross-site post shows the page (with its notice) as a 403.
  res.status(res.locals.crossSiteRefused === true && response.status === 200 ? 403 : response.status);
  for (const [name, value] of response.headers) {
    if (name === "set-cookie") continue;
    res.setHeader(name, value);
  }
  const cookies = response.headers.getSetCookie();
  if (cookies.length) res.setHeader("Set-Cookie", cookies);
  if (!response.body) {
    res.end();
    return;
  }
  res.flushHeaders();
  await pipeline(Readable.fromWeb(response.body as NodeReadableStream), res);
}

export type ReactRouterBuild = ServerBuild | (() => Promise<ServerBuild>);

/** Sends a render, storing it when it is a plain 200 with real content. */
async function renderAndCache(
  req: ExpressRequest,
  res: ExpressResponse,
  response: Response,
  entry: { key: string; cache: PageCache; generation: number; degraded: () => boolean; status: 200 | 404 },
): Promise<CachedPage | undefined> {
  if (response.status !== entry.status || response.headers.has("set-cookie") || !response.body) {
    await sendFetchResponse(res, response);
    return undefined;
  }
  const routeHeaders = Object.fromEntries(response.headers);
  const body = Buffer.from(await response.arrayBuffer());
  // Read after the whole body, when every read the render made has reported a fallback or not.
  if (entry.degraded()) {
    // Fallback text stands in for a failed database read: show it, keep it nowhere.
    res.status(response.status).set(routeHeaders).set("Cache-Control", "no-store").send(body);
    return undefined;
  }
  return storeAndSend(req, res, {
    cache: entry.cache,
    key: entry.key,
    generation: entry.generation,
    routeHeaders,
    body,
    status: entry.status,
  });
}

/** Hands a request to React Router, with the app's services in the load context. */
export function reactRouterHandler(options: {
  build: ReactRouterBuild;
  mode: "production" | "development";
  services: AppServices;
  pageCache?: PageCache;
}): RequestHandler {
  const handle = createRequestHandler(options.build, options.mode);
  // The page cache is production's, where the build is a module, not a loader.
  const notFoundKeyFor =
    options.pageCache && typeof options.build !== "function" ? notFoundKeys(options.build) : () => null;
  return async (req, res) => {
    const cache = options.pageCache;
    const pageKey = cache ? cacheKeyFor(req.method, req.originalUrl) : null;
    const notFoundKey = cache && !pageKey ? notFoundKeyFor(req.method, req.originalUrl) : null;
    const key = pageKey ?? notFoundKey;
    let degraded = false;
    const render = () =>
      handle(toFetchRequest(req, res), {
        services: options.services,
        cspNonce: res.locals.cspNonce,
        clientIp: req.ip ?? "unknown",
        crossSiteRefused: res.locals.crossSiteRefused === true,
        contactPhotos: res.locals.contactPost?.photos,
        markDegraded: () => {
          degraded = true;
        },
      });
    if (!cache || !key) {
      await sendFetchResponse(res, await render());
      return;
    }

    // Another request may have rendered this page since this one passed the cache, or be rendering it now.
    const underWay = cache.inFlight(key);
    const rendered = cache.get(key) ?? (underWay ? await underWay : undefined);
    if (rendered) {
      // Send that copy, under this response's nonce.
      setHeaders(
        res,
        cachedCopyHeaders(rendered, res.locals.cspNonce, req.secure || isHttpsSite(options.services.env)),
      );
      sendCachedCopy(req, res, rendered, []);
      return;
    }

    const generation = cache.generation;
    let settle!: (page: CachedPage | undefined) => void;
    cache.track(key, new Promise((resolve) => (settle = resolve)));
    try {
      const status = notFoundKey ? 404 : 200;
      settle(
        await renderAndCache(req, res, await render(), { key, cache, generation, degraded: () => degraded, status }),
      );
    } catch (error) {
      settle(undefined);
      throw error;
    }
  };
}
