import { createHash } from "node:crypto";
import { mkdtemp, rm } from "node:fs/promises";
import os from "node:os";
import path from "node:path";
import { Readable } from "node:stream";
import { buffer } from "node:stream/consumers";
import sharp from "sharp";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import {
  exifHasGps,
  isNear,
  makeImage,
  makeJpegWithExif,
  pixelAt,
  UPRIGHT_BOTTOM_COLOUR,
  UPRIGHT_TOP_COLOUR,
} from "../../tests/fixtures/images";
import { pngBomb, truncatedJpeg } from "../../tests/fixtures/image-bombs";
import { createLocalStorage } from "~/storage/local-storage.server";
import type { ObjectStorage } from "~/storage/storage.server";
import { ImageRefusedError, MAX_VARIANT_HEIGHT } from "./image-limits";
import { processImage, variantWidthsFor } from "./image-pipeline.server";
import {
  ImageNotFoundError,
  variantKeyFromPublicPath,
  type ImageVariant,
  type ProcessedImage,
} from "./processed-image";

let rootDir: string;
let storage: ObjectStorage;

beforeAll(async () => {
  rootDir = await mkdtemp(path.join(os.tmpdir(), "cornerstone-pipeline-"));
  storage = createLocalStorage({ rootDir, signingSecret: "p".repeat(32) });
});

afterAll(async () => {
  await rm(rootDir, { recursive: true, force: true });
});

async function storeOriginal(key: string, image: Buffer): Promise<void> {
  await storage.write(key, Readable.from([image]));
}

async function readVariant(variant: ImageVariant): Promise<Buffer> {
  const key = variantKeyFromPublicPath(variant.path);
  expect(key).not.toBeNull();
  const object = await storage.read(key!);
  expect(object).not.toBeNull();
  return buffer(object!.stream);
}

function allVariants(result: ProcessedImage): { format: string; variant: ImageVariant }[] {
  return [
    ...result.variants.avif.map((variant) => ({ format: "heif", variant })),
    ...result.variants.webp.map((variant) => ({ format: "webp", variant })),
    { format: "jpeg", variant: result.variants.jpeg },
  ];
}

