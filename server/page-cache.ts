import { createHash } from "node:crypto";
import type { IncomingMessage } from "node:http";
import accepts from "accepts";
import { brotliCompressSync, constants as zlib, gzipSync } from "node:zlib";
import { isPublicPage, publicPageOfData } from "~/public-pages";

/** The public API reads, cached the same way (their handlers store them). */
const CACHEABLE_API_PATH = /^\/api\/(?:content\/[\w.-]{1,100}|galleries\/[a-z]{1,40})$/;

export function cacheKeyFor(method: string, url: string): string | null {
  if (method !== "GET" && method !== "HEAD") return null;
  // Only the bare path: any query string (tracking tags, data revalidation) renders fresh.
  if (url.includes("?")) return null;
  // The public pages' HTML and their client-navigation data (app/public-pages.ts).
  if (isPublicPage(url) || publicPageOfData(url) !== null || CACHEABLE_API_PATH.test(url)) return url;
  return null;
}

export type CachedPage = {
  /** 200, or 404 for the not-found page (server/not-found-page.ts). */
  status: number;
  body: Buffer;
  gzip: Buffer;
  brotli: Buffer;
  etag: string;
  /** CSP hash sources of the page's inline scripts, e.g. "sha256-…". */
  scriptHashes: string[];
  /** The first response's headers shared by every visitor, flat as `writeHead` takes them; per-request ones are added. */
  sharedHeaders: readonly string[];
  /** The CSP around its nonce: `before + nonce + after`, with the script hashes in `after`. */
  contentSecurityPolicy: { before: string; after: string } | null;
};

const INLINE_SCRIPT = /<script\b([^>]*)>([\s\S]*?)<\/script>/gi;
const SRC_ATTRIBUTE = /\bsrc\s*=/i;
const NONCE_ATTRIBUTE = /\bnonce\s*=\s*"([^"]*)"/i;

/** CSP hashes of the inline scripts carrying this render's nonce; a script without it stays blocked. */
export function inlineScriptHashes(html: string, nonce: string): string[] {
  const hashes = new Set<string>();
  for (const match of html.matchAll(INLINE_SCRIPT)) {
    const attributes = match[1] ?? "";
    if (SRC_ATTRIBUTE.test(attributes) || NONCE_ATTRIBUTE.exec(attributes)?.[1] !== nonce) continue;
    hashes.add(
      `sha256-${createHash("sha256")
        .update(match[2] ?? "", "utf8")
        .digest("base64")}`,
    );
  }
  return [...hashes];
}

/** Headers that belong to one response only, never to the cached copy. */
const PER_RESPONSE_HEADERS = new Set([
  "content-security-policy",
  "strict-transport-security",
  "set-cookie",
  "date",
  "content-length",
  "content-encoding",
  "transfer-encoding",
  "connection",
  "keep-alive",
  "etag",
  "cache-control",
  "vary",
]);

