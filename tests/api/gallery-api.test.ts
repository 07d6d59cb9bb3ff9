import type { AddressInfo } from "node:net";
import { Readable } from "node:stream";
import sharp from "sharp";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { seedDemoGallery } from "~/galleries/demo-images.server";
import { listGalleryImages } from "~/galleries/galleries.server";
import { MAX_UPLOAD_BYTES } from "~/galleries/gallery";
import { UPRIGHT_TOP_COLOUR, exifHasGps, isNear, makeImage, makeJpegWithExif, pixelAt } from "../fixtures/images";
import { newUploadUrl, registerImage } from "../support/gallery-api";
import { ADMIN, createAdminContext, putUpload, type AdminContext, type StorageKind } from "./helpers";

let ctx: AdminContext;

/** Each test gets a fresh context: the run's back end, or the storage a protocol test is about. */
function freshContextPerTest(options: { storage?: StorageKind } = {}) {
  beforeEach(async () => {
    ctx = await createAdminContext({}, options);
  });
  afterEach(async () => {
    await ctx.close();
  });
}

type PutResult = { status: number; body: { message?: string } };

/**
 * PUTs a file to an upload URL as the admin page does: a same-origin URL
 * through the signed-in agent, a bucket's presigned URL straight to the
 * bucket (no cookies).
 */
function putFile(url: string, body: Buffer, contentType = "image/jpeg"): Promise<PutResult> {
  return putUpload(ctx, url, body, contentType);
}

async function uploadAndAdd(body: Buffer, galleryType = "traditional", contentType = "image/jpeg") {
  const url = await newUploadUrl(ctx);
  expect((await putFile(url, body, contentType)).status).toBe(200);
  return registerImage(ctx, url, { galleryType });
}

/**
 * Streams a body to an upload URL over a real socket (supertest cannot send a
 * chunked body or abort half-way), signed in as the administrator.
 */
async function streamUpload(
  url: string,
  body: ReadableStream<Uint8Array>,
  signal?: AbortSignal,
): Promise<Response | undefined> {
  const server = ctx.app.listen(0, "127.0.0.1");
  await new Promise((resolve) => server.once("listening", resolve));
  try {
    const { port } = server.address() as AddressInfo;
    const login = await ctx.api.post("/api/login").send(ADMIN).expect(200);
    const cookie = ([] as string[]).concat(login.headers["set-cookie"] ?? [])[0]!.split(";")[0]!;
    return await fetch(`http://127.0.0.1:${port}${url}`, {
      method: "PUT",
      headers: { "Content-Type": "image/jpeg", Cookie: cookie },
      body,
      duplex: "half",
      signal,
    } as RequestInit).catch(() => undefined);
  } finally {
    server.closeAllConnections();
    await new Promise((resolve) => server.close(resolve));
  }
}

function uploadStatus() {
  return ctx.services.db
    .selectFrom("uploads")
    .select("status")
    .executeTakeFirstOrThrow()
    .then((row) => row.status);
}

/** A JPEG header followed by filler, `bytes` long: recognised as an image by its first bytes. */
async function jpegOfSize(bytes: number): Promise<Buffer> {
  const body = Buffer.alloc(bytes, 0xff);
  (await makeImage("jpeg")).copy(body);
  return body;
}

