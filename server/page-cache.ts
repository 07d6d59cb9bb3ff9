import { createHash } from "node:crypto";
import { brotliCompressSync, constants as zlib, gzipSync } from "node:zlib";

/** The public pages whose HTML (and client-navigation data) is cached. */
export const CACHEABLE_PATHS = new Set(["/", "/stonework", "/landscaping", "/contact"]);

export function cacheKeyFor(method: string, url: string): string | null {
  if (method !== "GET" && method !== "HEAD") return null;
  // Only the bare path: any query string (tracking tags, data revalidation) renders fresh.
  if (url.includes("?")) return null;
  if (CACHEABLE_PATHS.has(url)) return url;
  if (url.endsWith(".data")) {
    const page = url === "/_root.data" ? "/" : url.slice(0, -".data".length);
    if (CACHEABLE_PATHS.has(page)) return url;
  }
  return null;
}

export type CachedPage = {
  /** Response headers React Router set (Content-Type and the like). */
  headers: Record<string, string>;
  body: Buffer;
  gzip: Buffer;
  brotli: Buffer;
  etag: string;
  /** CSP hash sources of the page's inline scripts, e.g. "sha256-…". */
  scriptHashes: string[];
};

const INLINE_SCRIPT = /<script\b(?![^>]*\bsrc\s*=)[^>]*>([\s\S]*?)<\/script>/gi;

/** The CSP hash of every inline script, so a cached page's scripts run under a later response's CSP. */
export function inlineScriptHashes(html: string): string[] {
  const hashes = new Set<string>();
  for (const match of html.matchAll(INLINE_SCRIPT)) {
    hashes.add(`sha256-${createHash("sha256").update(match[1] ?? "", "utf8").digest("base64")}`);
  }
  return [...hashes];
}

export function preparePage(headers: Record<string, string>, body: Buffer): CachedPage {
  const isHtml = (headers["content-type"] ?? "").startsWith("text/html");
  return {
    headers,
    body,
    // Compressed once per content change, at the best ratio, instead of on every response.
    gzip: gzipSync(body, { level: 9 }),
    brotli: brotliCompressSync(body, {
      params: { [zlib.BROTLI_PARAM_QUALITY]: 11, [zlib.BROTLI_PARAM_SIZE_HINT]: body.length },
    }),
    etag: `"${createHash("sha256").update(body).digest("base64url").slice(0, 27)}"`,
    scriptHashes: isHtml ? inlineScriptHashes(body.toString("utf8")) : [],
  };
}

export type PageCache = {
  get(key: string): CachedPage | undefined;
  /** The current generation; pass it back to `set` so a render that a write overtook is dropped. */
  readonly generation: number;
  set(key: string, page: CachedPage, renderedAtGeneration: number): void;
  clear(): void;
  readonly size: number;
};

export function createPageCache(): PageCache {
  const pages = new Map<string, CachedPage>();
  // Bumped by every write: a render that started before it must not be stored.
  let generation = 0;
  return {
    get: (key) => pages.get(key),
    get generation() {
      return generation;
    },
    set(key, page, renderedAtGeneration) {
      if (renderedAtGeneration === generation) pages.set(key, page);
    },
    clear() {
      generation += 1;
      pages.clear();
    },
    get size() {
      return pages.size;
    },
  };
}
