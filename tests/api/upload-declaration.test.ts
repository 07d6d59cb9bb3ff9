/**
 * POST /api/objects/upload takes the file's size and type,
 * refuses what the site will not take before signing anything, and signs
 * the rest into the URL, so a PUT of another size or type is refused (by the
 * bucket, as the verifying front checks, or by this server on the disk).
 */
import { HeadObjectCommand } from "@aws-sdk/client-s3";
import { afterEach, describe, expect, it } from "vitest";
import { makeImage } from "../fixtures/images";
import { registerImage } from "../support/gallery-api";
import { createAdminContext, putUpload, type AdminContext, type StorageKind } from "./helpers";

let ctx: AdminContext;

afterEach(async () => {
  await ctx?.close();
});

async function uploadRows() {
  return ctx.services.db.selectFrom("uploads").select(["status", "content_type"]).execute();
}

describe.each<StorageKind>(["disk", "s3"])("POST /api/objects/upload with the file's size and type (%s)", (storage) => {
  /** What a link binds its PUT to: the headers the bucket checks the signature of, or this server's size and type. */
  const bound = (uploadURL: string) => {
    const { searchParams } = new URL(uploadURL, "http://site");
    return storage === "s3"
      ? { signedHeaders: searchParams.get("X-Amz-SignedHeaders") }
      : { size: searchParams.get("size"), type: searchParams.get("type") };
  };

  it("refuses more than 20 MB with 400 and a message, before signing anything", async () => {
    ctx = await createAdminContext({}, { storage });
    const res = await ctx.admin.post("/api/objects/upload").send({ size: 20 * 1024 * 1024 + 1, type: "image/jpeg" });
    expect(res.status).toBe(400);
    expect(res.body).toMatchObject({ message: "The file is too large. Maximum size is 20MB" });
    expect(res.body.uploadURL).toBeUndefined();
    expect(await uploadRows()).toEqual([]);
  });

  it("refuses a type that is not an image with 400 and a message, before signing anything", async () => {
    ctx = await createAdminContext({}, { storage });
    for (const type of ["text/html", "application/octet-stream", "image", ""]) {
      const res = await ctx.admin.post("/api/objects/upload").send({ size: 1000, type });
      expect(res.status, type).toBe(400);
      expect(res.body.message, type).toBe("Only images can be uploaded: type must be an image type such as image/jpeg");
    }
    const malformed = await ctx.admin.post("/api/objects/upload").send({ size: "lots", type: "image/jpeg" });
    expect(malformed.status).toBe(400);
    expect(malformed.body.message).toBe("size must be the file's size in bytes");
    expect(await uploadRows()).toEqual([]);
  });

  it("still signs for the spec's empty payload", async () => {
    ctx = await createAdminContext({}, { storage });
    const bare = await ctx.admin.post("/api/objects/upload").expect(200);
    const empty = await ctx.admin.post("/api/objects/upload").send({}).expect(200);
    for (const { uploadURL } of [bare.body, empty.body] as { uploadURL: string }[]) {
      expect(new URL(uploadURL, "http://site").searchParams.get("size")).toBeNull();
      expect(bound(uploadURL)).toEqual(storage === "s3" ? { signedHeaders: "host" } : { size: null, type: null });
    }
  });

  it("signs the size and type: exactly that file goes up; another size or type is refused and leaves the link usable", async () => {
    ctx = await createAdminContext({}, { storage });
    const photo = await makeImage("jpeg", { width: 320, height: 240 });
    const { uploadURL } = (
      await ctx.admin.post("/api/objects/upload").send({ size: photo.length, type: "image/jpeg" }).expect(200)
    ).body as {
      uploadURL: string;
    };
    expect(bound(uploadURL)).toEqual(
      storage === "s3"
        ? { signedHeaders: "content-length;content-type;host" }
        : { size: String(photo.length), type: "image/jpeg" },
    );

    // 30 MB (the review's test) and one byte more or less are all another size.
    for (const body of [
      Buffer.alloc(30 * 1024 * 1024, 1),
      photo.subarray(1),
      Buffer.concat([photo, Buffer.from([0])]),
    ]) {
      expect((await putUpload(ctx, uploadURL, body, "image/jpeg")).status).toBe(403);
    }
    expect((await putUpload(ctx, uploadURL, photo, "text/html")).status).toBe(403);
    expect(await ctx.storedKeys(storage === "s3" ? "incoming/" : "originals/")).toEqual([]);
    expect(await uploadRows()).toEqual([{ status: "pending", content_type: null }]);

    expect((await putUpload(ctx, uploadURL, photo, "image/jpeg")).status).toBe(200);
    await registerImage(ctx, uploadURL).expect(201);
  });

  it("stores the type the bytes show, never the one declared: a PNG declared and sent as image/jpeg", async () => {
    ctx = await createAdminContext({}, { storage });
    const png = await makeImage("png", { width: 320, height: 240 });
    const { uploadURL } = (
      await ctx.admin.post("/api/objects/upload").send({ size: png.length, type: "image/jpeg" }).expect(200)
    ).body as {
      uploadURL: string;
    };
    expect((await putUpload(ctx, uploadURL, png, "image/jpeg")).status).toBe(200);
    await registerImage(ctx, uploadURL).expect(201);
    expect(await uploadRows()).toEqual([{ status: "used", content_type: "image/png" }]);
    // The original kept is the PNG's bytes, on either back end; the bucket also serves it as one.
    const [original] = await ctx.storedKeys("originals/");
    expect((await ctx.services.storage.readHead(original!, 8))?.toString("hex")).toBe("89504e470d0a1a0a");
    const bucket =
      ctx.bucket && (await ctx.bucket.client.send(new HeadObjectCommand({ Bucket: ctx.bucket.name, Key: original! })));
    expect(bucket ? bucket.ContentType : storage).toBe(storage === "s3" ? "image/png" : "disk");
  });
});

describe("an upload link of this server signed for one file (disk)", () => {
  it("refuses a changed size or type in the link itself", async () => {
    ctx = await createAdminContext({}, { storage: "disk" });
    const photo = await makeImage("jpeg", { width: 64, height: 64 });
    const { uploadURL } = (
      await ctx.admin.post("/api/objects/upload").send({ size: photo.length, type: "image/jpeg" }).expect(200)
    ).body as {
      uploadURL: string;
    };
    const url = new URL(uploadURL, "http://site");
    const bigger = new URL(url);
    bigger.searchParams.set("size", String(photo.length + 1000));
    const html = new URL(url);
    html.searchParams.set("type", "text/html");
    const unsized = new URL(url);
    unsized.searchParams.delete("size");
    unsized.searchParams.delete("type");
    for (const forged of [bigger, html, unsized]) {
      const res = await ctx.admin
        .put(`${forged.pathname}${forged.search}`)
        .set("Content-Type", "image/jpeg")
        .send(photo);
      expect(res.status).toBe(403);
      expect(res.body.message).toBe("This upload link is not valid");
    }
    expect(await uploadRows()).toEqual([{ status: "pending", content_type: null }]);
  });
});