// The two ways an upload reaches storage. Each group runs on both databases (the run's switch
// decides which); the storage is fixed by the protocol under test.
describe("uploads through this server (local disk)", () => {
  freshContextPerTest({ storage: "disk" });

  it("POST /api/objects/upload returns a same-origin URL with a random id and a signed 15-minute expiry", async () => {
    const before = Date.now();
    const first = new URL(await newUploadUrl(ctx), "http://site");
    const second = new URL(await newUploadUrl(ctx), "http://site");
    expect(first.origin).toBe("http://site");
    expect(first.pathname).toMatch(/^\/api\/uploads\/[0-9a-f-]{36}$/);
    expect(first.pathname).not.toBe(second.pathname);
    const expires = Number(first.searchParams.get("expires"));
    expect(expires - before).toBeGreaterThanOrEqual(15 * 60 * 1000 - 1000);
    expect(expires - before).toBeLessThanOrEqual(15 * 60 * 1000 + 1000);
    expect(first.searchParams.get("signature")).toMatch(/^[0-9a-f]{64}$/);
  });

  it("stores the file privately and answers 200", async () => {
    const url = await newUploadUrl(ctx);
    const res = await putFile(url, await makeImage("jpeg"));
    expect(res).toEqual({ status: 200, body: { message: "Upload complete" } });
    expect(await ctx.storedKeys("originals/")).toHaveLength(1);
    // The original is not reachable from the web.
    const id = new URL(url, "http://x").pathname.split("/").pop();
    await ctx.api.get(`/media/${id}`).expect(404);
    await ctx.api.get(`/uploads/originals/${id}`).expect(404);
  });

  it("needs the admin session", async () => {
    const url = await newUploadUrl(ctx);
    const res = await ctx.api
      .put(url)
      .set("Content-Type", "image/jpeg")
      .send(await makeImage("jpeg"))
      .expect(401);
    expect(res.body).toEqual({ message: "Unauthorized" });
  });

  it("can be used once", async () => {
    const url = await newUploadUrl(ctx);
    expect((await putFile(url, await makeImage("jpeg"))).status).toBe(200);
    const again = await putFile(url, await makeImage("jpeg"));
    expect(again.status).toBe(403);
    expect(again.body.message).toMatch(/already been used/);
  });

  it("answers 403 for a tampered or expired URL", async () => {
    const url = new URL(await newUploadUrl(ctx), "http://x");
    const tampered = new URL(url);
    tampered.searchParams.set("expires", String(Number(url.searchParams.get("expires")) + 60_000));
    expect((await putFile(tampered.pathname + tampered.search, await makeImage("jpeg"))).status).toBe(403);
    const otherId = `${url.pathname.replace(/[0-9a-f]{4}$/, "abcd")}${url.search}`;
    expect((await putFile(otherId, await makeImage("jpeg"))).status).toBe(403);
    const expiredTarget = await ctx.services.storage.createUploadTarget(
      "11111111-2222-3333-4444-555555555555",
      new Date(Date.now() - 1000),
    );
    const expired = await putFile(expiredTarget.uploadURL, await makeImage("jpeg"));
    expect(expired.status).toBe(403);
    expect(expired.body.message).toMatch(/expired/);
  });

  it("answers 415 for a text file sent as image/png, and deletes it", async () => {
    const url = await newUploadUrl(ctx);
    const res = await putFile(url, Buffer.from("hello, this is not an image at all"), "image/png");
    expect(res.status).toBe(415);
    expect(res.body.message).toMatch(/not a supported image/);
    expect(await ctx.storedKeys("originals/")).toEqual([]);
  });

  it("answers 413 for 21 MB and leaves nothing behind", async () => {
    const url = await newUploadUrl(ctx);
    const res = await putFile(url, await jpegOfSize(21 * 1024 * 1024));
    expect(res.status).toBe(413);
    expect(res.body.message).toMatch(/too large/);
    expect(await ctx.storedKeys("originals/")).toEqual([]);
  });

  it("answers 413 for an oversized body streamed without a Content-Length, leaving nothing", async () => {
    const url = await newUploadUrl(ctx);
    const chunk = Buffer.alloc(1024 * 1024, 0xff);
    chunk.set([0xff, 0xd8, 0xff, 0xe0], 0);
    let sent = 0;
    const body = new ReadableStream<Uint8Array>({
      pull(controller) {
        if (sent >= 22) return controller.close();
        sent += 1;
        controller.enqueue(new Uint8Array(chunk));
      },
    });
    const res = await streamUpload(url, body);
    expect(res?.status).toBe(413);
    expect(await ctx.storedKeys("originals/")).toEqual([]);
  });

  it("leaves nothing behind when the client aborts mid-upload", async () => {
    const url = await newUploadUrl(ctx);
    const controller = new AbortController();
    let sent = 0;
    const body = new ReadableStream<Uint8Array>({
      async pull(c) {
        sent += 1;
        if (sent === 3) {
          controller.abort();
          return;
        }
        c.enqueue(new Uint8Array(512 * 1024).fill(0xff));
        await new Promise((r) => setTimeout(r, 50));
      },
    });
    await streamUpload(url, body, controller.signal);
    await expect.poll(uploadStatus).toBe("failed");
    expect(await ctx.storedKeys("originals/")).toEqual([]);
  });

  it("accepts exactly 20,971,520 bytes", async () => {
    const url = await newUploadUrl(ctx);
    expect((await putFile(url, await jpegOfSize(MAX_UPLOAD_BYTES))).status).toBe(200);
  });

  it("registration accepts the absolute form of its own upload URL", async () => {
    const url = await newUploadUrl(ctx);
    expect((await putFile(url, await makeImage("jpeg"))).status).toBe(200);
    await ctx.admin
      .put("/api/admin/gallery-images")
      .send({ imageURL: `http://localhost:3000${url}`, galleryType: "homepage", caption: "", sortOrder: "0" })
      .expect(201);
  });
});