/** Prepares a rendered page for the cache; `cspNonce` is replaced in later copies. */
export function preparePage(input: {
  frameHeaders: Record<string, string | number | readonly string[] | undefined>;
  routeHeaders: Record<string, string>;
  cspNonce: string;
  body: Buffer;
  /** The first response's status: 200, or 404 for the not-found page. */
  status?: number;
  /** Pages: "no-cache" (browsers revalidate with the ETag, so an edit shows at once). The API: "no-store". */
  cacheControl?: "no-cache" | "no-store";
}): CachedPage {
  const { body, cspNonce } = input;
  const isHtml = (input.routeHeaders["content-type"] ?? "").startsWith("text/html");
  const scriptHashes = isHtml ? inlineScriptHashes(body.toString("utf8"), cspNonce) : [];
  const etag = `"${createHash("sha256").update(body).digest("base64url").slice(0, 27)}"`;

  const sharedHeaders: string[] = [];
  for (const [name, value] of [...Object.entries(input.frameHeaders), ...Object.entries(input.routeHeaders)]) {
    if (value === undefined || PER_RESPONSE_HEADERS.has(name.toLowerCase())) continue;
    for (const item of Array.isArray(value) ? value : [String(value)]) sharedHeaders.push(name, item);
  }
  sharedHeaders.push("Cache-Control", input.cacheControl ?? "no-cache", "ETag", etag, "Vary", "Accept-Encoding");

  const csp = input.frameHeaders["content-security-policy"];
  const nonceSource = `'nonce-${cspNonce}'`;
  let contentSecurityPolicy: CachedPage["contentSecurityPolicy"] = null;
  if (typeof csp === "string" && csp.includes(nonceSource)) {
    const [before, after] = [
      csp.slice(0, csp.indexOf(nonceSource)),
      csp.slice(csp.indexOf(nonceSource) + nonceSource.length),
    ];
    // The cached page's inline scripts carry the first response's nonce; their hashes let them run.
    const hashes = scriptHashes.map((hash) => ` '${hash}'`).join("");
    contentSecurityPolicy = { before: `${before}'nonce-`, after: `'${hashes}${after}` };
  }

  return {
    status: input.status ?? 200,
    body,
    // Compressed once per content change, at the best ratio, instead of on every response.
    gzip: gzipSync(body, { level: 9 }),
    brotli: brotliCompressSync(body, {
      params: { [zlib.BROTLI_PARAM_QUALITY]: 11, [zlib.BROTLI_PARAM_SIZE_HINT]: body.length },
    }),
    etag,
    scriptHashes,
    sharedHeaders,
    contentSecurityPolicy,
  };
}

/** The precompressed copy the client accepts (a coding it gives `q=0` it refuses): brotli, else gzip, else plain. */
export function encodedBody(page: CachedPage, req: IncomingMessage): { encoding: "br" | "gzip" | null; body: Buffer } {
  const accepted = accepts(req);
  if (accepted.encodings("br")) return { encoding: "br", body: page.brotli };
  if (accepted.encodings("gzip")) return { encoding: "gzip", body: page.gzip };
  return { encoding: null, body: page.body };
}

/** Hard caps; the cacheable keys are a few dozen. */
export const MAX_CACHED_PAGES = 128;
export const MAX_RENDERS_IN_FLIGHT = 128;

export type PageCache = {
  get(key: string): CachedPage | undefined;
  /** The current generation; pass it back to `set` so a render that a write overtook is dropped. */
  readonly generation: number;
  /** Stores a page; at the cap, the longest-stored page makes room. */
  set(key: string, page: CachedPage, renderedAtGeneration: number): void;
  /** The render of `key` under way: simultaneous misses wait for one render. */
  inFlight(key: string): Promise<CachedPage | undefined> | undefined;
  /** Marks a render of `key` as under way until `render` settles (not tracked at the cap). */
  track(key: string, render: Promise<CachedPage | undefined>): void;
  clear(): void;
  readonly size: number;
  readonly rendersInFlight: number;
};

export function createPageCache(limits: { maxPages?: number; maxRenders?: number } = {}): PageCache {
  const maxPages = limits.maxPages ?? MAX_CACHED_PAGES;
  const maxRenders = limits.maxRenders ?? MAX_RENDERS_IN_FLIGHT;
  const pages = new Map<string, CachedPage>();
  const renders = new Map<string, Promise<CachedPage | undefined>>();
  // Bumped by every write: a render that started before it must not be stored.
  let generation = 0;
  return {
    get: (key) => pages.get(key),
    get generation() {
      return generation;
    },
    set(key, page, renderedAtGeneration) {
      if (renderedAtGeneration !== generation) return;
      pages.delete(key);
      if (pages.size >= maxPages) pages.delete(pages.keys().next().value!);
      pages.set(key, page);
    },
    inFlight: (key) => renders.get(key),
    track(key, render) {
      // At the cap the render simply is not shared: correct, only less thrifty.
      if (!renders.has(key) && renders.size >= maxRenders) return;
      renders.set(key, render);
      const forget = () => {
        if (renders.get(key) === render) renders.delete(key);
      };
      render.then(forget, forget);
    },
    clear() {
      generation += 1;
      pages.clear();
      // Renders under way read the old content: nobody should wait for them now.
      renders.clear();
    },
    get size() {
      return pages.size;
    },
    get rendersInFlight() {
      return renders.size;
    },
  };
}
