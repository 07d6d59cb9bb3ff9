// @desktop-only: server behaviour, the same at any screen size
import type { APIResponse } from "@playwright/test";
import { TEST_ADMIN, expect, test, hydrated } from "./fixtures";
import { islandFilesInPage } from "~/islands/page-script";

function expectCommonHeaders(res: APIResponse, label: string) {
  const headers = res.headers();
  expect(headers["x-powered-by"], label).toBeUndefined();
  expect(headers["x-content-type-options"], label).toBe("nosniff");
  expect(headers["referrer-policy"], label).toBe("strict-origin-when-cross-origin");
  expect(headers["permissions-policy"], label).toMatch(/camera=\(\)/);
  expect(headers["permissions-policy"], label).toMatch(/geolocation=\(\)/);
  expect(headers["x-frame-options"], label).toBe("DENY");
  expect(headers["strict-transport-security"], `${label}: no HSTS over plain HTTP`).toBeUndefined();
  const csp = headers["content-security-policy"] ?? "";
  expect(csp, label).not.toBe("");
  expect(headers["content-security-policy-report-only"], label).toBeUndefined();
  const directives = Object.fromEntries(
    csp
      .split(";")
      .map((d) => d.trim())
      .filter(Boolean)
      .map((d) => [d.split(/\s+/)[0], d.split(/\s+/).slice(1)]),
  );
  expect(directives["script-src"], label).toContain("'self'");
  expect(
    directives["script-src"]!.some((s: string) => /^'nonce-[A-Za-z0-9+/=]{20,}'$/.test(s)),
    label,
  ).toBe(true);
  expect(directives["script-src"], label).not.toContain("'unsafe-inline'");
  expect(directives["script-src"], label).not.toContain("'unsafe-eval'");
  expect(directives["frame-ancestors"], label).toEqual(["'none'"]);
  expect(directives["object-src"], label).toEqual(["'none'"]);
  expect(directives["base-uri"], label).toEqual(["'self'"]);
  return directives;
}

function nonceOf(res: APIResponse) {
  return /'nonce-([^']+)'/.exec(res.headers()["content-security-policy"] ?? "")?.[1];
}

