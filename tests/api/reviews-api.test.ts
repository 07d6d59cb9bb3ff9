import supertest from "supertest";
import { afterEach, beforeEach, describe, expect, it, vi } from "vitest";
import { MAX_LIST_ITEMS } from "~/content/lists";
import { insertEnquiry } from "../support/backup-site";
import { createAdminContext, signedInAgent, type AdminContext } from "./helpers";

/** The reviews the owner keeps (app/content/lists.ts REVIEWS) through their API, on the run's back end. */

let ctx: AdminContext;
beforeEach(async () => {
  ctx = await createAdminContext();
});
afterEach(async () => {
  await ctx.close();
});

const SARAH = { quote: "Mark rebuilt our old basalt wall.", name: "Sarah K.", town: "Waitara" };
const FULL = {
  quote: "A tidy deck, done on time.",
  name: "Tom R.",
  town: "Inglewood",
  service: "Deck Construction",
  month: "2025-03",
  link: "https://www.builderscrack.co.nz/reviews/123",
};

async function add(body: Record<string, unknown>) {
  return (await ctx.admin.post("/api/admin/reviews").send(body).expect(201)).body as { id: string } & Record<
    string,
    unknown
  >;
}
const shownNames = async () =>
  ((await ctx.api.get("/api/reviews").expect(200)).body as { name: string }[]).map((review) => review.name);
const allNames = async () =>
  ((await ctx.admin.get("/api/admin/reviews").expect(200)).body as { name: string }[]).map((review) => review.name);