describe("uploads straight to the bucket (S3)", () => {
  freshContextPerTest({ storage: "s3" });

  /** The object key a presigned URL writes (path-style: /<bucket>/<key>). */
  function keyOf(url: string) {
    return new URL(url).pathname.split("/").slice(2).join("/");
  }

  it("POST /api/objects/upload presigns a 15-minute PUT to one private incoming/ key of the bucket", async () => {
    const first = new URL(await newUploadUrl(ctx));
    const second = new URL(await newUploadUrl(ctx));
    expect(first.origin).toBe(new URL(ctx.env.S3_ENDPOINT!).origin);
    expect(first.pathname).toMatch(new RegExp(`^/${ctx.bucket!.name}/incoming/[0-9a-f-]{36}$`));
    expect(first.pathname).not.toBe(second.pathname);
    expect(first.searchParams.get("X-Amz-Expires")).toBe("900");
    expect(first.searchParams.get("X-Amz-SignedHeaders")).toBe("host");
    // No checksum baked in: R2 and others refuse presigned PUTs that carry one.
    expect([...first.searchParams.keys()].filter((name) => /checksum/i.test(name))).toEqual([]);
  });

  it("the PUT lands in the bucket, not on this server, and is not served", async () => {
    const url = await newUploadUrl(ctx);
    expect((await putFile(url, await makeImage("jpeg"))).status).toBe(200);
    expect(await ctx.storedKeys("incoming/")).toEqual([keyOf(url)]);
    expect(await ctx.storedKeys("originals/")).toEqual([]);
    const id = keyOf(url).split("/").pop();
    await ctx.api.get(`/media/${id}`).expect(404);
    // This server takes no uploads itself with a bucket: its own upload path refuses every URL.
    const res = await ctx.admin
      .put(`/api/uploads/${id}?expires=${Date.now() + 60_000}&signature=${"0".repeat(64)}`)
      .send(Buffer.from("x"));
    expect(res.status).toBe(403);
  });

  it("registration moves the original to a private key, and a reused URL cannot replace it", async () => {
    const url = await newUploadUrl(ctx);
    const photo = await makeImage("jpeg", { width: 640, height: 480 });
    expect((await putFile(url, photo)).status).toBe(200);
    const image = (await registerImage(ctx, url).expect(201)).body;
    const id = keyOf(url).split("/").pop()!;
    expect(await ctx.storedKeys("incoming/")).toEqual([]);
    expect(await ctx.storedKeys("originals/")).toEqual([`originals/${id}`]);

    // The URL still signs for its incoming/ key for 15 minutes: a second PUT lands there, not on the original.
    expect((await putFile(url, await makeImage("png", { width: 32, height: 32 }), "image/png")).status).toBe(200);
    const original = await ctx.services.storage.read(`originals/${id}`);
    const chunks: Buffer[] = [];
    for await (const chunk of original!.stream) chunks.push(chunk as Buffer);
    expect(Buffer.concat(chunks).equals(photo)).toBe(true);
    const again = await registerImage(ctx, url);
    expect(again.status).toBe(400);
    expect((await listGalleryImages(ctx.services, "traditional")).map((i) => i.id)).toEqual([image.id]);
  });

  it("registration before the PUT answers 400 and leaves the URL usable", async () => {
    const url = await newUploadUrl(ctx);
    const early = await registerImage(ctx, url);
    expect(early.status).toBe(400);
    expect(early.body.message).toMatch(/not a completed upload/);
    expect(await uploadStatus()).toBe("pending");
    expect((await putFile(url, await makeImage("jpeg"))).status).toBe(200);
    await registerImage(ctx, url).expect(201);
  });

  it("answers 413 at registration for 21 MB (judged by HEAD), and deletes the object", async () => {
    const url = await newUploadUrl(ctx);
    expect((await putFile(url, await jpegOfSize(21 * 1024 * 1024))).status).toBe(200);
    const res = await registerImage(ctx, url);
    expect(res.status).toBe(413);
    expect(res.body.message).toMatch(/too large/);
    expect(await ctx.storedKeys("")).toEqual([]);
    expect(await uploadStatus()).toBe("failed");
  });

  it("answers 415 at registration for a text file sent as image/png (judged by its first bytes), and deletes it", async () => {
    const url = await newUploadUrl(ctx);
    expect((await putFile(url, Buffer.from("hello, this is not an image at all"), "image/png")).status).toBe(200);
    const res = await registerImage(ctx, url);
    expect(res.status).toBe(415);
    expect(res.body.message).toMatch(/not a supported image/);
    expect(await ctx.storedKeys("")).toEqual([]);
    expect(await uploadStatus()).toBe("failed");
  });

  it("answers 415 at registration for an empty file, and deletes it", async () => {
    const url = await newUploadUrl(ctx);
    expect((await putFile(url, Buffer.alloc(0))).status).toBe(200);
    expect((await registerImage(ctx, url)).status).toBe(415);
    expect(await ctx.storedKeys("")).toEqual([]);
  });

  it("accepts exactly 20,971,520 bytes", async () => {
    const url = await newUploadUrl(ctx);
    expect((await putFile(url, await jpegOfSize(MAX_UPLOAD_BYTES))).status).toBe(200);
    await registerImage(ctx, url).expect(201);
  });

  it("answers 400 for a key of the bucket that this server did not issue", async () => {
    const url = new URL(await newUploadUrl(ctx));
    const forged = new URL(url);
    forged.pathname = url.pathname.replace(/incoming\/.*$/, "incoming/11111111-2222-3333-4444-555555555555");
    const photo = await makeImage("jpeg");
    // The bucket refuses the signature on another key (tests/support/s3-verifying-front.ts checks it as S3 does)…
    expect((await putFile(forged.toString(), photo)).status).toBe(403);
    // …and an object that is there without a URL from this server (put with the bucket's own key) is not registered.
    await ctx.services.storage.write("incoming/11111111-2222-3333-4444-555555555555", Readable.from([photo]));
    const res = await registerImage(ctx, forged.toString());
    expect(res.status).toBe(400);
    const elsewhere = new URL(url);
    elsewhere.pathname = url.pathname.replace("incoming/", "originals/");
    expect((await registerImage(ctx, elsewhere.toString())).status).toBe(400);
  });
});

