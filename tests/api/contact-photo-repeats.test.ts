import supertest from "supertest";
import { afterEach, describe, expect, it } from "vitest";
import type { FakePage } from "../support/fake-react-router-build";
import { fakeReactRouterBuild } from "../support/fake-react-router-build";
import { action, loader } from "~/routes/contact";
import { createApp } from "../../server/app";
import { makeImage } from "../fixtures/images";
import { createTestContext, type TestContext } from "./helpers";

/**
 * The no-JS form sent twice (stored once): the repeat's photos join the first enquiry, up to 5, and
 * the 303 after it says how many could not be sent. The contact route's own action and loader, behind
 * the real multipart reader, on this run's back end.
 */

let ctx: TestContext;
afterEach(async () => {
  await ctx.close();
});

const TEXT = {
  name: "Aroha Smith",
  email: "aroha@example.co.nz",
  message: "A quote for a basalt retaining wall, photos attached.",
  website: "",
};

describe("the no-JS form sent again with more photos", () => {
  it("adds them to the first enquiry up to 5, and the page after the 303 says how many could not be sent", async () => {
    ctx = await createTestContext();
    const page = { action, loader } as unknown as FakePage;
    const site = supertest(
      createApp(ctx.services, { reactRouter: { build: fakeReactRouterBuild(page), mode: "production" } }),
    );
    const photo = await makeImage("jpeg", { width: 64, height: 48 });
    const post = (names: string[]) => {
      const req = site.post("/contact").field(TEXT);
      for (const name of names) req.attach("photos", photo, { filename: name, contentType: "image/jpeg" });
      return req;
    };

    const first = await post(["a.jpg", "b.jpg", "c.jpg", "d.jpg"]);
    expect([first.status, first.headers.location]).toEqual([303, "/contact?sent=1#contact-result"]);
    const again = await post(["e.jpg", "f.jpg"]);
    expect([again.status, again.headers.location]).toEqual([303, "/contact?sent=1&not-attached=1#contact-result"]);

    // The page it is sent to reads what to say from its address.
    const shown = await site.get(again.headers.location as string).expect(200);
    expect(shown.text).toContain('"sent":{"notTaken":false,"notAttached":1}');
    const enquiries = await ctx.services.db
      .selectFrom("contact_submissions")
      .select(["id", "photos_not_attached"])
      .execute();
    expect(enquiries).toEqual([{ id: expect.any(String), photos_not_attached: 1 }]);
    const photos = await ctx.services.db.selectFrom("enquiry_photos").select(["submission_id", "position"]).execute();
    expect(photos.map((row) => [row.submission_id, row.position]).sort()).toEqual(
      [1, 2, 3, 4, 5].map((position) => [enquiries[0]!.id, position]),
    );
  });
});
