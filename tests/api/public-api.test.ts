import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { saveContent } from "~/content/content.server";
import { SECTIONS } from "~/content/sections";
import { seedDemoGallery } from "~/galleries/demo-images.server";
import { reorderGallery } from "~/galleries/galleries.server";
import { createTestContext, type TestContext } from "./helpers";

let ctx: TestContext;
beforeEach(async () => {
  ctx = await createTestContext();
});
afterEach(async () => {
  await ctx.close();
});

describe("GET /api/content/:key", () => {
  it("answers a known key with nothing stored with its built-in default", async () => {
    const res = await ctx.api.get("/api/content/hero.title").expect(200);
    expect(res.body).toEqual({
      key: "hero.title",
      content: SECTIONS.find((s) => s.key === "hero.title")!.defaultContent,
      updatedAt: null,
      isDefault: true,
    });
  });

  it("answers stored content with its update time", async () => {
    await saveContent(ctx.services, "hero.title", "Stone that lasts");
    const res = await ctx.api.get("/api/content/hero.title").expect(200);
    expect(res.body).toMatchObject({ key: "hero.title", content: "Stone that lasts", isDefault: false });
    expect(new Date(res.body.updatedAt).getTime()).not.toBeNaN();
  });

  it("treats blank stored content as the default", async () => {
    await saveContent(ctx.services, "hero.title", "   ");
    const res = await ctx.api.get("/api/content/hero.title").expect(200);
    expect(res.body.isDefault).toBe(true);
  });

  it("answers an unknown key with 404 JSON", async () => {
    const res = await ctx.api.get("/api/content/no.such.key").expect(404);
    expect(res.body).toEqual({ message: "Unknown content key: no.such.key" });
  });

  it("is never cached by browsers or proxies", async () => {
    const res = await ctx.api.get("/api/content/hero.title");
    expect(res.headers["cache-control"]).toBe("no-store");
  });
});

describe("GET /api/galleries/:galleryType", () => {
  it("answers an empty gallery with an empty list", async () => {
    const res = await ctx.api.get("/api/galleries/veneer").expect(200);
    expect(res.body).toEqual([]);
  });

  it("answers 400 for an unknown gallery type", async () => {
    const res = await ctx.api.get("/api/galleries/marble").expect(400);
    expect(res.body.message).toMatch(/Unknown gallery type "marble"/);
  });

  it("lists the items in sort order with their variants", async () => {
    const created = await seedDemoGallery(ctx.services, "traditional", 3, { width: 600, height: 400 });
    const reversed = created.map((i) => i.id).reverse();
    await reorderGallery(ctx.services, "traditional", reversed);
    const res = await ctx.api.get("/api/galleries/traditional").expect(200);
    expect(res.body.map((i: { id: string }) => i.id)).toEqual(reversed);
    expect(res.body.map((i: { sortOrder: number }) => i.sortOrder)).toEqual([0, 1, 2]);
    const first = res.body[0];
    expect(first).toMatchObject({ galleryType: "traditional", width: expect.any(Number), height: expect.any(Number) });
    expect(first.imagePath).toMatch(/^\/media\/[0-9a-f]{20}\.jpg$/);
    expect(first.variants.avif.length).toBeGreaterThan(0);
  });
});

