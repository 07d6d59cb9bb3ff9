import sharp from "sharp";
import { describe, expect, it } from "vitest";
import { pngBomb } from "../../../tests/fixtures/image-bombs";
import { makeJpegWithExif } from "../../../tests/fixtures/images";
import { photoHeaderSize } from "./photo-header-size";

const draw = (format: "png" | "jpeg" | "webp", width: number, height: number, lossless = false) =>
  sharp({ create: { width, height, channels: 3, background: { r: 90, g: 80, b: 70 } } })
    .toFormat(format, format === "webp" ? { lossless } : {})
    .toBuffer();

describe("a photo's size from its first bytes", () => {
  it.each([
    ["png", 640, 480],
    ["jpeg", 4032, 3024],
    ["webp", 1601, 901],
  ] as const)("reads %s (%i × %i)", async (format, width, height) => {
    expect(photoHeaderSize(new Uint8Array(await draw(format, width, height)))).toEqual({ width, height });
  });

  it("reads a lossless WebP and one with an extended header", async () => {
    expect(photoHeaderSize(new Uint8Array(await draw("webp", 333, 222, true)))).toEqual({ width: 333, height: 222 });
    const extended = await sharp({
      create: { width: 300, height: 200, channels: 4, background: { r: 1, g: 2, b: 3, alpha: 0.5 } },
    })
      .webp()
      .toBuffer();
    expect(photoHeaderSize(new Uint8Array(extended))).toEqual({ width: 300, height: 200 });
  });

  it("reads a camera JPEG's stored size past its EXIF (GPS, XMP, ICC), and a PNG bomb's from 33 bytes", async () => {
    const camera = await makeJpegWithExif({ width: 4032, height: 3024, orientation: 6 });
    expect(photoHeaderSize(new Uint8Array(camera))).toEqual({ width: 4032, height: 3024 });
    expect(photoHeaderSize(new Uint8Array(pngBomb(20_000, 20_000).subarray(0, 33)))).toEqual({
      width: 20_000,
      height: 20_000,
    });
  });

  it("answers null for anything else, or too few bytes", async () => {
    expect(photoHeaderSize(new TextEncoder().encode("not a photo at all, just some text"))).toBeNull();
    expect(photoHeaderSize(new Uint8Array((await draw("jpeg", 100, 100)).subarray(0, 8)))).toBeNull();
    expect(photoHeaderSize(new Uint8Array(0))).toBeNull();
  });
});
