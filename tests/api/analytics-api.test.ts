import fs from "node:fs/promises";
import path from "node:path";
import supertest from "supertest";
import { afterEach, describe, expect, it } from "vitest";
import { dayIn } from "~/analytics/calendar";
import { identity } from "~/identity";
import { createRequestListener } from "../../server/app";
import { createPageCache, preparePage } from "../../server/page-cache";
import { ADMIN, createAdminContext, type AdminContext } from "./helpers";

/**
 * Counting through the real request listener: public pages answered by the
 * cached-page responder (stored here by hand, as a render would store them),
 * the report read back through GET /api/admin/analytics, and the database
 * file itself checked for anything identifying.
 */

const BROWSER =
  "Mozilla/5.0 (Linux; Android 14; Pixel 7) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/126.0 Mobile Safari/537.36 TestMarker/4242";
const VISITOR_IP = "203.0.113.197";

let ctx: AdminContext;
afterEach(async () => {
  await ctx?.services.analytics.stop();
  await ctx?.close();
});

async function setUp(env: Record<string, string> = {}, backend: Parameters<typeof createAdminContext>[1] = {}) {
  ctx = await createAdminContext({ TRUST_PROXY: "loopback", ...env }, backend);
  // As server/start.ts does: loads the day's salt.
  await ctx.services.analytics.start();
  const pageCache = createPageCache();
  for (const key of ["/", "/stonework", "/contact", "/stonework.data", "/_root.data"]) {
    const page = preparePage({
      frameHeaders: {},
      routeHeaders: { "content-type": key.endsWith(".data") ? "text/x-script" : "text/html; charset=utf-8" },
      cspNonce: "n",
      body: Buffer.from(`<!doctype html><title>${key}</title>`),
    });
    pageCache.set(key, page, pageCache.generation);
  }
  const listener = createRequestListener(ctx.services, { pageCache });
  const site = supertest(listener);
  const owner = supertest.agent(listener);
  await owner.post("/api/login").send(ADMIN).expect(200);
  const get = (url: string, headers: Record<string, string> = {}) =>
    site.get(url).set({ "User-Agent": BROWSER, "X-Forwarded-For": VISITOR_IP, ...headers });
  const report = async () => (await owner.get("/api/admin/analytics").expect(200)).body;
  return { site, owner, get, report };
}

describe("counting public page views", () => {
  it("counts a browser's page views, and its client-side navigations, as one visitor", async () => {
    const { get, report } = await setUp();
    await get("/").expect(200);
    await get("/stonework.data").expect(200);
    await get("/_root.data").expect(200);
    const etag = (await get("/contact").expect(200)).headers.etag as string;
    await get("/contact", { "If-None-Match": etag }).expect(304);
    const figures = await report();
    const today = dayIn(identity.timeZone, Date.now());
    expect(figures.days.at(-1)).toEqual({ day: today, visitors: 1, views: 5 });
    expect(figures.totals).toMatchObject({ visitors: 1, views: 5 });
    expect(figures.topPages).toEqual([
      { path: "/", label: "Home", views: 2 },
      { path: "/contact", label: "Contact", views: 2 },
      { path: "/stonework", label: "Stonework", views: 1 },
    ]);
  });

  it.each([
    ["Googlebot", "Mozilla/5.0 (compatible; Googlebot/2.1; +http://www.google.com/bot.html)"],
    ["bingbot", "Mozilla/5.0 (compatible; bingbot/2.0; +http://www.bing.com/bingbot.htm)"],
    ["curl", "curl/8.5.0"],
    ["python-requests", "python-requests/2.32.3"],
    [
      "a headless browser",
      "Mozilla/5.0 (X11; Linux x86_64) AppleWebKit/537.36 (KHTML, like Gecko) HeadlessChrome/126.0.0.0 Safari/537.36",
    ],
  ])("does not count %s", async (_name, userAgent) => {
    const { get, report } = await setUp();
    await get("/", { "User-Agent": userAgent }).expect(200);
    await get("/stonework.data", { "User-Agent": userAgent }).expect(200);
    await get("/").expect(200); // a browser, for contrast
    expect((await report()).totals).toMatchObject({ visitors: 1, views: 1 });
  });

  it("does not count requests without a user agent, HEADs, prefetches, other paths, or the signed-in owner", async () => {
    const { site, owner, get, report } = await setUp();
    await site.get("/").set("X-Forwarded-For", VISITOR_IP).expect(200);
    await get("/").set("User-Agent", "").expect(200);
    await site.head("/").set({ "User-Agent": BROWSER }).expect(200);
    await get("/stonework.data", { "Sec-Purpose": "prefetch" }).expect(200);
    await get("/stonework", { Purpose: "prefetch" }).expect(200);
    await get("/api/content/hero.title").expect(200);
    await get("/admin").expect(404); // no React Router here; not a public page anyway
    await owner.get("/").set("User-Agent", BROWSER).expect(200);
    expect((await report()).totals).toMatchObject({ visitors: 0, views: 0 });
  });

  it("keeps only the linking site's host, never the path or query, and ignores links within the site", async () => {
    const { get, report } = await setUp();
    await get("/", { Referer: "https://www.google.com/search?q=stone+wall+builder+new+plymouth" }).expect(200);
    await get("/", { Referer: "https://l.facebook.com/l.php?u=secret" }).expect(200);
    await get("/stonework", { Referer: "https://www.google.com/", "X-Forwarded-For": "198.51.100.3" }).expect(200);
    await get("/contact", { Referer: "http://127.0.0.1/stonework" }).expect(200);
    await get("/contact", { Referer: "http://localhost:3000/" }).expect(200); // SITE_URL's host
    const figures = await report();
    // Listed once visitors from two addresses came from it: l.facebook.com's one visitor is counted, not listed.
    expect(figures.topReferrers).toEqual([{ host: "google.com", views: 2 }]);
    const stored = await ctx.services.db.selectFrom("analytics_daily_referrers").select("host").execute();
    expect(stored.map((row) => row.host).sort()).toEqual(["google.com", "l.facebook.com"]);
  });

  it("counts each address and user agent as its own visitor", async () => {
    const { get, report } = await setUp();
    await get("/", { "X-Forwarded-For": "198.51.100.1" }).expect(200);
    await get("/", { "X-Forwarded-For": "198.51.100.2" }).expect(200);
    await get("/", { "X-Forwarded-For": "198.51.100.2", "User-Agent": `${BROWSER} Other` }).expect(200);
    await get("/", { "X-Forwarded-For": "198.51.100.1" }).expect(200);
    expect((await report()).totals).toMatchObject({ visitors: 3, views: 4 });
  });

  it("counts nothing with ANALYTICS=off, and says so", async () => {
    const { get, report } = await setUp({ ANALYTICS: "off" });
    await get("/").expect(200);
    const figures = await report();
    expect(figures.enabled).toBe(false);
    expect(figures.totals).toMatchObject({ visitors: 0, views: 0 });
  });
});