describe("registering an upload (either storage)", () => {
  freshContextPerTest();

  it("judges the type by the bytes: a PNG sent as image/jpeg is kept as the PNG it is", async () => {
    const png = await makeImage("png", { width: 640, height: 480 });
    const res = await uploadAndAdd(png, "veneer", "image/jpeg");
    expect(res.status).toBe(201);
    const row = await ctx.services.db
      .selectFrom("uploads")
      .select(["content_type", "status"])
      .executeTakeFirstOrThrow();
    expect(row).toEqual({ content_type: "image/png", status: "used" });
  });
});

describe("PUT /api/admin/gallery-images", () => {
  freshContextPerTest();

  it("processes a phone photo: upright, no GPS or EXIF, AVIF and WebP variants, JPEG fallback", async () => {
    const photo = await makeJpegWithExif({ width: 2000, height: 1500, orientation: 6, gps: true });
    expect(exifHasGps((await sharp(photo).metadata()).exif)).toBe(true);

    const res = await uploadAndAdd(photo, "traditional");
    expect(res.status).toBe(201);
    const image = res.body;
    expect(image).toMatchObject({ caption: "", galleryType: "traditional", sortOrder: 0, width: 1500, height: 2000 });
    expect(image.variants.avif.map((v: { width: number }) => v.width)).toEqual([480, 800, 1200]);
    expect(image.variants.webp.map((v: { width: number }) => v.width)).toEqual([480, 800, 1200]);
    expect(image.imagePath).toBe(image.variants.jpeg.path);
    expect(image.placeholder).toMatch(/^data:image\/webp;base64,/);

    for (const variant of [...image.variants.avif, ...image.variants.webp, image.variants.jpeg]) {
      const served = await ctx.api
        .get(variant.path)
        .buffer(true)
        .parse((r, cb) => {
          const chunks: Buffer[] = [];
          r.on("data", (c: Buffer) => chunks.push(c));
          r.on("end", () => cb(null, Buffer.concat(chunks)));
        });
      expect(served.status).toBe(200);
      expect(served.headers["cache-control"]).toBe("public, max-age=31536000, immutable");
      const bytes = served.body as Buffer;
      const meta = await sharp(bytes).metadata();
      expect(meta.height! > meta.width!, `${variant.path} is upright`).toBe(true);
      expect(meta.exif, variant.path).toBeUndefined();
      expect(meta.xmp, variant.path).toBeUndefined();
      expect(isNear(await pixelAt(bytes, Math.floor(meta.width! / 2), 5), UPRIGHT_TOP_COLOUR), variant.path).toBe(true);
    }
  });

  it("never upscales, and names variants by their content", async () => {
    const res = await uploadAndAdd(await makeImage("png", { width: 300, height: 200 }), "veneer", "image/png");
    expect(res.status).toBe(201);
    expect(res.body.variants.avif.map((v: { width: number }) => v.width)).toEqual([300]);
    expect(res.body.variants.jpeg.width).toBe(300);
    expect(res.body.variants.avif[0].path).toMatch(/^\/media\/[0-9a-f]{20}\.avif$/);
  });

  it("appends at the end of the gallery", async () => {
    const a = await uploadAndAdd(await makeImage("jpeg"), "landscaping");
    const b = await uploadAndAdd(await makeImage("jpeg", { width: 70 }), "landscaping");
    expect([a.body.sortOrder, b.body.sortOrder]).toEqual([0, 1]);
    const list = await ctx.api.get("/api/galleries/landscaping").expect(200);
    expect(list.body.map((i: { id: string }) => i.id)).toEqual([a.body.id, b.body.id]);
  });

  it.each([
    ["another host", "https://evil.example/api/uploads/abc"],
    ["a path outside storage", "/etc/passwd"],
    ["a random string", "not a url at all"],
    ["a public variant", "/media/0123456789abcdef0123.jpg"],
  ])("answers 400 for %s", async (_label, imageURL) => {
    const res = await ctx.admin
      .put("/api/admin/gallery-images")
      .send({ imageURL, galleryType: "traditional", caption: "", sortOrder: "0" });
    expect(res.status).toBe(400);
    expect(res.body.message).toMatch(/imageURL/);
  });

  it("answers 400 for an upload that never completed, and for one already used", async () => {
    const pending = await newUploadUrl(ctx);
    const notDone = await ctx.admin
      .put("/api/admin/gallery-images")
      .send({ imageURL: pending, galleryType: "traditional" });
    expect(notDone.status).toBe(400);

    const url = await newUploadUrl(ctx);
    expect((await putFile(url, await makeImage("jpeg"))).status).toBe(200);
    await ctx.admin.put("/api/admin/gallery-images").send({ imageURL: url, galleryType: "traditional" }).expect(201);
    await ctx.admin.put("/api/admin/gallery-images").send({ imageURL: url, galleryType: "traditional" }).expect(400);
  });

  it("answers 400 for an unknown gallery type or a bad sortOrder", async () => {
    const url = await newUploadUrl(ctx);
    await ctx.admin.put("/api/admin/gallery-images").send({ imageURL: url, galleryType: "marble" }).expect(400);
    await ctx.admin
      .put("/api/admin/gallery-images")
      .send({ imageURL: url, galleryType: "veneer", sortOrder: "first" })
      .expect(400);
  });
});

