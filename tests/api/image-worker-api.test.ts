import sharp from "sharp";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { MAX_UPLOAD_BYTES } from "~/galleries/gallery";
import { pngBomb, truncatedJpeg } from "../fixtures/image-bombs";
import { makeImage, makeNoisyJpeg } from "../fixtures/images";
import { newUploadUrl, registerImage } from "../support/gallery-api";
import { createAdminContext, putUpload, type AdminContext } from "./helpers";

/** Registering images through the isolated image worker. */

let ctx: AdminContext;
beforeEach(async () => {
  ctx = await createAdminContext();
});
afterEach(async () => {
  await ctx.close();
});

async function upload(body: Buffer): Promise<string> {
  const uploadURL = await newUploadUrl(ctx);
  expect((await putUpload(ctx, uploadURL, body, "application/octet-stream")).status).toBe(200);
  return uploadURL;
}

/** Originals kept in storage (the local disk, or the bucket with TEST_BACKEND=postgres-s3). */
function originals(): Promise<string[]> {
  return ctx.storedKeys("originals/");
}

async function imageCount(): Promise<number> {
  const row = await ctx.services.db
    .selectFrom("gallery_images")
    .select((eb) => eb.fn.countAll().as("n"))
    .executeTakeFirstOrThrow();
  return Number(row.n);
}

describe("image bombs", () => {
  it.each([
    [
      "a 2400×110,000 PNG",
      () => pngBomb(2400, 110_000),
      "The image is too tall for the gallery (46:1; at most 20:1). Please crop it and try again.",
    ],
    [
      "a 20,000×20,000 PNG",
      () => pngBomb(20_000, 20_000),
      "The image is too large (400 megapixels; PNG images can have at most 40). Please save it as a JPEG or resize it, and try again.",
    ],
    ["a truncated JPEG", () => truncatedJpeg(2000, 1500), "The image could not be read. Please try a different file."],
  ])(
    "%s is refused with 422 and a clear message, leaving nothing behind; the worker carries on",
    async (_label, make, message) => {
      const url = await upload(await make());
      const res = await registerImage(ctx, url);
      expect(res.status).toBe(422);
      expect(res.body).toEqual({ message });
      expect(await originals()).toEqual([]);
      expect(await imageCount()).toBe(0);

      const pid = ctx.services.images.state().pid;
      expect(pid).toBeGreaterThan(0);
      const next = await registerImage(ctx, await upload(await makeImage("jpeg", { width: 640, height: 480 })));
      expect(next.status).toBe(201);
      expect(ctx.services.images.state().pid).toBe(pid);
    },
  );
});

describe("a crash of the image worker", () => {
  it("answers 422 for the upload it was processing, and the next upload works on a new worker", async () => {
    const photo = await makeNoisyJpeg(2400, 1800);
    const url = await upload(photo);
    const pending = registerImage(ctx, url, { caption: "never stored" }).then((res) => res);
    await expect
      .poll(() => ctx.services.images.state().processing, { interval: 5, timeout: 20_000 })
      .toMatch(/^originals\//);
    const crashedPid = ctx.services.images.state().pid!;
    process.kill(crashedPid, "SIGKILL");

    const res = await pending;
    expect(res.status).toBe(422);
    expect(res.body).toEqual({ message: "The image could not be read. Please try a different file." });
    expect(await originals()).toEqual([]);
    expect(await imageCount()).toBe(0);

    const next = await registerImage(ctx, await upload(await makeImage("png", { width: 500, height: 400 })), {
      caption: "after the crash",
    });
    expect(next.status).toBe(201);
    expect(next.body).toMatchObject({ caption: "after the crash", width: 500, height: 400 });
    const newPid = ctx.services.images.state().pid;
    expect(newPid).toBeGreaterThan(0);
    expect(newPid).not.toBe(crashedPid);
  }, 60_000);
});

describe("phone photos", () => {
  it("takes a 108 MP JPEG (12,000×9,000) within the 20 MB limit, decoded with shrink-on-load", async () => {
    const photo = await sharp({
      create: { width: 12_000, height: 9000, channels: 3, background: { r: 90, g: 110, b: 130 } },
    })
      .jpeg({ quality: 85 })
      .toBuffer();
    expect(photo.length).toBeLessThan(MAX_UPLOAD_BYTES);
    const res = await registerImage(ctx, await upload(photo), { caption: "108 MP" });
    expect(res.status).toBe(201);
    expect(res.body).toMatchObject({ width: 12_000, height: 9000, caption: "108 MP" });
    expect(res.body.variants.avif.map((v: { width: number }) => v.width)).toEqual([480, 800, 1200, 1600, 2400]);
  }, 60_000);
});
