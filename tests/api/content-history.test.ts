import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { defaultContentFor } from "~/content/sections";
import { ADMIN, createAdminContext, type AdminContext } from "./helpers";

let ctx: AdminContext;
beforeEach(async () => {
  ctx = await createAdminContext();
});
afterEach(async () => {
  await ctx.close();
});

const save = (key: string, content: string) => ctx.admin.put(`/api/admin/content/${key}`).send({ content }).expect(200);
const history = async (key: string) =>
  (await ctx.admin.get(`/api/admin/content/${key}/history`).expect(200)).body as {
    id: string;
    content: string;
    savedAt: string;
    savedBy: string | null;
  }[];
const publicText = async (key: string) => (await ctx.api.get(`/api/content/${key}`).expect(200)).body.content as string;

describe("GET /api/admin/content/:key/history", () => {
  it("is empty while the built-in text shows", async () => {
    expect(await history("hero.title")).toEqual([]);
  });

  it("keeps each replaced text with who saved it and when, newest first; the current text is not listed", async () => {
    const first = await save("hero.title", "First title");
    const second = await save("hero.title", "Second title");
    await save("hero.title", "Third title");
    const versions = await history("hero.title");
    expect(versions).toEqual([
      { id: expect.any(String), content: "Second title", savedAt: second.body.updatedAt, savedBy: ADMIN.username },
      { id: expect.any(String), content: "First title", savedAt: first.body.updatedAt, savedBy: ADMIN.username },
    ]);
    expect(new Set(versions.map((v) => v.id)).size).toBe(2);
    // Another section's history is its own.
    expect(await history("hero.subtitle")).toEqual([]);
  });

  it("adds no version for a save that changes nothing", async () => {
    await save("hero.title", "Same");
    await save("hero.title", "Same");
    expect(await history("hero.title")).toEqual([]);
  });

  it("keeps the last 50 versions of a section and prunes older ones", async () => {
    for (let i = 1; i <= 55; i++) await save("footer.description", `Version ${i}`);
    const versions = await history("footer.description");
    // The product's number (spec and decision 0030): 50, whatever the constant says.
    expect(versions).toHaveLength(50);
    // The current text is Version 55; the newest kept is 54 and the oldest kept is 5.
    expect(versions[0]!.content).toBe("Version 54");
    expect(versions.at(-1)!.content).toBe("Version 5");
    const rows = await ctx.services.db
      .selectFrom("content_revisions")
      .select("id")
      .where("key", "=", "footer.description")
      .execute();
    expect(rows).toHaveLength(50);
  });

  it("keeps every replaced text when saves race", async () => {
    await save("hero.title", "Start");
    const texts = Array.from({ length: 8 }, (_, i) => `Racing ${i}`);
    await Promise.all(texts.map((text) => save("hero.title", text)));
    const current = await publicText("hero.title");
    const kept = (await history("hero.title")).map((v) => v.content);
    // Nothing lost, nothing kept twice: the history and the current text are every text saved.
    expect([...kept, current].sort()).toEqual(["Start", ...texts].sort());
  });

  it("answers 404 for a key outside the registry, 401 signed out", async () => {
    const res = await ctx.admin.get("/api/admin/content/hero.titel/history").expect(404);
    expect(res.body).toEqual({ message: "Unknown content section: hero.titel" });
    await ctx.api.get("/api/admin/content/hero.title/history").expect(401);
  });
});