describe("nothing identifying is stored", () => {
  it("the database files hold neither the visitor's address nor their user agent, and no cookie is set", async () => {
    // The database's own files are read here: SQLite's, whatever this run's back end.
    const { get, report } = await setUp({}, { database: "sqlite", storage: "disk" });
    const res = await get("/", { Referer: "https://www.google.com/search?q=x" }).expect(200);
    expect(res.headers["set-cookie"]).toBeUndefined();
    await get("/stonework.data").expect(200);
    expect((await report()).totals).toMatchObject({ visitors: 1, views: 2 });

    // Every file of the database (main file and write-ahead log), byte for byte.
    const files = (await fs.readdir(ctx.dataDir)).filter((name) => name.startsWith("site.db"));
    expect(files).toContain("site.db-wal");
    for (const name of files) {
      const bytes = await fs.readFile(path.join(ctx.dataDir, name));
      for (const secret of [VISITOR_IP, "TestMarker/4242", BROWSER]) {
        expect(bytes.includes(Buffer.from(secret, "utf8")), `${secret} in ${name}`).toBe(false);
        expect(bytes.includes(Buffer.from(secret, "utf16le")), `${secret} (UTF-16) in ${name}`).toBe(false);
      }
    }
    // The hashes are not the address either: 22 URL-safe characters for the visitor, and for the (referrer, address).
    const hashes = await ctx.services.db.selectFrom("analytics_visitors").select("hash").execute();
    expect(hashes.map((row) => row.hash)).toEqual([
      expect.stringMatching(/^[\w-]{22}$/),
      expect.stringMatching(/^[\w-]{22}$/),
    ]);
  });
});

describe("GET /api/admin/analytics", () => {
  it("reports 30 days, enquiries per week and the enquiry rate", async () => {
    const { get, site, report } = await setUp();
    for (const ip of ["198.51.100.1", "198.51.100.2", "198.51.100.3", "198.51.100.4"]) {
      await get("/contact", { "X-Forwarded-For": ip }).expect(200);
    }
    await site
      .post("/api/contact")
      .set("X-Forwarded-For", "198.51.100.1")
      .send({ name: "Aroha", email: "aroha@example.nz", message: "Could you quote for a garden wall?" })
      .expect(201);
    const figures = await report();
    expect(figures.days).toHaveLength(30);
    expect(figures.days[0].day < figures.days[29].day).toBe(true);
    expect(figures.timeZone).toBe("Pacific/Auckland");
    expect(figures.totals).toEqual({ visitors: 4, views: 4, enquiries: 1 });
    expect(figures.enquiryRate).toBe(0.25);
    expect(figures.enquiriesPerWeek).toHaveLength(8);
    expect(figures.enquiriesPerWeek.at(-1).enquiries).toBe(1);
    expect(figures.enquiriesPerWeek.slice(0, -1).every((week: { enquiries: number }) => week.enquiries === 0)).toBe(
      true,
    );
  });

  it("answers 401 when not signed in", async () => {
    const { site } = await setUp();
    const res = await site.get("/api/admin/analytics").expect(401);
    expect(res.body).toEqual({ message: "Unauthorized" });
  });
});
