import fs from "node:fs/promises";
import path from "node:path";
import sharp from "sharp";
import { acceptEnquiryPhoto } from "~/enquiry-photos/enquiry-photo-accept.server";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { exifHasGps, makeImage, makeJpegWithExif } from "../fixtures/images";
import { createPhotoContext, type PhotoContext } from "./enquiry-photo-helpers";

/** A visitor's photos, from upload to the owner's inbox (both back ends). */

let ctx: PhotoContext;
beforeEach(async () => {
  ctx = await createPhotoContext();
});
afterEach(async () => {
  await ctx.close();
});

type Item = { id: string; photos: { n: number; width: number; height: number }[] };

describe("a photo sent with an enquiry", () => {
  it("is uploaded for a token, attached to the enquiry, listed in the inbox and served to the owner only", async () => {
    const first = await ctx.upload(
      await makeJpegWithExif({ width: 3000, height: 2000, orientation: 6 }),
      "back wall.jpg",
    );
    expect(first.status).toBe(201);
    expect(first.body).toEqual({ token: expect.stringMatching(/^[\w-]{43}$/), name: "back wall.jpg" });
    const second = await ctx.tokenFor(await makeImage("png", { width: 400, height: 300 }), "shed.png");

    const res = await ctx.enquire([(first.body as { token: string }).token, second]);
    expect(res.status).toBe(201);
    expect(res.body).toEqual({
      message: "Message received",
      id: expect.any(String),
      photos: { attached: 2, notAttached: 0, notTaken: false },
    });
    const id = (res.body as { id: string }).id;

    const [item] = (await ctx.admin.get("/api/admin/contact-submissions").expect(200)).body as Item[];
    expect(item!.id).toBe(id);
    // Upright: the 3000×2000 photo was stored turned a quarter (orientation 6), so it stands 2000 wide.
    expect(item!.photos).toEqual([
      { n: 1, width: 1067, height: 1600 },
      { n: 2, width: 400, height: 300 },
    ]);

    const thumb = await ctx.admin
      .get(`/api/admin/contact-submissions/${id}/photos/1?size=thumb`)
      .buffer(true)
      .expect(200);
    expect(thumb.headers["content-type"]).toBe("image/jpeg");
    expect(thumb.headers["cache-control"]).toBe("private, no-store");
    const thumbMeta = await sharp(thumb.body as Buffer).metadata();
    expect([thumbMeta.format, thumbMeta.width, thumbMeta.height]).toEqual(["jpeg", 213, 320]);

    const view = await ctx.admin
      .get(`/api/admin/contact-submissions/${id}/photos/1?size=view`)
      .buffer(true)
      .expect(200);
    expect(view.headers["cache-control"]).toBe("private, no-store");
    expect((view.body as Buffer).length).toBeLessThanOrEqual(300 * 1024);
    const viewMeta = await sharp(view.body as Buffer).metadata();
    expect([viewMeta.format, viewMeta.width, viewMeta.height]).toEqual(["jpeg", 1067, 1600]);

    // GPS, and every other EXIF, XMP or ICC block, is gone from both kept copies.
    for (const copy of [thumbMeta, viewMeta]) {
      expect(copy.exif).toBeUndefined();
      expect(exifHasGps(copy.exif)).toBe(false);
      expect(copy.xmp).toBeUndefined();
      expect(copy.icc).toBeUndefined();
      expect(copy.orientation).toBeUndefined();
    }

    // Only the two copies of each photo are kept: no original, under the private prefix.
    const keys = await ctx.storedKeys("");
    const photoKeys = keys.filter((key) => key.startsWith("enquiry-photos/"));
    expect(photoKeys).toHaveLength(4);
    expect(photoKeys.every((key) => /^enquiry-photos\/[\w-]+-(thumb|view)\.jpg$/.test(key))).toBe(true);
    expect(keys.filter((key) => !key.startsWith("enquiry-photos/"))).toEqual([]);

    // Signed out: nothing.
    const anonymous = await ctx.api.get(`/api/admin/contact-submissions/${id}/photos/1?size=thumb`);
    expect(anonymous.status).toBe(401);
    expect(anonymous.headers["content-type"]).toMatch(/json/);
  });

  it("answers 400 for a bad size and 404 for a photo that is not there", async () => {
    const token = await ctx.tokenFor(await makeImage("jpeg"));
    const id = ((await ctx.enquire([token])).body as { id: string }).id;
    expect((await ctx.admin.get(`/api/admin/contact-submissions/${id}/photos/1?size=original`)).status).toBe(400);
    expect((await ctx.admin.get(`/api/admin/contact-submissions/${id}/photos/1`)).status).toBe(400);
    const missing = await ctx.admin.get(`/api/admin/contact-submissions/${id}/photos/2?size=view`);
    expect(missing.status).toBe(404);
    expect(missing.body).toEqual({ message: "No such photo" });
    expect((await ctx.admin.get(`/api/admin/contact-submissions/nope/photos/1?size=view`)).status).toBe(404);
    expect((await ctx.admin.get(`/api/admin/contact-submissions/${id}/photos/x?size=view`)).status).toBe(404);
  });

  it("takes a photo already on disk (the no-JS form's parts) and deletes that file, taken or refused", async () => {
    const dir = path.join(ctx.dataDir, "parts");
    await fs.mkdir(dir);
    const onDisk = async (name: string, data: Buffer) => {
      const file = path.join(dir, name);
      await fs.writeFile(file, data);
      return { fileName: name, declaredType: "image/jpeg", path: file };
    };
    const taken = await acceptEnquiryPhoto(
      ctx.services,
      await onDisk("wall.jpg", await makeImage("jpeg")),
      "203.0.113.7",
    );
    expect(taken).toEqual({ status: "accepted", token: expect.any(String), name: "wall.jpg" });
    const refused = await acceptEnquiryPhoto(
      ctx.services,
      await onDisk("big.jpg", Buffer.alloc(15 * 1024 * 1024 + 1, 0xff)),
      "203.0.113.7",
    );
    expect(refused).toEqual({ status: "refused", httpStatus: 413, message: "Photo big.jpg is larger than 15 MB." });
    expect(await fs.readdir(dir)).toEqual([]);
    const res = await ctx.enquire([(taken as { token: string }).token]);
    expect(res.body).toMatchObject({ photos: { attached: 1, notTaken: false } });
  });

  it("the spec's JSON without photoTokens answers exactly as before", async () => {
    const res = await ctx.enquire();
    expect(res.status).toBe(201);
    expect(res.body).toEqual({ message: "Message received", id: expect.any(String) });
  });

  it("refuses photoTokens that are not a list of at most 5 tokens", async () => {
    for (const photoTokens of ["abc", [1], ["a", "b", "c", "d", "e", "f"]]) {
      const res = await ctx.enquire(photoTokens as string[]);
      expect(res.status).toBe(400);
      expect(res.body).toEqual({ message: "photoTokens must be a list of at most 5 photo tokens" });
    }
    expect(await ctx.services.db.selectFrom("contact_submissions").select("id").execute()).toEqual([]);
  });
});
