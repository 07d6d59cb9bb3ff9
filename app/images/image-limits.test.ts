import { describe, expect, it } from "vitest";
import {
  JPEG_MAX_PIXELS,
  MAX_ASPECT_RATIO,
  MAX_SIDE_PX,
  OTHER_MAX_PIXELS,
  imageLimitViolation,
  maxPixelsFor,
} from "./image-limits";

describe("imageLimitViolation", () => {
  it.each([
    ["a 12 MP phone photo", "jpeg", 4032, 3024],
    ["a 50 MP phone photo", "jpeg", 8160, 6120],
    ["a 108 MP phone photo", "jpeg", 12_000, 9000],
    ["a 200 MP phone photo", "jpeg", 16_320, 12_240],
    ["a phone panorama", "jpeg", 16_000, 3000],
    ["a 40 MP PNG", "png", 8000, 5000],
    ["a 20:1 strip", "png", 400, 8000],
    ["a WebP screenshot", "webp", 1170, 2532],
    ["an AVIF", "heif", 4000, 3000],
    ["a GIF", "gif", 500, 400],
  ])("accepts %s", (_label, format, width, height) => {
    expect(imageLimitViolation(format, width, height)).toBeNull();
  });

  it("refuses more than 20:1 either way, saying which way", () => {
    expect(imageLimitViolation("png", 2400, 110_000)).toBe(
      "The image is too tall for the gallery (46:1; at most 20:1). Please crop it and try again.",
    );
    expect(imageLimitViolation("jpeg", 21_000, 1000)).toMatch(
      /^The image is too wide for the gallery \(21:1; at most 20:1\)/,
    );
    expect(imageLimitViolation("jpeg", 2001, 100)).toMatch(/too wide/);
    expect(imageLimitViolation("jpeg", 2000, 100)).toBeNull();
  });

  it("refuses a side over the maximum", () => {
    expect(imageLimitViolation("jpeg", MAX_SIDE_PX + 1, 2000)).toBe(
      "The image is too large (30,001 pixels on its longest side; at most 30,000). Please resize it and try again.",
    );
    expect(imageLimitViolation("jpeg", MAX_SIDE_PX, 2000)).toBeNull();
  });

  it("allows JPEG up to 200 MP and every other format up to 40 MP", () => {
    expect(imageLimitViolation("jpeg", 20_000, 10_005)).toBe(
      "The image is too large (200.1 megapixels; JPEG images can have at most 200). Please resize it and try again.",
    );
    expect(imageLimitViolation("png", 20_000, 20_000)).toBe(
      "The image is too large (400 megapixels; PNG images can have at most 40). Please save it as a JPEG or resize it, and try again.",
    );
    expect(imageLimitViolation("webp", 8000, 5001)).toMatch(/WebP images can have at most 40/);
    expect(imageLimitViolation("gif", 8000, 5001)).toMatch(/GIF images can have at most 40/);
    expect(imageLimitViolation("heif", 8000, 5001)).toMatch(/AVIF images can have at most 40/);
    expect(maxPixelsFor("jpeg")).toBe(JPEG_MAX_PIXELS);
    expect(maxPixelsFor("png")).toBe(OTHER_MAX_PIXELS);
    expect(MAX_ASPECT_RATIO).toBe(20);
  });

  it("calls a header without a size unreadable", () => {
    expect(imageLimitViolation("png", 0, 100)).toMatch(/could not be read/);
    expect(imageLimitViolation(undefined, Number.NaN, 100)).toMatch(/could not be read/);
  });
});
