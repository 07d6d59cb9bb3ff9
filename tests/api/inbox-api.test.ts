import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { csvCell } from "~/contact/submissions-csv.server";
import { createMailContext, type MailContext } from "./mail-helpers";

/** The enquiries inbox over the admin API. Notifications are off here (no SMTP needed). */

type Item = {
  id: string;
  name: string;
  cursor: string;
  readAt: string | null;
  submittedAt: string;
  notification: { status: string };
};

let ctx: MailContext;
beforeEach(async () => {
  ctx = await createMailContext();
});
afterEach(async () => {
  await ctx.close();
});

const list = async (query = "") =>
  (await ctx.admin.get(`/api/admin/contact-submissions${query}`).expect(200)).body as Item[];

/** Every page, following the cursors; `between` runs after each page. */
async function allPages(query: string, between?: (page: Item[]) => Promise<void>): Promise<Item[]> {
  const seen: Item[] = [];
  let before = "";
  for (let i = 0; i < 100; i++) {
    const page = await list(`?${query}${before ? `&before=${encodeURIComponent(before)}` : ""}`);
    seen.push(...page);
    if (page.length === 0) return seen;
    await between?.(page);
    before = page[page.length - 1]!.cursor;
  }
  throw new Error("paging did not end");
}

describe("GET /api/admin/contact-submissions", () => {
  it("adds cursor, readAt and notification to each item, newest first, 50 by default", async () => {
    for (let i = 0; i < 55; i++) {
      await ctx.enquire({ name: `Visitor ${i}` });
      ctx.clock.advance(1000);
    }
    const page = await list();
    expect(page).toHaveLength(50);
    expect(page[0]!.name).toBe("Visitor 54");
    expect(page[49]!.name).toBe("Visitor 5");
    expect(page[0]).toEqual({
      id: expect.any(String),
      name: "Visitor 54",
      email: "visitor@example.com",
      phone: null,
      message: "Could you quote for a garden wall, please?",
      submittedAt: "2026-02-28T20:00:54.000Z",
      photosNotAttached: 0,
      cursor: expect.any(String),
      readAt: null,
      reviewAskedAt: null,
      notification: { status: "off", attempts: 0, lastError: null, nextAttemptAt: null, sentAt: null, inDigest: false },
      photos: [],
    });
    const next = await list(`?before=${page[49]!.cursor}`);
    expect(next.map((item) => item.name)).toEqual(["Visitor 4", "Visitor 3", "Visitor 2", "Visitor 1", "Visitor 0"]);
    expect(await list(`?limit=2`)).toHaveLength(2);
  });

  it("pages through equal timestamps in a stable order, and a deletion between pages skips nothing", async () => {
    // 130 enquiries in the very same millisecond: only the id tells them apart.
    const ids: string[] = [];
    for (let i = 0; i < 130; i++) ids.push((await ctx.enquire({ name: `Same time ${i}` })).id);
    const expectedOrder = [...ids].sort().reverse();

    const pages = await allPages("limit=50");
    expect(pages.map((item) => item.id)).toEqual(expectedOrder);

    // Delete the first item of the next page, and the last one seen, while paging.
    const deleted = new Set<string>();
    const seen = await allPages("limit=50", async (page) => {
      const last = page[page.length - 1]!;
      const nextFirst = expectedOrder[expectedOrder.indexOf(last.id) + 1];
      for (const id of [last.id, nextFirst]) {
        if (id && !deleted.has(id)) {
          await ctx.admin.delete(`/api/admin/contact-submissions/${id}`).expect(204);
          deleted.add(id);
        }
      }
    });
    const expectedSeen = expectedOrder.filter((id) => !deleted.has(id) || seen.some((item) => item.id === id));
    expect(seen.map((item) => item.id)).toEqual(expectedSeen);
    expect(new Set(seen.map((item) => item.id)).size).toBe(seen.length);
    // Everything that still exists was seen.
    for (const id of expectedOrder.filter((id) => !deleted.has(id)))
      expect(seen.some((item) => item.id === id)).toBe(true);
  });

  it("filters unread only", async () => {
    const a = await ctx.enquire({ name: "Read one" });
    await ctx.enquire({ name: "Unread one" });
    await ctx.admin.patch(`/api/admin/contact-submissions/${a.id}`).send({ read: true }).expect(200);
    expect((await list("?unread=1")).map((item) => item.name)).toEqual(["Unread one"]);
    expect((await list("?unread=0")).map((item) => item.name).sort()).toEqual(["Read one", "Unread one"]);
  });

  it.each([
    ["?limit=0", "limit must be a whole number from 1 to 200"],
    ["?limit=201", "limit must be a whole number from 1 to 200"],
    ["?limit=ten", "limit must be a whole number from 1 to 200"],
    ["?before=bm90LWEtY3Vyc29y", "before is not a cursor from this list"],
    ["?unread=yes", "unread must be 1 or 0"],
  ])("answers 400 for %s", async (query, message) => {
    const res = await ctx.admin.get(`/api/admin/contact-submissions${query}`).expect(400);
    expect(res.body).toEqual({ message });
  });
});

