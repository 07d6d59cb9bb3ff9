/**
 * Resumable uploads keep every defence of the single upload (decision 0062),
 * on this run's back end (TEST_BACKEND): the session and the cross-site
 * check, 20 MB on the sum of the parts, the type by the file's own bytes,
 * one registration, bytes under incoming/ until checked, and housekeeping.
 */
import { PutBucketCorsCommand } from "@aws-sdk/client-s3";
import { afterEach, describe, expect, it } from "vitest";
import type { Clock } from "~/lib/clock";
import type { ResumableUpload } from "~/uploads/resumable-protocol";
import { pruneStaleUploads } from "~/uploads/uploads.server";
import { makeImage, makeJpegOfSize } from "../fixtures/images";
import { createAdminContext, putUpload, signedInAgent, type AdminContext } from "./helpers";

let ctx: AdminContext;
afterEach(async () => {
  await ctx?.close();
});

const MAX_BYTES = 20_971_520;
const HOUR = 60 * 60 * 1000;
const later = (ms: number): Clock => ({ now: () => new Date(Date.now() + ms) });

async function start(size: number, type = "image/jpeg"): Promise<ResumableUpload> {
  return (await ctx.admin.post("/api/uploads/resumable").send({ size, type }).expect(201)).body as ResumableUpload;
}

/** PUTs one part as the page does: to this site with the session, or to the bucket's presigned URL with nothing else. */
async function putPart(url: string, body: Buffer): Promise<{ status: number; etag: string | null; message?: string }> {
  if (/^https?:/.test(url)) {
    const res = await fetch(url, { method: "PUT", body: new Uint8Array(body) });
    await res.arrayBuffer();
    return { status: res.status, etag: res.headers.get("etag") };
  }
  const res = await ctx.admin.put(url).set("Content-Type", "application/octet-stream").send(body);
  return {
    status: res.status,
    etag: (res.headers.etag as string | undefined) ?? null,
    message: (res.body as { message?: string }).message,
  };
}

/** Sends every part of `file`; the ETags to complete with. */
async function sendAll(upload: ResumableUpload, file: Buffer) {
  const parts: { partNumber: number; etag: string }[] = [];
  for (const { partNumber, bytes, url } of upload.parts) {
    const from = (partNumber - 1) * upload.partBytes;
    const sent = await putPart(url, file.subarray(from, from + bytes));
    expect(sent.status, `part ${partNumber}`).toBe(200);
    parts.push({ partNumber, etag: sent.etag! });
  }
  return parts;
}

const complete = (upload: ResumableUpload, parts: { partNumber: number; etag: string }[]) =>
  ctx.admin.post(`/api/uploads/resumable/${upload.uploadId}/complete`).send({ parts });

const rows = () => ctx.services.db.selectFrom("uploads").select(["id", "status"]).execute();

