// @desktop-only: server behaviour, the same at any screen size
import { randomUUID } from "node:crypto";
import { expect, test, TEST_ADMIN } from "./fixtures";

/** Renames the tables the public pages read, as a broken or missing database file would. */
async function withTablesAway(dataDir: string, during: () => Promise<void>) {
  const { default: Database } = await import("better-sqlite3");
  const db = new Database(`${dataDir}/site.db`);
  const rename = (from: string, to: string) => db.exec(`ALTER TABLE ${from} RENAME TO ${to}`);
  rename("content_entries", "content_entries_away");
  rename("gallery_images", "gallery_images_away");
  try {
    await during();
  } finally {
    rename("content_entries_away", "content_entries");
    rename("gallery_images_away", "gallery_images");
    db.close();
  }
}

const DEFAULT_HEADLINE = "Stonemasonry &amp; Hard Landscaping in Taranaki";

test.describe("a render that fell back because the database failed", () => {
  test("is shown, but never cached: the stored text is back as soon as the database is", async ({
    request,
    server,
  }) => {
    const headline = `Stored headline ${randomUUID().slice(0, 8)}`;
    expect((await request.post("/api/login", { data: TEST_ADMIN })).status()).toBe(200);
    // A save also empties the page cache, so this test does not depend on what ran before it.
    expect((await request.put("/api/admin/content/hero.title", { data: { content: headline } })).status()).toBe(200);
    expect(
      (await request.put("/api/admin/content/stonework.intro", { data: { content: `${headline} intro` } })).status(),
    ).toBe(200);

    await withTablesAway(server.dataDir, async () => {
      for (let i = 0; i < 2; i++) {
        const home = await request.get("/");
        expect(home.status()).toBe(200);
        expect(await home.text()).toContain(DEFAULT_HEADLINE);
        expect(home.headers()["cache-control"]).toBe("no-store");
        expect(home.headers()["etag"], "not stored").toBeUndefined();
        expect(home.headers()["x-cache"], "not a cached copy").toBeUndefined();

        const stonework = await request.get("/stonework");
        expect(await stonework.text()).not.toContain(`${headline} intro`);
        expect(stonework.headers()["cache-control"]).toBe("no-store");
        const data = await request.get("/stonework.data");
        expect(data.status()).toBe(200);
        expect(data.headers()["cache-control"]).toBe("no-store");
      }
    });

    const home = await request.get("/");
    expect(await home.text()).toContain(headline);
    expect(await (await request.get("/stonework")).text()).toContain(`${headline} intro`);
    expect(await (await request.get("/stonework.data")).text()).toContain(`${headline} intro`);
    // And a healthy render is cached again: the next request is a copy from memory.
    expect(home.headers()["x-cache"], "rendered").toBeUndefined();
    expect((await request.get("/")).headers()["x-cache"], "served from the cache").toBe("hit");
  });
});