describe("PATCH /api/admin/gallery-images/:id", () => {
  freshContextPerTest();

  it("updates the caption", async () => {
    const [image] = await seedDemoGallery(ctx.services, "traditional", 1, { width: 500, height: 300 });
    const res = await ctx.admin
      .patch(`/api/admin/gallery-images/${image!.id}`)
      .send({ caption: "Basalt wall" })
      .expect(200);
    expect(res.body).toMatchObject({ id: image!.id, caption: "Basalt wall" });
    expect((await listGalleryImages(ctx.services, "traditional"))[0]!.caption).toBe("Basalt wall");
  });

  it("answers 404 for an unknown id and 400 over 500 characters", async () => {
    const [image] = await seedDemoGallery(ctx.services, "traditional", 1, { width: 500, height: 300 });
    await ctx.admin.patch("/api/admin/gallery-images/nope").send({ caption: "x" }).expect(404);
    await ctx.admin
      .patch(`/api/admin/gallery-images/${image!.id}`)
      .send({ caption: "c".repeat(500) })
      .expect(200);
    const res = await ctx.admin
      .patch(`/api/admin/gallery-images/${image!.id}`)
      .send({ caption: "c".repeat(501) })
      .expect(400);
    expect(res.body.message).toBe("caption must be at most 500 characters");
    await ctx.admin.patch(`/api/admin/gallery-images/${image!.id}`).send({ caption: 5 }).expect(400);
  });
});

