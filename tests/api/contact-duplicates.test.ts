import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { createManualClock, type ManualClock } from "~/lib/clock";
import { createTestContext, type TestContext } from "./helpers";

/**
 * The same enquiry sent again within 10 minutes (a second tap, or a repeat after an answer lost on a
 * weak signal) is stored once, answered as the first, and not counted toward the limit.
 */
let ctx: TestContext;
let clock: ManualClock;
beforeEach(async () => {
  clock = createManualClock("2026-03-02T09:00:00.000Z");
  ctx = await createTestContext({}, { clock });
});
afterEach(async () => {
  await ctx.close();
});

const enquiry = {
  name: "Aroha Smith",
  email: "aroha@example.co.nz",
  phone: "021 123 4567",
  message: "A quote for a basalt retaining wall, please.",
};
const stored = () =>
  ctx.services.db
    .selectFrom("contact_submissions")
    .select(["id", "name", "email", "message"])
    .orderBy("submitted_at")
    .execute();
const jobs = () => ctx.services.db.selectFrom("notification_jobs").select("submission_id").execute();

describe("POST /api/contact: the same enquiry twice", () => {
  it("within 10 minutes is stored once, with one notification; both answers are 201 with the first enquiry's id", async () => {
    const first = await ctx.api.post("/api/contact").send(enquiry).expect(201);
    clock.advance(9 * 60_000);
    // The same text with different spacing around it, and another phone number: the same enquiry.
    const again = await ctx.api
      .post("/api/contact")
      .send({ ...enquiry, name: ` ${enquiry.name} `, phone: "" })
      .expect(201);
    expect(first.body.id).toEqual(expect.any(String));
    expect(again.body).toMatchObject({ message: "Message received", id: first.body.id });
    expect(await stored()).toEqual([
      { id: first.body.id, name: enquiry.name, email: enquiry.email, message: enquiry.message },
    ]);
    expect(await jobs()).toEqual([{ submission_id: first.body.id }]);
  });

  it("is not counted toward the limit of 5 in 10 minutes", async () => {
    for (let i = 0; i < 8; i++) await ctx.api.post("/api/contact").send(enquiry).expect(201);
    for (let i = 1; i < 5; i++)
      await ctx.api
        .post("/api/contact")
        .send({ ...enquiry, message: `${enquiry.message} (${i})` })
        .expect(201);
    expect(await stored()).toHaveLength(5);
    // The sixth different enquiry is over the limit; repeats of a stored one still answer 201.
    await ctx.api
      .post("/api/contact")
      .send({ ...enquiry, message: `${enquiry.message} (5)` })
      .expect(429);
    await ctx.api.post("/api/contact").send(enquiry).expect(201);
  });

  it("after 10 minutes, or with another name, e-mail or message, is a new enquiry", async () => {
    const first = await ctx.api.post("/api/contact").send(enquiry).expect(201);
    clock.advance(10 * 60_000);
    const later = await ctx.api.post("/api/contact").send(enquiry).expect(201);
    expect(later.body.id).not.toBe(first.body.id);
    for (const change of [
      { name: "Aroha Smyth" },
      { email: "aroha@example.com" },
      { message: `${enquiry.message}!` },
    ]) {
      const other = await ctx.api
        .post("/api/contact")
        .send({ ...enquiry, ...change })
        .expect(201);
      expect([first.body.id, later.body.id]).not.toContain(other.body.id);
    }
    expect(await stored()).toHaveLength(5);
  });

  it("sent twice at once is stored once, and both answers carry its id", async () => {
    const answers = await Promise.all([0, 1, 2].map(() => ctx.api.post("/api/contact").send(enquiry)));
    expect(answers.map((answer) => answer.status)).toEqual([201, 201, 201]);
    const rows = await stored();
    expect(rows).toHaveLength(1);
    expect(answers.map((answer) => answer.body.id)).toEqual([rows[0]!.id, rows[0]!.id, rows[0]!.id]);
    expect(await jobs()).toHaveLength(1);
  });
});
