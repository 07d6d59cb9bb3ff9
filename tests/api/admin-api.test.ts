import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { createManualClock, type ManualClock } from "~/lib/clock";
import { createAdminContext, type AdminContext } from "./helpers";

let ctx: AdminContext;
let clock: ManualClock;
beforeEach(async () => {
  clock = createManualClock("2026-03-02T09:00:00.000Z");
  ctx = await createAdminContext({}, { clock });
});
afterEach(async () => {
  await ctx.close();
});

describe("PUT /api/admin/content/:sectionKey", () => {
  it("stores the text with updatedAt, returns the saved entry, and the public API shows it at once", async () => {
    const before = ctx.publicChanges();
    const res = await ctx.admin
      .put("/api/admin/content/hero.title")
      .send({ content: "Stone, done properly" })
      .expect(200);
    expect(res.body).toEqual({
      key: "hero.title",
      content: "Stone, done properly",
      updatedAt: expect.any(String),
      isDefault: false,
    });
    const row = await ctx.services.db
      .selectFrom("content_entries")
      .selectAll()
      .where("key", "=", "hero.title")
      .executeTakeFirstOrThrow();
    expect(row.updated_at).toBe(res.body.updatedAt);
    const publicRes = await ctx.api.get("/api/content/hero.title").expect(200);
    expect(publicRes.body.content).toBe("Stone, done properly");
    expect(ctx.publicChanges()).toBe(before + 1);
  });

  it("answers 404 for a key outside the registry", async () => {
    const res = await ctx.admin.put("/api/admin/content/hero.titel").send({ content: "x" }).expect(404);
    expect(res.body).toEqual({ message: "Unknown content section: hero.titel" });
  });

  it("accepts 20,000 characters and refuses 20,001 with 400", async () => {
    await ctx.admin
      .put("/api/admin/content/about.bio")
      .send({ content: "a".repeat(20_000) })
      .expect(200);
    const res = await ctx.admin
      .put("/api/admin/content/about.bio")
      .send({ content: "a".repeat(20_001) })
      .expect(400);
    expect(res.body.message).toBe("content must be at most 20000 characters");
  });

  it.each([[{}], [{ content: 42 }], [{ content: null }], [{ content: ["x"] }]])("answers 400 for %o", async (body) => {
    const res = await ctx.admin.put("/api/admin/content/hero.title").send(body).expect(400);
    expect(res.body.message).toBe("content must be a string");
  });

  it("keeps markup as plain text", async () => {
    const script = "<script>alert(1)</script>";
    await ctx.admin.put("/api/admin/content/hero.title").send({ content: script }).expect(200);
    const res = await ctx.api.get("/api/content/hero.title").expect(200);
    expect(res.body.content).toBe(script);
    expect(res.headers["content-type"]).toMatch(/^application\/json/);
  });
});

describe("GET /api/admin/contact-submissions", () => {
  it("lists submissions newest first", async () => {
    const send = (name: string) =>
      ctx.api
        .post("/api/contact")
        .send({ name, email: `${name}@example.nz`, message: "Please call me back about a wall." })
        .expect(201);
    // A second apart on the injected clock: the order comes from the times, not from luck.
    await send("first");
    clock.advance(1_000);
    await send("second");
    clock.advance(1_000);
    await send("third");
    const res = await ctx.admin.get("/api/admin/contact-submissions").expect(200);
    expect(res.body.map((s: { name: string }) => s.name)).toEqual(["third", "second", "first"]);
    expect(res.body[0]).toEqual({
      id: expect.any(String),
      name: "third",
      email: "third@example.nz",
      phone: null,
      message: "Please call me back about a wall.",
      submittedAt: "2026-03-02T09:00:02.000Z",
      photosNotAttached: 0,
      cursor: expect.any(String),
      readAt: null,
      reviewAskedAt: null,
      notification: { status: "off", attempts: 0, lastError: null, nextAttemptAt: null, sentAt: null, inDigest: false },
      photos: [],
    });
    expect(res.headers["cache-control"]).toBe("no-store");
  });

  it("answers 401 when not signed in", async () => {
    await ctx.api.get("/api/admin/contact-submissions").expect(401);
  });
});