describe("PUT /api/admin/gallery-images/reorder", () => {
  freshContextPerTest();

  it("applies the new order", async () => {
    const images = await seedDemoGallery(ctx.services, "veneer", 3, { width: 500, height: 300 });
    const order = [images[2]!.id, images[0]!.id, images[1]!.id];
    const res = await ctx.admin
      .put("/api/admin/gallery-images/reorder")
      .send({ galleryType: "veneer", imageIds: order })
      .expect(200);
    expect(res.body.map((i: { id: string }) => i.id)).toEqual(order);
    expect((await listGalleryImages(ctx.services, "veneer")).map((i) => [i.id, i.sortOrder])).toEqual(
      order.map((id, i) => [id, i]),
    );
  });

  it.each([
    ["a missing id", (ids: string[]) => ids.slice(1)],
    ["an extra id", (ids: string[]) => [...ids, "other"]],
    ["a duplicate", (ids: string[]) => [ids[0]!, ids[0]!, ids[1]!]],
    ["an unknown id in place of one", (ids: string[]) => [...ids.slice(1), "no-such-image"]],
    [
      "an id from another gallery in place of one",
      (ids: string[], otherGalleryId: string) => [...ids.slice(1), otherGalleryId],
    ],
  ])("answers 400 for %s and changes nothing", async (_label, mangle) => {
    const images = await seedDemoGallery(ctx.services, "veneer", 3, { width: 500, height: 300 });
    const [other] = await seedDemoGallery(ctx.services, "traditional", 1, { width: 500, height: 300 });
    const ids = images.map((i) => i.id);
    const res = await ctx.admin
      .put("/api/admin/gallery-images/reorder")
      .send({ galleryType: "veneer", imageIds: mangle(ids, other!.id) })
      .expect(400);
    expect(res.body.message).toMatch(/every image of the gallery exactly once/);
    expect((await listGalleryImages(ctx.services, "veneer")).map((i) => [i.id, i.sortOrder])).toEqual(
      ids.map((id, i) => [id, i]),
    );
    // The other gallery's image stays where it was, too.
    expect((await listGalleryImages(ctx.services, "traditional")).map((i) => [i.id, i.sortOrder])).toEqual([
      [other!.id, 0],
    ]);
  });

  it("keeps sort orders unique and complete when two tabs reorder at once", async () => {
    const images = await seedDemoGallery(ctx.services, "landscaping", 4, { width: 400, height: 300 });
    const ids = images.map((i) => i.id);
    const orders = [
      [...ids].reverse(),
      [ids[1]!, ids[0]!, ids[3]!, ids[2]!],
      [ids[2]!, ids[3]!, ids[0]!, ids[1]!],
      ids,
    ];
    const results = await Promise.all(
      orders.flatMap((imageIds) =>
        [0, 1].map(() =>
          ctx.admin.put("/api/admin/gallery-images/reorder").send({ galleryType: "landscaping", imageIds }),
        ),
      ),
    );
    expect(results.every((r) => r.status === 200)).toBe(true);
    const final = await listGalleryImages(ctx.services, "landscaping");
    expect(final.map((i) => i.sortOrder)).toEqual([0, 1, 2, 3]);
    expect(orders.map((o) => o.join())).toContain(final.map((i) => i.id).join());
  });
});