describe("resumable uploads keep the single upload's defences", () => {
  it("say whether uploads resume here, with the part size: 1 MiB through this server, 5 MiB to a bucket", async () => {
    ctx = await createAdminContext();
    const { body } = await ctx.admin.get("/api/uploads/resumable").expect(200);
    expect(body).toEqual({ available: true, partBytes: ctx.backend.storage === "s3" ? 5_242_880 : 1_048_576 });
  });

  it("need the administrator's session, and refuse requests from another site", async () => {
    ctx = await createAdminContext();
    const upload = await start(2000);
    const { default: supertest } = await import("supertest");
    const anonymous = supertest(ctx.app);
    const id = upload.uploadId;
    const refused = {
      "GET support": await anonymous.get("/api/uploads/resumable"),
      "POST start": await anonymous.post("/api/uploads/resumable").send({ size: 2000, type: "image/jpeg" }),
      "GET parts": await anonymous.get(`/api/uploads/resumable/${id}/parts`),
      "PUT part": await anonymous.put(`/api/uploads/resumable/${id}/parts/1`).send(Buffer.alloc(2000)),
      "POST complete": await anonymous
        .post(`/api/uploads/resumable/${id}/complete`)
        .send({ parts: [{ partNumber: 1, etag: '"00"' }] }),
    };
    for (const [what, res] of Object.entries(refused)) expect(res.status, what).toBe(401);
    const crossSite = await ctx.admin
      .post("/api/uploads/resumable")
      .set("Origin", "https://evil.example")
      .send({ size: 2000, type: "image/jpeg" });
    expect(crossSite.status).toBe(403);
    const crossSitePart = await ctx.admin
      .put(`/api/uploads/resumable/${id}/parts/1`)
      .set("Origin", "https://evil.example")
      .send(Buffer.alloc(2000));
    expect(crossSitePart.status).toBe(403);
    expect(await rows()).toEqual([{ id, status: "parts" }]);
  });

  it("refuse a file over 20 MB, or of a type that is no image, before starting anything", async () => {
    ctx = await createAdminContext();
    const tooLarge = await ctx.admin.post("/api/uploads/resumable").send({ size: MAX_BYTES + 1, type: "image/jpeg" });
    expect(tooLarge.status).toBe(400);
    expect(tooLarge.body.message).toBe("The file is too large. Maximum size is 20MB");
    const notAnImage = await ctx.admin.post("/api/uploads/resumable").send({ size: 1000, type: "text/html" });
    expect(notAnImage.status).toBe(400);
    expect(notAnImage.body.message).toBe("Only images can be uploaded: type must be an image type such as image/jpeg");
    expect(await rows()).toEqual([]);
    expect(await ctx.storedKeys("incoming/")).toEqual([]);
  });

  it("hold each part to its size, so the parts never add up to more than 20 MB", async () => {
    ctx = await createAdminContext();
    const upload = await start(MAX_BYTES);
    expect(upload.partCount).toBe(ctx.backend.storage === "s3" ? 4 : 20);
    expect(upload.parts.reduce((sum, part) => sum + part.bytes, 0)).toBe(MAX_BYTES);
    const first = upload.parts[0]!;
    // One byte more, or fewer, than the part's size: refused (by this server, or by the bucket's signature on Content-Length).
    const longer = await putPart(first.url, Buffer.alloc(first.bytes + 1, 0xff));
    const shorter = await putPart(first.url, Buffer.alloc(first.bytes - 1, 0xff));
    // A part past the last: this server's part route refuses it; a bucket's parts never come here.
    const beyond = await ctx.admin.put(`/api/uploads/resumable/${upload.uploadId}/parts/21`).send(Buffer.alloc(10));
    const refusals = [
      [longer.status, longer.message],
      [shorter.status, shorter.message],
      [beyond.status, beyond.body],
    ];
    expect(refusals).toEqual(
      ctx.backend.storage === "s3"
        ? [
            [403, undefined],
            [403, undefined],
            [404, { message: expect.stringMatching(/^Parts of uploads to this site's bucket go to the bucket/) }],
          ]
        : [
            [413, "The file is too large. Maximum size is 20MB"],
            [400, "Part 1 of this upload is 1048576 bytes: send exactly those, with that Content-Length"],
            [400, { message: "This upload has 20 part(s): the part number must be from 1 to 20" }],
          ],
    );
    expect(await ctx.storedKeys("incoming/")).toEqual([]);
    // Completing without every part is refused, and the upload can still be finished.
    const partial = await complete(upload, [{ partNumber: 1, etag: '"0123456789abcdef0123456789abcdef"' }]);
    expect(partial.status).toBe(400);
    expect(partial.body.message).toMatch(/^Part 2 is missing/);
    expect(await rows()).toEqual([{ id: upload.uploadId, status: "parts" }]);
  });

  it("judge the type by the file's own bytes: a text file declared as a JPEG is refused and nothing of it is kept", async () => {
    ctx = await createAdminContext();
    const text = Buffer.from("<html><body>not a photo</body></html>".repeat(40_000));
    const upload = await start(text.length);
    if (ctx.backend.storage === "s3") {
      const parts = await sendAll(upload, text);
      const res = await complete(upload, parts);
      expect(res.status).toBe(415);
      expect(res.body.message).toBe("The file is not a supported image (JPEG, PNG, WebP, AVIF or GIF)");
    } else {
      // Through this server the first part already tells: the rest is never taken.
      const first = await putPart(upload.parts[0]!.url, text.subarray(0, upload.parts[0]!.bytes));
      expect(first).toMatchObject({
        status: 415,
        message: "The file is not a supported image (JPEG, PNG, WebP, AVIF or GIF)",
      });
      expect(
        (
          await putPart(
            upload.parts[1]!.url,
            text.subarray(upload.partBytes, upload.partBytes + upload.parts[1]!.bytes),
          )
        ).status,
      ).toBe(409);
      expect((await complete(upload, [{ partNumber: 1, etag: '"00"' }])).status).toBe(409);
    }
    expect(await rows()).toEqual([{ id: upload.uploadId, status: "failed" }]);
    expect([...(await ctx.storedKeys("incoming/")), ...(await ctx.storedKeys("originals/"))]).toEqual([]);
  });

  it("type the assembled file by its own bytes, not by what was declared: a PNG declared as a JPEG is kept as a PNG", async () => {
    ctx = await createAdminContext();
    const png = await makeImage("png", { width: 900, height: 700 });
    const upload = await start(png.length, "image/jpeg");
    await complete(upload, await sendAll(upload, png)).expect(200);
    expect(
      await ctx.services.db
        .selectFrom("uploads")
        .select(["status", "content_type"])
        .where("id", "=", upload.uploadId)
        .execute(),
    ).toEqual([{ status: "completed", content_type: "image/png" }]);
  });

  it("refuse a completion that lists a part twice, and keep the upload to finish", async () => {
    ctx = await createAdminContext();
    const photo = await makeJpegOfSize(1_500_000);
    const upload = await start(photo.length);
    const parts = await sendAll(upload, photo);
    const twice = await complete(upload, [...parts, parts[0]!]);
    expect([twice.status, twice.body.message]).toEqual([
      400,
      `This upload has ${upload.partCount} part(s): list each once, numbered 1 to ${upload.partCount}`,
    ]);
    expect(await rows()).toEqual([{ id: upload.uploadId, status: "parts" }]);
    await complete(upload, parts).expect(200);
  });

  it("keep at most 30 unfinished at once: the next is answered 429 in the owner's words, none is expired for it, and one finished makes room", async () => {
    ctx = await createAdminContext();
    const photo = await makeJpegOfSize(3_000);
    const started = [];
    for (let i = 0; i < 30; i++) started.push(await start(photo.length));
    const refused = await ctx.admin.post("/api/uploads/resumable").send({ size: photo.length, type: "image/jpeg" });
    expect([refused.status, refused.headers["retry-after"], refused.body]).toEqual([
      429,
      "30",
      { message: "Let the photos already on their way finish first." },
    ]);
    expect((await rows()).filter((row) => row.status === "parts")).toHaveLength(30);
    await complete(started[0]!, await sendAll(started[0]!, photo)).expect(200);
    await start(photo.length);
  });

  it("keep every byte under incoming/ until it is checked, then register it once; complete answers the same when asked again", async () => {
    ctx = await createAdminContext();
    const photo = await makeJpegOfSize(2_500_000);
    const upload = await start(photo.length);
    const parts = await sendAll(upload, photo);
    // Before it is put together: nothing outside incoming/ (a bucket shows no object until then).
    expect(await ctx.storedKeys("originals/")).toEqual([]);
    const incoming = await ctx.storedKeys("incoming/");
    expect(incoming).toEqual(
      ctx.backend.storage === "s3" ? [] : [1, 2, 3].map((n) => `incoming/${upload.uploadId}.part-${n}`),
    );

    const { imageURL } = (await complete(upload, parts).expect(200)).body as { imageURL: string };
    expect((await complete(upload, parts).expect(200)).body).toEqual({ imageURL });
    const registered = await ctx.admin
      .put("/api/admin/gallery-images")
      .send({ imageURL, galleryType: "traditional", caption: "" });
    expect(registered.status).toBe(201);
    expect(await ctx.storedKeys("originals/")).toEqual([`originals/${upload.uploadId}`]);
    expect(await ctx.storedKeys("incoming/")).toEqual([]);
    const again = await ctx.admin
      .put("/api/admin/gallery-images")
      .send({ imageURL, galleryType: "traditional", caption: "" });
    expect(again.status).toBe(400);
    expect((await ctx.admin.get("/api/galleries/traditional").expect(200)).body).toHaveLength(1);
    // Done: no more parts, no fresh URLs.
    expect((await ctx.admin.get(`/api/uploads/resumable/${upload.uploadId}/parts`)).status).toBe(409);
  });

  it("refuse to put together a part that is not the one its ETag names", async () => {
    ctx = await createAdminContext({}, { storage: "disk" });
    const photo = await makeJpegOfSize(1_500_000);
    const upload = await start(photo.length);
    const parts = await sendAll(upload, photo);
    const res = await complete(upload, [parts[0]!, { partNumber: 2, etag: '"0123456789abcdef0123456789abcdef"' }]);
    expect(res.status).toBe(400);
    expect(res.body.message).toBe("Part 2 is not the one whose ETag was given: send it again");
    // Nothing lost: with the right ETags it completes.
    await complete(upload, parts).expect(200);
  });

  it("are deleted by housekeeping a day after they began, unfinished: kept at 23 hours, gone at 24 hours and a minute", async () => {
    ctx = await createAdminContext();
    const photo = await makeJpegOfSize(6_000_000);
    const upload = await start(photo.length);
    // The first part only, then the signal never came back.
    const first = await putPart(upload.parts[0]!.url, photo.subarray(0, upload.parts[0]!.bytes));
    expect(first.status).toBe(200);
    expect(await pruneStaleUploads(ctx.services, later(23 * HOUR))).toBe(0);
    expect(await rows()).toEqual([{ id: upload.uploadId, status: "parts" }]);
    expect(await pruneStaleUploads(ctx.services, later(24 * HOUR + 60_000))).toBe(1);
    expect(await rows()).toEqual([]);
    expect(await ctx.storedKeys("incoming/")).toEqual([]);
    expect((await ctx.admin.get(`/api/uploads/resumable/${upload.uploadId}/parts`)).status).toBe(404);
  });
});

describe("a bucket with the CORS rule of before (no ETag exposed)", () => {
  it("starts, keeps the single upload, and says why photos cannot resume", async () => {
    ctx = await createAdminContext({}, { storage: "s3" });
    // The rule the README asked for until now: PUT from the site, Content-Type, nothing exposed.
    const origin = new URL(ctx.env.SITE_URL).origin;
    const rule = {
      AllowedOrigins: [origin],
      AllowedMethods: ["PUT"],
      AllowedHeaders: ["content-type"],
      MaxAgeSeconds: 3600,
    };
    await ctx.bucket!.client.send(
      new PutBucketCorsCommand({ Bucket: ctx.bucket!.name, CORSConfiguration: { CORSRules: [rule] } }),
    );

    // A server starting on that bucket is not refused…
    const instance = await ctx.openInstance();
    const admin = await signedInAgent(instance);
    const support = await admin.get("/api/uploads/resumable").expect(200);
    // …and says why, in words the owner can pass on.
    expect(support.body).toEqual({
      available: false,
      reason:
        "The photo bucket's CORS rule does not let this page read the ETag header of each part, which resuming needs. " +
        'Whoever set up the bucket can add "ExposeHeaders": ["ETag"] to that rule (see "The bucket\'s CORS rule" in the README).',
    });
    const refused = await admin.post("/api/uploads/resumable").send({ size: 2000, type: "image/jpeg" });
    expect(refused.status).toBe(409);
    expect(refused.body).toEqual({ message: support.body.reason, resumable: false });

    // The spec's single upload works as before.
    const photo = await makeJpegOfSize(300_000);
    const { uploadURL } = (
      await admin.post("/api/objects/upload").send({ size: photo.length, type: "image/jpeg" }).expect(200)
    ).body as {
      uploadURL: string;
    };
    expect((await putUpload({ admin }, uploadURL, photo)).status).toBe(200);
    await admin
      .put("/api/admin/gallery-images")
      .send({ imageURL: uploadURL, galleryType: "veneer", caption: "" })
      .expect(201);
  });
});