describe("POST /api/admin/content/:key/history/:id/restore", () => {
  it("puts the version back as a new current entry, shows it publicly at once, and can itself be undone", async () => {
    await save("hero.title", "First title");
    await save("hero.title", "Second title");
    const [older] = await history("hero.title");
    expect(older!.content).toBe("First title");

    const changesBefore = ctx.publicChanges();
    const res = await ctx.admin.post(`/api/admin/content/hero.title/history/${older!.id}/restore`).expect(200);
    expect(res.body).toEqual({
      key: "hero.title",
      content: "First title",
      updatedAt: expect.any(String),
      isDefault: false,
    });
    expect(ctx.publicChanges()).toBe(changesBefore + 1);
    expect(await publicText("hero.title")).toBe("First title");

    // The text the restore replaced is now the newest version: restoring it undoes the restore.
    const afterRestore = await history("hero.title");
    expect(afterRestore.map((v) => v.content)).toEqual(["Second title", "First title"]);
    expect(afterRestore[0]!.content).toBe("Second title");
    expect(afterRestore[0]!.savedBy).toBe(ADMIN.username);
    await ctx.admin.post(`/api/admin/content/hero.title/history/${afterRestore[0]!.id}/restore`).expect(200);
    expect(await publicText("hero.title")).toBe("Second title");
  });

  it("answers 404 for an unknown id, an id of another section, and an unknown key", async () => {
    await save("hero.title", "One");
    await save("hero.title", "Two");
    const [version] = await history("hero.title");
    const unknown = await ctx.admin.post("/api/admin/content/hero.title/history/no-such-id/restore").expect(404);
    expect(unknown.body).toEqual({ message: "No such version of this section" });
    await ctx.admin.post(`/api/admin/content/hero.subtitle/history/${version!.id}/restore`).expect(404);
    const badKey = await ctx.admin.post(`/api/admin/content/nope/history/${version!.id}/restore`).expect(404);
    expect(badKey.body).toEqual({ message: "Unknown content section: nope" });
    expect(await publicText("hero.title")).toBe("Two");
  });

  it("follows the admin rules: 401 signed out, 403 cross-site", async () => {
    await save("hero.title", "One");
    await save("hero.title", "Two");
    const [version] = await history("hero.title");
    await ctx.api.post(`/api/admin/content/hero.title/history/${version!.id}/restore`).expect(401);
    await ctx.admin
      .post(`/api/admin/content/hero.title/history/${version!.id}/restore`)
      .set("Origin", "https://evil.example")
      .expect(403);
    expect(await publicText("hero.title")).toBe("Two");
  });
});

describe("DELETE /api/admin/content/:key", () => {
  it("returns the section to its default with 204, keeping the current text as a version", async () => {
    await save("stonework.intro", "Custom intro");
    const changesBefore = ctx.publicChanges();
    const res = await ctx.admin.delete("/api/admin/content/stonework.intro").expect(204);
    expect(res.text).toBe("");
    expect(ctx.publicChanges()).toBe(changesBefore + 1);
    const entry = (await ctx.api.get("/api/content/stonework.intro").expect(200)).body;
    expect(entry).toEqual({
      key: "stonework.intro",
      content: defaultContentFor("stonework.intro"),
      updatedAt: null,
      isDefault: true,
    });

    // Undo the reset by restoring the kept text.
    const [kept] = await history("stonework.intro");
    expect(kept!.content).toBe("Custom intro");
    await ctx.admin.post(`/api/admin/content/stonework.intro/history/${kept!.id}/restore`).expect(200);
    expect(await publicText("stonework.intro")).toBe("Custom intro");
  });

  it("is a no-op on a section already at its default (still 204, no version)", async () => {
    await ctx.admin.delete("/api/admin/content/hero.title").expect(204);
    await ctx.admin.delete("/api/admin/content/hero.title").expect(204);
    expect(await history("hero.title")).toEqual([]);
  });

  it("answers 404 for an unknown key, 401 signed out, 403 cross-site", async () => {
    const res = await ctx.admin.delete("/api/admin/content/hero.titel").expect(404);
    expect(res.body).toEqual({ message: "Unknown content section: hero.titel" });
    await save("hero.title", "Kept");
    await ctx.api.delete("/api/admin/content/hero.title").expect(401);
    await ctx.admin.delete("/api/admin/content/hero.title").set("Sec-Fetch-Site", "cross-site").expect(403);
    expect(await publicText("hero.title")).toBe("Kept");
  });
});