describe("read and unread", () => {
  it("new enquiries are unread; PATCH {read} marks them read (keeping the first time) and unread again", async () => {
    const { id } = await ctx.enquire({ name: "Aroha" });
    expect((await ctx.admin.get("/api/admin/contact-submissions/summary").expect(200)).body).toEqual({
      total: 1,
      unread: 1,
    });

    ctx.clock.advance(60_000);
    const read = await ctx.admin.patch(`/api/admin/contact-submissions/${id}`).send({ read: true }).expect(200);
    expect(read.body).toMatchObject({
      id,
      name: "Aroha",
      readAt: ctx.clock.now().toISOString(),
      notification: { status: "off" },
    });
    const firstRead = read.body.readAt;
    ctx.clock.advance(60_000);
    expect(
      (await ctx.admin.patch(`/api/admin/contact-submissions/${id}`).send({ read: true }).expect(200)).body.readAt,
    ).toBe(firstRead);
    expect((await ctx.admin.get("/api/admin/contact-submissions/summary").expect(200)).body).toEqual({
      total: 1,
      unread: 0,
    });

    const unread = await ctx.admin.patch(`/api/admin/contact-submissions/${id}`).send({ read: false }).expect(200);
    expect(unread.body.readAt).toBeNull();
    expect((await ctx.admin.get("/api/admin/contact-submissions/summary").expect(200)).body).toEqual({
      total: 1,
      unread: 1,
    });
  });

  it("answers 404 for an unknown id and 400 for a body without a boolean read", async () => {
    const { id } = await ctx.enquire({ name: "Tom" });
    expect(
      (await ctx.admin.patch("/api/admin/contact-submissions/nope").send({ read: true }).expect(404)).body,
    ).toEqual({ message: "No such enquiry" });
    for (const body of [{}, { read: "yes" }, { read: 1 }]) {
      expect((await ctx.admin.patch(`/api/admin/contact-submissions/${id}`).send(body).expect(400)).body.message).toBe(
        "read must be true or false",
      );
    }
  });

  it("refuses a cross-site PATCH or DELETE", async () => {
    const { id } = await ctx.enquire({ name: "Tom" });
    await ctx.admin
      .patch(`/api/admin/contact-submissions/${id}`)
      .set("Origin", "https://evil.example")
      .send({ read: true })
      .expect(403);
    await ctx.admin.delete(`/api/admin/contact-submissions/${id}`).set("Sec-Fetch-Site", "cross-site").expect(403);
    expect((await list())[0]!.readAt).toBeNull();
  });
});

describe("DELETE /api/admin/contact-submissions/:id", () => {
  it("deletes the enquiry for good, with its notification job; 404 after", async () => {
    const { id } = await ctx.enquire({ name: "Gone" });
    const { id: kept } = await ctx.enquire({ name: "Kept" });
    await ctx.admin.delete(`/api/admin/contact-submissions/${id}`).expect(204);
    expect((await list()).map((item) => item.id)).toEqual([kept]);
    const jobs = await ctx.services.db.selectFrom("notification_jobs").select("submission_id").execute();
    expect(jobs.map((job) => job.submission_id)).toEqual([kept]);
    expect((await ctx.admin.delete(`/api/admin/contact-submissions/${id}`).expect(404)).body).toEqual({
      message: "No such enquiry",
    });
  });
});