test.describe("security headers", () => {
  test("a public page: enforced CSP with a fresh nonce each time, even when served from the cache", async ({
    request,
  }) => {
    // A save empties the page cache, so the first request below renders whatever ran before.
    expect((await request.post("/api/login", { data: TEST_ADMIN })).status()).toBe(200);
    expect(
      (
        await request.put("/api/admin/content/stonework.intro", { data: { content: `Saved at ${Date.now()}.` } })
      ).status(),
    ).toBe(200);
    const first = await request.get("/stonework");
    const second = await request.get("/stonework");
    expectCommonHeaders(first, "first render");
    const cached = expectCommonHeaders(second, "cached");
    expect([first.headers()["x-cache"], second.headers()["x-cache"]]).toEqual([undefined, "hit"]);
    // Several cached copies in a row: each has a nonce of its own, none shared.
    const more = [await request.get("/stonework"), await request.get("/stonework"), await request.get("/stonework")];
    expect(more.map((res) => res.headers()["x-cache"])).toEqual(["hit", "hit", "hit"]);
    const nonces = [first, second, ...more].map(nonceOf);
    for (const nonce of nonces) expect(nonce).toMatch(/^[A-Za-z0-9+/]{22}==$/);
    expect(new Set(nonces).size).toBe(5);
    // The cached page's inline scripts are allowed by their hashes.
    const html = await second.text();
    const inline = [...html.matchAll(/<script\b(?![^>]*\bsrc=)[^>]*>([\s\S]*?)<\/script>/g)].filter(
      (m) => !/application\/ld\+json/.test(m[0]),
    );
    expect(inline.length).toBeGreaterThan(0);
    const { createHash } = await import("node:crypto");
    for (const match of inline) {
      const hash = `'sha256-${createHash("sha256").update(match[1]!).digest("base64")}'`;
      expect(cached["script-src"]).toContain(hash);
    }
    expect(second.headers()["x-powered-by"]).toBeUndefined();
  });

  test("requests arriving together while a page renders all get the page, each under a CSP that runs its scripts", async ({
    request,
  }) => {
    // A save empties the page cache, so the requests below really do meet while the page renders.
    expect((await request.post("/api/login", { data: TEST_ADMIN })).status()).toBe(200);
    const saved = await request.put("/api/admin/content/footer.description", {
      data: { content: `Saved at ${Date.now()}.` },
    });
    expect(saved.status()).toBe(200);
    const responses = await Promise.all(Array.from({ length: 12 }, () => request.get("/")));
    const bodies = new Set<string>();
    const { createHash } = await import("node:crypto");
    for (const res of responses) {
      expect(res.status()).toBe(200);
      const html = await res.text();
      bodies.add(html);
      const scriptSrc = expectCommonHeaders(res, "concurrent")["script-src"]!;
      const pageNonce = /<script nonce="([^"]+)"/.exec(html)?.[1];
      const inline = [...html.matchAll(/<script\b(?![^>]*\bsrc=)[^>]*>([\s\S]*?)<\/script>/g)].filter(
        (m) => !/application\/ld\+json/.test(m[0]),
      );
      for (const match of inline) {
        const hash = `'sha256-${createHash("sha256").update(match[1]!).digest("base64")}'`;
        expect(scriptSrc.includes(`'nonce-${pageNonce}'`) || scriptSrc.includes(hash)).toBe(true);
      }
    }
    // One render served them all: the same bytes (nonce attributes included) every time.
    expect(bodies.size).toBe(1);
  });

  test("a cached copy carries the same headers as a fresh render", async ({ request }) => {
    // A query string always renders afresh; the bare path is served from the cache on its second request.
    const fresh = await request.get("/landscaping?fresh=1");
    await request.get("/landscaping");
    const cached = await request.get("/landscaping");
    expect([fresh.headers()["x-cache"], cached.headers()["x-cache"]], "rendered, then served from the cache").toEqual([
      undefined,
      "hit",
    ]);
    const perResponse = new Set([
      "date",
      "etag",
      "cache-control",
      "vary",
      "content-length",
      "content-encoding",
      "transfer-encoding",
      "connection",
      "keep-alive",
      "content-security-policy",
    ]);
    const shared = Object.entries(fresh.headers()).filter(([name]) => !perResponse.has(name));
    expect(shared.length).toBeGreaterThan(8);
    for (const [name, value] of shared) expect(cached.headers()[name], name).toBe(value);
    const withoutScriptSources = (csp: string) => csp.replace(/ '(nonce|sha256)-[^']+'/g, "");
    expect(withoutScriptSources(cached.headers()["content-security-policy"]!)).toBe(
      withoutScriptSources(fresh.headers()["content-security-policy"]!),
    );
  });

  test("scripts run under the CSP on first and cached renders (no violations)", async ({ page }) => {
    const violations: string[] = [];
    page.on("console", (m) => {
      if (/Content Security Policy/i.test(m.text())) violations.push(m.text());
    });
    for (let i = 0; i < 2; i++) {
      await page.goto("/contact");
      await hydrated(page);
      // Hydrated: client-side validation works.
      await page.getByRole("button", { name: "Send Message" }).click();
      await expect(page.getByText("Name is required")).toBeVisible();
    }
    expect(violations).toEqual([]);
  });

  test("the admin page: the same headers, no-store and noindex", async ({ request }) => {
    const res = await request.get("/admin");
    expectCommonHeaders(res, "admin");
    expect(res.headers()["cache-control"]).toBe("no-store");
    expect(await res.text()).toMatch(/<meta name="robots" content="noindex/);
  });

  test("an API response: the same headers and no-store", async ({ request }) => {
    const res = await request.get("/api/content/hero.title");
    expectCommonHeaders(res, "api");
    expect(res.headers()["cache-control"]).toBe("no-store");
    const admin = await request.get("/api/admin/contact-submissions");
    expect(admin.status()).toBe(401);
    expectCommonHeaders(admin, "admin api");
    expect(admin.headers()["cache-control"]).toBe("no-store");
  });

  test("HSTS when the request came over HTTPS through the trusted proxy, on rendered and cached copies alike", async ({
    request,
  }) => {
    const https = { "X-Forwarded-Proto": "https" };
    for (const path of ["/", "/api/content/hero.title"]) {
      // A query string always renders afresh (Express); the bare path's second request is a cached copy.
      const rendered = await request.get(`${path}?fresh=${Date.now()}`, { headers: https });
      await request.get(path);
      const cached = await request.get(path, { headers: https });
      expect(cached.headers()["x-cache"], `${path}: served from the cache`).toBe("hit");
      for (const [label, res] of [
        ["rendered", rendered],
        ["cached", cached],
      ] as const) {
        expect(res.headers()["strict-transport-security"], `${label} ${path}`).toBe(
          "max-age=31536000; includeSubDomains",
        );
      }
      expect(
        (await request.get(path)).headers()["strict-transport-security"],
        `${path} over plain HTTP`,
      ).toBeUndefined();
    }
    const admin = await request.get("/admin", { headers: https });
    expect(admin.headers()["strict-transport-security"], "/admin").toBe("max-age=31536000; includeSubDomains");
  });

  test("pages and assets are compressed; hashed assets are immutable", async ({ request }) => {
    const page = await request.get("/", { headers: { "Accept-Encoding": "br, gzip" } });
    expect(page.headers()["content-encoding"]).toBe("br");
    const gz = await request.get("/landscaping", { headers: { "Accept-Encoding": "gzip" } });
    expect(gz.headers()["content-encoding"]).toBe("gzip");
    // The contact page's island has the most script (React DOM among it).
    const html = await (await request.get("/contact")).text();
    // The islands' files, which the page script loads once the page has loaded (decision 0055).
    const scripts = islandFilesInPage(html);
    expect(scripts.length).toBeGreaterThan(0);
    // Scripts wait behind the page and its images (decisions 0013, 0055): none is requested from the markup.
    expect(html).not.toMatch(/<link[^>]*rel="modulepreload"/);
    expect(html).not.toMatch(/<script[^>]*\bsrc=/);
    // The stylesheet is inlined (docs/decisions/0011): no render-blocking request.
    expect(html).not.toMatch(/<link[^>]*rel="stylesheet"/);
    expect(html).toMatch(/<style>[^<]*\.min-h-screen\{/);
    // The build's brotli copies are sent as they are (quality 11, not compressed per request).
    // React DOM, which the contact island loads when the form is near (decision 0055).
    const loaderSource = await (
      await request.get(scripts.find((file) => file.startsWith("/assets/island-contact-"))!)
    ).text();
    const entry = `/${/assets\/client-[\w-]+\.js/.exec(loaderSource)![0]}`;
    const { statSync } = await import("node:fs");
    const stored = statSync(`build/client${entry}.br`).size;
    const entryResponse = await request.get(entry, { headers: { "Accept-Encoding": "br" } });
    expect(entryResponse.headers()["content-encoding"]).toBe("br");
    expect(Number(entryResponse.headers()["content-length"])).toBe(stored);
    expect(entryResponse.headers()["content-type"]).toMatch(/javascript/);
    for (const asset of scripts) {
      const res = await request.get(asset, { headers: { "Accept-Encoding": "br, gzip" } });
      expect(res.headers()["cache-control"], asset).toBe("public, max-age=31536000, immutable");
      // Files under 1 KB are not worth compressing.
      if (Number(res.headers()["content-length"] ?? 2048) >= 1024 || res.headers()["transfer-encoding"]) {
        expect(["br", "gzip"], asset).toContain(res.headers()["content-encoding"]);
      }
    }
  });
});