describe("DELETE /api/admin/gallery-images/:id", () => {
  freshContextPerTest();

  it("removes the record and every file of the image, closing the gap in the order", async () => {
    const url = await newUploadUrl(ctx);
    expect((await putFile(url, await makeImage("jpeg", { width: 1000, height: 700 }))).status).toBe(200);
    const added = (
      await ctx.admin.put("/api/admin/gallery-images").send({ imageURL: url, galleryType: "traditional" }).expect(201)
    ).body;
    const other = (await seedDemoGallery(ctx.services, "traditional", 1, { width: 500, height: 300 }))[0]!;
    const variantsBefore = (await ctx.storedKeys("variants/")).length;
    expect(await ctx.storedKeys("originals/")).toHaveLength(2);

    await ctx.admin.delete(`/api/admin/gallery-images/${added.id}`).expect(204);
    const files = [...added.variants.avif, ...added.variants.webp, added.variants.jpeg].map(
      (v: { path: string }) => v.path,
    );
    for (const file of files) await ctx.api.get(file).expect(404);
    expect((await ctx.storedKeys("variants/")).length).toBe(variantsBefore - files.length);
    expect(await ctx.storedKeys("originals/")).toHaveLength(1);
    const remaining = await listGalleryImages(ctx.services, "traditional");
    expect(remaining.map((i) => [i.id, i.sortOrder])).toEqual([[other.id, 0]]);
  });

  it("answers 404 for an unknown id", async () => {
    const res = await ctx.admin.delete("/api/admin/gallery-images/nope").expect(404);
    expect(res.body).toEqual({ message: "No such image" });
  });
});