describe("POST /api/admin/contact-submissions/:id/resend", () => {
  it("answers 404 for an unknown id", async () => {
    expect((await ctx.admin.post("/api/admin/contact-submissions/nope/resend").expect(404)).body).toEqual({
      message: "No such enquiry",
    });
  });
});

describe("GET /api/admin/contact-submissions/export.csv", () => {
  it("escapes cells: quotes, commas, line breaks, and formula starts get a '", () => {
    expect(csvCell("plain")).toBe("plain");
    expect(csvCell('He said "hi", then left')).toBe('"He said ""hi"", then left"');
    expect(csvCell("line one\r\nline two")).toBe('"line one\r\nline two"');
    expect(csvCell('=HYPERLINK("http://evil")')).toBe('"\'=HYPERLINK(""http://evil"")"');
    expect(csvCell("+64 27 555")).toBe("'+64 27 555");
    expect(csvCell("-2+3")).toBe("'-2+3");
    expect(csvCell("@SUM(A1)")).toBe("'@SUM(A1)");
    expect(csvCell("\tcmd")).toBe("'\tcmd");
    expect(csvCell("\rcmd")).toBe('"\'\rcmd"');
    expect(csvCell("a=b")).toBe("a=b");
  });

  it("downloads every enquiry as RFC 4180 UTF-8 with a BOM, named enquiries-YYYY-MM-DD.csv in New Zealand time", async () => {
    const first = await ctx.enquire({
      name: "=cmd|' /C calc'!A0",
      email: "eve@example.com",
      phone: "+64 27 555 0184",
      message: 'Quote "urgent", please\nSecond line — kia ora',
    });
    ctx.clock.advance(60_000);
    await ctx.enquire({ name: "Müller, Jürgen", email: "j@example.de" });
    await ctx.admin.patch(`/api/admin/contact-submissions/${first.id}`).send({ read: true }).expect(200);

    const res = await ctx.admin
      .get("/api/admin/contact-submissions/export.csv")
      .buffer(true)
      .parse((response, done) => {
        const chunks: Buffer[] = [];
        response.on("data", (chunk: Buffer) => chunks.push(chunk));
        response.on("end", () => done(null, Buffer.concat(chunks)));
      });
    expect(res.status).toBe(200);
    expect(res.headers["content-type"]).toBe("text/csv; charset=utf-8");
    // 20:01 UTC on 28 February is already 1 March in New Zealand.
    expect(res.headers["content-disposition"]).toBe('attachment; filename="enquiries-2026-03-01.csv"');
    const bytes = res.body as Buffer;
    expect([...bytes.subarray(0, 3)]).toEqual([0xef, 0xbb, 0xbf]);
    const text = bytes.subarray(3).toString("utf8");
    expect(text).toBe(
      "Received,Name,Email,Phone,Message,Read,Notification,Photos\r\n" +
        '2026-03-01 09:01,"Müller, Jürgen",j@example.de,,"Could you quote for a garden wall, please?",No,Off,0\r\n' +
        '2026-03-01 09:00,\'=cmd|\' /C calc\'!A0,eve@example.com,\'+64 27 555 0184,"Quote ""urgent"", please\nSecond line — kia ora",Yes,Off,0\r\n',
    );
  });

  it("streams thousands of enquiries, every one once", async () => {
    const count = 1234;
    await ctx.services.db.transaction().execute(async (trx) => {
      for (let i = 0; i < count; i++) {
        await trx
          .insertInto("contact_submissions")
          .values({
            id: `id-${String(i).padStart(5, "0")}`,
            name: `Name ${i}`,
            email: "a@example.nz",
            phone: null,
            message: "Hello there, a quote please.",
            submitted_at: "2026-02-01T00:00:00.000Z",
            read_at: null,
          })
          .execute();
      }
    });
    const res = await ctx.admin.get("/api/admin/contact-submissions/export.csv").expect(200);
    const lines = (res.text as string)
      .replace(/^\uFEFF/, "")
      .trimEnd()
      .split("\r\n");
    expect(lines).toHaveLength(count + 1);
    expect(new Set(lines.slice(1).map((line) => line.split(",")[1])).size).toBe(count);
  });
});