describe("processImage on a phone photo (EXIF orientation 6, GPS, XMP, ICC)", () => {
  let original: Buffer;
  let result: ProcessedImage;

  beforeAll(async () => {
    original = await makeJpegWithExif({ width: 1200, height: 800, orientation: 6, gps: true, xmp: true });
    await storeOriginal("originals/phone-photo", original);
    result = await processImage(storage, "originals/phone-photo");
  });

  it("has a fixture that really carries the metadata to strip", async () => {
    const metadata = await sharp(original).metadata();
    expect(metadata.width).toBe(1200);
    expect(metadata.height).toBe(800);
    expect(metadata.orientation).toBe(6);
    expect(exifHasGps(metadata.exif)).toBe(true);
    expect(metadata.exif!.includes(Buffer.from("TestCam"))).toBe(true);
    expect(metadata.xmp).toBeDefined();
    expect(metadata.icc).toBeDefined();
  });

  it("reports the upright size", () => {
    expect(result.width).toBe(800);
    expect(result.height).toBe(1200);
  });

  it("never upscales: 480 and 800 px AVIF/WebP and an 800 px JPEG for an 800 px wide image", () => {
    expect(result.variants.avif.map((v) => [v.width, v.height])).toEqual([
      [480, 720],
      [800, 1200],
    ]);
    expect(result.variants.webp.map((v) => [v.width, v.height])).toEqual([
      [480, 720],
      [800, 1200],
    ]);
    expect([result.variants.jpeg.width, result.variants.jpeg.height]).toEqual([800, 1200]);
  });

  it("writes upright variants without EXIF, GPS, XMP or ICC", async () => {
    for (const { format, variant } of allVariants(result)) {
      const data = await readVariant(variant);
      expect(data.length).toBe(variant.bytes);
      const metadata = await sharp(data).metadata();
      expect(metadata.format).toBe(format);
      expect([metadata.width, metadata.height]).toEqual([variant.width, variant.height]);
      expect(metadata.exif).toBeUndefined();
      expect(metadata.xmp).toBeUndefined();
      expect(metadata.icc).toBeUndefined();
      expect(metadata.iptc).toBeUndefined();
      expect(metadata.orientation).toBeUndefined();
      expect(data.includes(Buffer.from("TestCam"))).toBe(false);
      expect(data.includes(Buffer.from("Test Camera Owner"))).toBe(false);
      // Upright: red on top, blue at the bottom (as the camera's viewer shows it).
      const x = Math.floor(variant.width / 2);
      expect(isNear(await pixelAt(data, x, 10), UPRIGHT_TOP_COLOUR)).toBe(true);
      expect(isNear(await pixelAt(data, x, variant.height - 10), UPRIGHT_BOTTOM_COLOUR)).toBe(true);
    }
  });

  it("names variants by content hash and lists every key it wrote", async () => {
    const keys = allVariants(result).map(({ variant }) => variantKeyFromPublicPath(variant.path));
    expect([...new Set(keys)].sort()).toEqual([...result.storageKeys].sort());
    for (const { variant } of allVariants(result)) {
      expect(variant.path).toMatch(/^\/media\/[0-9a-f]{20}\.(avif|webp|jpg)$/);
      const hash = createHash("sha256")
        .update(await readVariant(variant))
        .digest("hex");
      expect(variant.path).toContain(hash.slice(0, 20));
    }
    for (const key of result.storageKeys) {
      expect(key).toMatch(/^variants\//);
      expect(await storage.exists(key)).toBe(true);
    }
  });

  it("makes a tiny blurred WebP placeholder data URL", async () => {
    expect(result.placeholder).toMatch(/^data:image\/webp;base64,[A-Za-z0-9+/]+=*$/);
    expect(result.placeholder.length).toBeLessThan(1024);
    const data = Buffer.from(result.placeholder.split(",")[1]!, "base64");
    const metadata = await sharp(data).metadata();
    expect(metadata.format).toBe("webp");
    expect(metadata.width).toBeLessThanOrEqual(32);
    // Same aspect ratio as the upright image.
    expect(metadata.height! / metadata.width!).toBeCloseTo(1.5, 0);
  });

  it("keeps the original in place", async () => {
    expect(await storage.exists("originals/phone-photo")).toBe(true);
  });
});

describe("processImage: sizes and colour", () => {
  it("makes every step up to the width, with the JPEG capped at 1600", async () => {
    await storeOriginal("originals/wide", await makeJpegWithExif({ width: 2000, height: 1000, orientation: 1 }));
    const result = await processImage(storage, "originals/wide");
    expect([result.width, result.height]).toEqual([2000, 1000]);
    expect(result.variants.avif.map((v) => v.width)).toEqual([480, 800, 1200, 1600]);
    expect(result.variants.webp.map((v) => v.width)).toEqual([480, 800, 1200, 1600]);
    expect(result.variants.avif.map((v) => v.height)).toEqual([240, 400, 600, 800]);
    expect([result.variants.jpeg.width, result.variants.jpeg.height]).toEqual([1600, 800]);
    expect(result.storageKeys).toHaveLength(9);
  });

  it("makes one variant at the image's own width when it is under 480 px", async () => {
    await storeOriginal("originals/small", await makeImage("png", { width: 300, height: 200, alpha: true }));
    const result = await processImage(storage, "originals/small");
    expect(result.variants.avif.map((v) => [v.width, v.height])).toEqual([[300, 200]]);
    expect(result.variants.webp.map((v) => [v.width, v.height])).toEqual([[300, 200]]);
    expect([result.variants.jpeg.width, result.variants.jpeg.height]).toEqual([300, 200]);
    // AVIF/WebP keep transparency; the JPEG fallback is flattened onto white.
    expect((await sharp(await readVariant(result.variants.webp[0]!)).metadata()).hasAlpha).toBe(true);
    const jpeg = await readVariant(result.variants.jpeg);
    expect((await sharp(jpeg).metadata()).hasAlpha).toBe(false);
  });

  it("keeps the placeholder tiny for a very tall image", async () => {
    await storeOriginal("originals/tall", await makeImage("png", { width: 200, height: 4000 }));
    const result = await processImage(storage, "originals/tall");
    expect(result.placeholder.length).toBeLessThan(1024);
    const data = Buffer.from(result.placeholder.split(",")[1]!, "base64");
    expect((await sharp(data).metadata()).height).toBeLessThanOrEqual(32);
  });

  it("gives a 20:1 image narrower variants, none taller than MAX_VARIANT_HEIGHT", async () => {
    await storeOriginal("originals/tower", await makeImage("jpeg", { width: 1000, height: 20_000 }));
    const result = await processImage(storage, "originals/tower");
    expect([result.width, result.height]).toEqual([1000, 20_000]);
    expect(result.variants.avif.map((v) => [v.width, v.height])).toEqual([[480, 9600]]);
    expect(result.variants.webp.map((v) => [v.width, v.height])).toEqual([[480, 9600]]);
    expect([result.variants.jpeg.width, result.variants.jpeg.height]).toEqual([480, 9600]);
    const webp = await sharp(await readVariant(result.variants.webp[0]!)).metadata();
    expect(webp.height).toBeLessThanOrEqual(MAX_VARIANT_HEIGHT);
  });

  it("converts a Display P3 original to sRGB instead of passing P3 numbers through", async () => {
    // Pure red in P3 is stored as roughly (234, 51, 34); unconverted it would stay that way.
    await storeOriginal(
      "originals/p3",
      await makeJpegWithExif({ width: 600, height: 400, orientation: 1, iccProfile: "p3", quality: 95 }),
    );
    const result = await processImage(storage, "originals/p3");
    const jpeg = await readVariant(result.variants.jpeg);
    expect((await sharp(jpeg).metadata()).icc).toBeUndefined();
    const [r = 0, g = 255, b = 255] = await pixelAt(jpeg, 300, 50);
    expect(r).toBeGreaterThan(240);
    expect(g).toBeLessThan(25);
    expect(b).toBeLessThan(25);
  });

  it("produces the same files for the same original (content-addressed)", async () => {
    await storeOriginal("originals/again", await makeJpegWithExif({ width: 700, height: 500, orientation: 3 }));
    const first = await processImage(storage, "originals/again");
    const second = await processImage(storage, "originals/again");
    expect(second.variants).toEqual(first.variants);
  });

  it("processes concurrent calls one after another without mixing them up", async () => {
    await storeOriginal("originals/c1", await makeImage("jpeg", { width: 500, height: 300 }));
    await storeOriginal("originals/c2", await makeImage("webp", { width: 520, height: 260 }));
    const [a, b] = await Promise.all([processImage(storage, "originals/c1"), processImage(storage, "originals/c2")]);
    expect([a.width, a.height]).toEqual([500, 300]);
    expect([b.width, b.height]).toEqual([520, 260]);
  });

  it("rejects a missing original with ImageNotFoundError and a non-image with an error", async () => {
    await expect(processImage(storage, "originals/nope")).rejects.toBeInstanceOf(ImageNotFoundError);
    await storage.write("originals/text", Readable.from([Buffer.from("not an image at all")]));
    await expect(processImage(storage, "originals/text")).rejects.toThrow();
    // The queue keeps going after a failure.
    await storeOriginal("originals/after", await makeImage("gif", { width: 100, height: 80 }));
    expect((await processImage(storage, "originals/after")).width).toBe(100);
  });
});

describe("processImage: limits, judged from the header before decoding", () => {
  it.each([
    ["a 2400×110,000 PNG", () => pngBomb(2400, 110_000), /too tall for the gallery \(46:1; at most 20:1\)/],
    [
      "a 20,000×20,000 PNG",
      () => pngBomb(20_000, 20_000),
      /too large \(400 megapixels; PNG images can have at most 40\)/,
    ],
    [
      "a 7,000×6,000 PNG (42 MP)",
      () => pngBomb(7000, 6000),
      /too large \(42 megapixels; PNG images can have at most 40\)/,
    ],
  ])("refuses %s with a message that says why", async (_label, make, message) => {
    const key = `originals/bomb-${Math.random().toString(36).slice(2)}`;
    await storeOriginal(key, make());
    const error = await processImage(storage, key).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(ImageRefusedError);
    expect((error as Error).message).toMatch(message);
  });

  it("rejects a truncated JPEG as unreadable (not as a refusal)", async () => {
    await storeOriginal("originals/truncated", await truncatedJpeg(1200, 900));
    const error = await processImage(storage, "originals/truncated").catch((e: unknown) => e);
    expect(error).toBeInstanceOf(Error);
    expect(error).not.toBeInstanceOf(ImageRefusedError);
    expect((error as Error).message).toMatch(/premature end/i);
  });

  it("decodes a PNG just inside the limits (6,000×6,000 is 36 MP)", async () => {
    await storeOriginal("originals/big-png", pngBomb(6000, 6000));
    const result = await processImage(storage, "originals/big-png");
    expect(result.variants.avif.map((v) => v.width)).toEqual([480, 800, 1200, 1600, 2400]);
  });
});

describe("variantWidthsFor", () => {
  it("caps a very tall image's variants at MAX_VARIANT_HEIGHT by making them narrower", () => {
    expect(variantWidthsFor(2400, 9600)).toEqual([480, 800, 1200, 1600, 2400]);
    expect(variantWidthsFor(2400, 12_000)).toEqual([480, 800, 1200, 1600]);
    expect(variantWidthsFor(1000, 20_000)).toEqual([480]);
    expect(variantWidthsFor(300, 6000)).toEqual([300]);
    expect(variantWidthsFor(400, 8000)).toEqual([400]);
  });

  it("picks the steps that fit, or the width itself below the first step", () => {
    expect(variantWidthsFor(6000)).toEqual([480, 800, 1200, 1600, 2400]);
    expect(variantWidthsFor(2400)).toEqual([480, 800, 1200, 1600, 2400]);
    expect(variantWidthsFor(2399)).toEqual([480, 800, 1200, 1600]);
    expect(variantWidthsFor(800)).toEqual([480, 800]);
    expect(variantWidthsFor(799)).toEqual([480]);
    expect(variantWidthsFor(480)).toEqual([480]);
    expect(variantWidthsFor(479)).toEqual([479]);
    expect(variantWidthsFor(1)).toEqual([1]);
  });
});

describe("variantKeyFromPublicPath", () => {
  it("maps a media URL to its variants/ key", () => {
    expect(variantKeyFromPublicPath("/media/0123456789abcdef0123.avif")).toBe("variants/0123456789abcdef0123.avif");
    expect(variantKeyFromPublicPath("/media/0123456789abcdef0123.webp")).toBe("variants/0123456789abcdef0123.webp");
    expect(variantKeyFromPublicPath("/media/0123456789abcdef0123.jpg")).toBe("variants/0123456789abcdef0123.jpg");
  });

  it.each([
    "/media/../originals/secret",
    "/media/..%2Foriginals%2Fsecret",
    "/media/0123456789abcdef0123.png",
    "/media/0123456789ABCDEF0123.avif",
    "/media/0123456789abcdef012.avif",
    "/media/sub/0123456789abcdef0123.avif",
    "media/0123456789abcdef0123.avif",
    "/originals/0123456789abcdef0123.avif",
    "/media/0123456789abcdef0123.avif?x=1",
    "/media/0123456789abcdef0123.avif\n",
    "",
  ])("returns null for %j", (publicPath) => {
    expect(variantKeyFromPublicPath(publicPath)).toBeNull();
  });
});
