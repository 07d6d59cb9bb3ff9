import { createHash } from "node:crypto";
import { describe, expect, it } from "vitest";
import {
  MAX_CACHED_PAGES,
  MAX_RENDERS_IN_FLIGHT,
  createPageCache,
  inlineScriptHashes,
  preparePage,
  type CachedPage,
} from "./page-cache";

const sha = (text: string) => `sha256-${createHash("sha256").update(text, "utf8").digest("base64")}`;

function page(body = "{}"): CachedPage {
  return preparePage({
    frameHeaders: {},
    routeHeaders: { "content-type": "application/json" },
    cspNonce: "n",
    body: Buffer.from(body),
  });
}

describe("the page cache's hard caps", () => {
  it("never holds more than MAX_CACHED_PAGES pages; the oldest make room", () => {
    const cache = createPageCache();
    const stored = page();
    for (let i = 0; i < MAX_CACHED_PAGES * 3; i++) cache.set(`/api/content/key-${i}`, stored, cache.generation);
    expect(cache.size).toBe(MAX_CACHED_PAGES);
    expect(cache.get("/api/content/key-0")).toBeUndefined();
    expect(cache.get(`/api/content/key-${MAX_CACHED_PAGES * 3 - 1}`)).toBe(stored);
  });

  it("storing a key again replaces it without evicting another", () => {
    const cache = createPageCache({ maxPages: 2 });
    cache.set("/a", page("1"), 0);
    cache.set("/b", page("2"), 0);
    const newer = page("3");
    cache.set("/a", newer, 0);
    expect([cache.size, cache.get("/a"), cache.get("/b")?.body.toString()]).toEqual([2, newer, "2"]);
  });

  it("never tracks more than MAX_RENDERS_IN_FLIGHT renders; the rest render unshared", async () => {
    const cache = createPageCache();
    let finish!: () => void;
    const pending = new Promise<undefined>((resolve) => (finish = () => resolve(undefined)));
    for (let i = 0; i < MAX_RENDERS_IN_FLIGHT * 3; i++) cache.track(`/api/content/key-${i}`, pending);
    expect(cache.rendersInFlight).toBe(MAX_RENDERS_IN_FLIGHT);
    expect(cache.inFlight("/api/content/key-0")).toBe(pending);
    expect(cache.inFlight(`/api/content/key-${MAX_RENDERS_IN_FLIGHT}`)).toBeUndefined();
    finish();
    await pending;
    await Promise.resolve();
    expect(cache.rendersInFlight).toBe(0);
  });

  it("drops a render that a write overtook", () => {
    const cache = createPageCache();
    const startedAt = cache.generation;
    cache.clear();
    cache.set("/", page(), startedAt);
    expect(cache.get("/")).toBeUndefined();
  });
});

describe("inline script hashes of a cached page", () => {
  const html = [
    '<script nonce="render-nonce">window.__ok = 1;</script>',
    '<script type="application/ld+json" nonce="render-nonce">{"@type":"Thing"}</script>',
    "<script>alert('slipped in without a nonce')</script>",
    '<script nonce="another-nonce">alert("a different render")</script>',
    '<script nonce="render-nonce" src="/assets/entry.js"></script>',
  ].join("");

  it("hashes only the scripts that carry this render's nonce", () => {
    expect(inlineScriptHashes(html, "render-nonce")).toEqual([sha("window.__ok = 1;"), sha('{"@type":"Thing"}')]);
  });

  it("puts only those hashes in the cached page's CSP", () => {
    const cached = preparePage({
      frameHeaders: {
        "content-security-policy": "default-src 'self';script-src 'self' 'nonce-render-nonce';object-src 'none'",
      },
      routeHeaders: { "content-type": "text/html; charset=utf-8" },
      cspNonce: "render-nonce",
      body: Buffer.from(`<!DOCTYPE html><html><body>${html}</body></html>`),
    });
    const { before, after } = cached.contentSecurityPolicy!;
    const csp = `${before}NEW${after}`;
    expect(csp).toBe(
      `default-src 'self';script-src 'self' 'nonce-NEW' '${sha("window.__ok = 1;")}' '${sha('{"@type":"Thing"}')}';object-src 'none'`,
    );
    expect(csp).not.toContain(sha("alert('slipped in without a nonce')"));
    expect(csp).not.toContain(sha('alert("a different render")'));
  });
});