describe("POST /api/contact", () => {
  const valid = {
    name: "Aroha Smith",
    email: "aroha@example.co.nz",
    phone: "021 123 4567",
    message: "I need a retaining wall quote.",
  };

  it("stores a valid enquiry with submittedAt and answers 201", async () => {
    const before = Date.now();
    const res = await ctx.api.post("/api/contact").send(valid).expect(201);
    expect(res.body.message).toBe("Message received");
    const rows = await ctx.services.db.selectFrom("contact_submissions").selectAll().execute();
    expect(rows).toHaveLength(1);
    expect(rows[0]).toMatchObject({ name: valid.name, email: valid.email, phone: valid.phone, message: valid.message });
    expect(new Date(rows[0]!.submitted_at).getTime()).toBeGreaterThanOrEqual(before - 1000);
  });

  it("accepts an enquiry without a phone number", async () => {
    await ctx.api
      .post("/api/contact")
      .send({ ...valid, phone: "" })
      .expect(201);
    const row = await ctx.services.db.selectFrom("contact_submissions").selectAll().executeTakeFirstOrThrow();
    expect(row.phone).toBeNull();
  });

  it("answers 400 with a message for each invalid field, storing nothing", async () => {
    const res = await ctx.api
      .post("/api/contact")
      .send({ name: "", email: "not-an-email", message: "short" })
      .expect(400);
    expect(res.body.errors).toEqual({
      name: "Name is required",
      email: "Valid email is required",
      message: "Message must be at least 10 characters",
    });
    expect(res.body.message).toBe("Name is required");
    expect(await ctx.services.db.selectFrom("contact_submissions").selectAll().execute()).toHaveLength(0);
  });

  it.each([
    ["name", "n".repeat(201), "Name must be at most 200 characters"],
    ["email", `${"e".repeat(310)}@example.com`, "Email must be at most 320 characters"],
    ["phone", "1".repeat(51), "Phone must be at most 50 characters"],
    ["message", "m".repeat(5001), "Message must be at most 5000 characters"],
  ])("answers 400 when %s is over its limit", async (field, value, message) => {
    const res = await ctx.api
      .post("/api/contact")
      .send({ ...valid, [field]: value })
      .expect(400);
    expect(res.body.errors[field]).toBe(message);
  });

  it("accepts fields exactly at their limits", async () => {
    await ctx.api
      .post("/api/contact")
      .send({
        name: "n".repeat(200),
        email: `${"e".repeat(308)}@example.com`,
        phone: "1".repeat(50),
        message: "m".repeat(5000),
      })
      .expect(201);
  });

  it("answers 400 for a body over 64 KB", async () => {
    const res = await ctx.api
      .post("/api/contact")
      .send({ ...valid, padding: "x".repeat(70 * 1024) })
      .expect(400);
    expect(res.body.message).toMatch(/too large/);
  });

  it("answers 400 for malformed JSON", async () => {
    const res = await ctx.api
      .post("/api/contact")
      .set("Content-Type", "application/json")
      .send('{"name": "x",')
      .expect(400);
    expect(res.body).toEqual({ message: "The request body is not valid JSON" });
  });

  it("answers 400 for a wrong content type", async () => {
    const res = await ctx.api
      .post("/api/contact")
      .set("Content-Type", "text/plain")
      .send(JSON.stringify(valid))
      .expect(400);
    expect(res.body.message).toMatch(/JSON/);
    const form = await ctx.api.post("/api/contact").type("form").send(valid).expect(400);
    expect(form.body.message).toMatch(/JSON/);
  });

  it.each([
    ["an array body", [valid]],
    ["a number name", { ...valid, name: 42 }],
    ["an object message", { ...valid, message: { text: "hello there friend" } }],
    ["a null body", null],
  ])("answers 400 for %s", async (_label, body) => {
    const res = await ctx.api
      .post("/api/contact")
      .set("Content-Type", "application/json")
      .send(JSON.stringify(body))
      .expect(400);
    expect(typeof res.body.message).toBe("string");
  });
});

describe("unknown API routes", () => {
  it("answer 404 JSON", async () => {
    const res = await ctx.api.get("/api/nope").expect(404);
    expect(res.body).toEqual({ message: "No API route for GET /api/nope" });
  });
});

describe("contact spam protection", () => {
  const valid = { name: "Aroha Smith", email: "aroha@example.co.nz", message: "I need a retaining wall quote." };

  it("answers a filled-in honeypot like a success and stores nothing", async () => {
    const res = await ctx.api
      .post("/api/contact")
      .send({ ...valid, website: "http://spam.example" })
      .expect(201);
    expect(res.body.message).toBe("Message received");
    expect(await ctx.services.db.selectFrom("contact_submissions").selectAll().execute()).toHaveLength(0);
  });

  it("allows 5 enquiries per address in 10 minutes, then 429 with Retry-After; every accepted one is stored", async () => {
    for (let i = 0; i < 5; i++)
      await ctx.api
        .post("/api/contact")
        .send({ ...valid, name: `Person ${i}` })
        .expect(201);
    const res = await ctx.api.post("/api/contact").send(valid).expect(429);
    expect(res.body.message).toMatch(/Too many messages/);
    expect(Number(res.headers["retry-after"])).toBeGreaterThan(9 * 60);
    const rows = await ctx.services.db.selectFrom("contact_submissions").select("name").execute();
    expect(rows.map((r) => r.name).sort()).toEqual(["Person 0", "Person 1", "Person 2", "Person 3", "Person 4"]);
  });

  it("does not count invalid attempts against the limit", async () => {
    for (let i = 0; i < 6; i++)
      await ctx.api
        .post("/api/contact")
        .send({ ...valid, email: "bad" })
        .expect(400);
    await ctx.api.post("/api/contact").send(valid).expect(201);
  });
});

describe("health check", () => {
  it("answers 200 when the database reads, 503 when it cannot", async () => {
    const ok = await ctx.api.get("/healthz").expect(200);
    expect(ok.body).toEqual({ status: "ok" });
    await ctx.services.db.destroy();
    const down = await ctx.api.get("/healthz").expect(503);
    expect(down.body).toEqual({ message: "Database unavailable" });
  });
});