describe("the reviews API", () => {
  it("adds reviews at the end, lists them in order (the admin with hidden), and every write empties the page cache", async () => {
    const changes = ctx.publicChanges();
    const first = await add(SARAH);
    expect(first).toEqual({ id: expect.any(String), ...SARAH, service: "", month: "", link: "", hidden: false });
    const second = await add(FULL);
    expect((await ctx.api.get("/api/reviews").expect(200)).body).toEqual([
      { id: first.id, ...SARAH, service: "", month: "", link: "" },
      { id: second.id, ...FULL },
    ]);
    expect(await allNames()).toEqual(["Sarah K.", "Tom R."]);

    const hidden = await ctx.admin.patch(`/api/admin/reviews/${first.id}`).send({ hidden: true }).expect(200);
    expect(hidden.body).toMatchObject({ ...SARAH, hidden: true });
    expect(await shownNames()).toEqual(["Tom R."]);
    expect(await allNames()).toEqual(["Sarah K.", "Tom R."]);

    const edited = await ctx.admin.patch(`/api/admin/reviews/${second.id}`).send({ town: "  Stratford " }).expect(200);
    expect(edited.body).toEqual({ ...FULL, id: second.id, town: "Stratford", hidden: false });

    const reordered = await ctx.admin
      .put("/api/admin/reviews/reorder")
      .send({ ids: [second.id, first.id] })
      .expect(200);
    expect((reordered.body as { name: string }[]).map((review) => review.name)).toEqual(["Tom R.", "Sarah K."]);
    await ctx.admin.patch(`/api/admin/reviews/${first.id}`).send({ hidden: false }).expect(200);
    expect(await shownNames()).toEqual(["Tom R.", "Sarah K."]);

    await ctx.admin.delete(`/api/admin/reviews/${second.id}`).expect(204);
    expect(await allNames()).toEqual(["Sarah K."]);
    await ctx.admin.delete(`/api/admin/reviews/${second.id}`).expect(404, { message: "No such review" });
    await ctx.admin.patch(`/api/admin/reviews/${second.id}`).send({ hidden: true }).expect(404);
    // Positions closed up: the one left reorders on its own.
    await ctx.admin
      .put("/api/admin/reviews/reorder")
      .send({ ids: [first.id] })
      .expect(200);
    expect(ctx.publicChanges()).toBe(changes + 8); // the refused and missing ones changed nothing
  });

  it("refuses bad input with 400 and a message per field, writing nothing", async () => {
    const kept = await add(SARAH);
    const refusals: [Record<string, unknown>, string, RegExp][] = [
      [{ ...SARAH, quote: "   " }, "quote", /What the customer said is required/],
      [{ name: "Sarah K." }, "quote", /What the customer said is required/],
      [{ ...SARAH, name: "" }, "name", /Name is required/],
      [{ ...SARAH, quote: "x".repeat(601) }, "quote", /at most 600 characters/],
      [{ ...SARAH, link: "http://www.google.com/maps" }, "link", /https:\/\//],
      [{ ...SARAH, link: "javascript:alert(1)" }, "link", /https:\/\//],
      [{ ...SARAH, service: "Paving" }, "service", /one of: Traditional Stonework, Veneer Installation/],
      [{ ...SARAH, month: "2025-13" }, "month", /YYYY-MM/],
      [{ ...SARAH, town: 7 }, "town", /must be text/],
    ];
    for (const [body, field, message] of refusals) {
      const res = await ctx.admin.post("/api/admin/reviews").send(body).expect(400);
      expect(res.body.errors[field], JSON.stringify(body)).toMatch(message);
      expect(res.body.message).toBe(res.body.errors[field]);
      const patch = await ctx.admin.patch(`/api/admin/reviews/${kept.id}`).send({ [field]: body[field] ?? "" });
      if (field !== "quote" || body.quote !== undefined) expect(patch.status, `PATCH ${field}`).toBe(400);
    }
    await ctx.admin.patch(`/api/admin/reviews/${kept.id}`).send({ hidden: "yes" }).expect(400);
    expect((await ctx.admin.get("/api/admin/reviews").expect(200)).body).toEqual([
      { id: kept.id, ...SARAH, service: "", month: "", link: "", hidden: false },
    ]);

    const other = await add(FULL);
    for (const ids of [[kept.id], [kept.id, kept.id], [kept.id, other.id, "no-such-id"], [other.id, "no-such-id"]]) {
      const res = await ctx.admin.put("/api/admin/reviews/reorder").send({ ids }).expect(400);
      expect(res.body.errors.ids).toMatch(/every review exactly once/);
    }
    await ctx.admin.put("/api/admin/reviews/reorder").send({ ids: "all" }).expect(400);
    expect(await allNames()).toEqual(["Sarah K.", "Tom R."]);
  });

  it(`holds at most ${MAX_LIST_ITEMS} reviews`, async () => {
    const values = Array.from({ length: MAX_LIST_ITEMS }, (_, position) => ({
      id: `review-${position}`,
      list: "reviews",
      position,
      hidden: 0,
      fields: JSON.stringify({ quote: `Review ${position}`, name: "A. Customer" }),
      created_at: new Date().toISOString(),
      updated_at: new Date().toISOString(),
    }));
    await ctx.services.db.insertInto("list_items").values(values).execute();
    const res = await ctx.admin.post("/api/admin/reviews").send(SARAH).expect(400);
    expect(res.body.message).toBe("A list holds at most 100 items");
  });

  it("answers 401 to every admin call when signed out, and changes nothing", async () => {
    const review = await add(SARAH);
    const enquiry = await insertEnquiry(ctx.services, 1);
    const anonymous = supertest(ctx.app);
    for (const call of [
      anonymous.get("/api/admin/reviews"),
      anonymous.post("/api/admin/reviews").send(FULL),
      anonymous.patch(`/api/admin/reviews/${review.id}`).send({ hidden: true }),
      anonymous.delete(`/api/admin/reviews/${review.id}`),
      anonymous.put("/api/admin/reviews/reorder").send({ ids: [review.id] }),
      anonymous.post(`/api/admin/contact-submissions/${enquiry}/review-asked`),
    ]) {
      expect((await call).status).toBe(401);
    }
    expect(await shownNames()).toEqual(["Sarah K."]);
    const row = await ctx.services.db.selectFrom("contact_submissions").select("review_asked_at").executeTakeFirst();
    expect(row?.review_asked_at).toBeNull();
  });

  it("records each change in the activity log in the owner's words, without the customer's words or name", async () => {
    const review = await add(SARAH);
    await ctx.admin.patch(`/api/admin/reviews/${review.id}`).send({ hidden: true }).expect(200);
    await ctx.admin
      .put("/api/admin/reviews/reorder")
      .send({ ids: [review.id] })
      .expect(200);
    await ctx.admin.delete(`/api/admin/reviews/${review.id}`).expect(204);
    const { entries } = (await ctx.admin.get("/api/admin/activity").expect(200)).body as {
      entries: { summary: string }[];
    };
    const summaries = entries.map((entry) => entry.summary);
    expect(summaries.slice(0, 4)).toEqual([
      "Deleted a review",
      "Reordered Customer Reviews",
      "Changed a review",
      "Added a review",
    ]);
    expect(JSON.stringify(entries)).not.toMatch(/Sarah|basalt/);
  });
});

describe("asking for a review", () => {
  it("POST …/review-asked remembers when (204, nothing sent); the inbox then carries the time; 404 for no such enquiry", async () => {
    const id = await insertEnquiry(ctx.services, 2);
    const before = (await ctx.admin.get("/api/admin/contact-submissions").expect(200)).body as {
      reviewAskedAt: string | null;
    }[];
    expect(before[0]!.reviewAskedAt).toBeNull();
    await ctx.admin.post(`/api/admin/contact-submissions/${id}/review-asked`).expect(204);
    const [item] = (await ctx.admin.get("/api/admin/contact-submissions").expect(200)).body as {
      reviewAskedAt: string | null;
    }[];
    expect(Date.parse(item!.reviewAskedAt!)).not.toBeNaN();
    await ctx.admin.post("/api/admin/contact-submissions/no-such-enquiry/review-asked").expect(404);
  });

  it("the review address is a text of its own, empty until set, and must be an https:// address", async () => {
    expect((await ctx.api.get("/api/content/contact.reviewLink").expect(200)).body).toMatchObject({
      content: "",
      isDefault: true,
    });
    for (const bad of ["http://g.page/r/abc", "g.page/r/abc/review", "javascript:alert(1)"]) {
      const res = await ctx.admin.put("/api/admin/content/contact.reviewLink").send({ content: bad }).expect(400);
      expect(res.body.errors.content).toBe("content must be an https:// address");
    }
    await ctx.admin
      .put("/api/admin/content/contact.reviewLink")
      .send({ content: "https://g.page/r/abc/review" })
      .expect(200);
    await ctx.admin.put("/api/admin/content/contact.reviewLink").send({ content: "" }).expect(200);
  });
});

describe.runIf(process.env.TEST_BACKEND === "postgres-s3")("two instances on one PostgreSQL database", () => {
  it("a review added on A empties B's page cache", async () => {
    const b = await ctx.openInstance({ pageCache: true });
    await b.api.get("/api/content/hero.title").expect(200);
    expect(b.pageCache!.size).toBe(1);
    await add(SARAH);
    await vi.waitFor(() => expect(b.pageCache!.size).toBe(0));
    expect((await (await signedInAgent(b)).get("/api/admin/reviews").expect(200)).body).toHaveLength(1);
  });
});
