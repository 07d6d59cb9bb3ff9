import sharp from "sharp";
import { describe, expect, it } from "vitest";
import { pngBomb } from "../../tests/fixtures/image-bombs";
import { makeImage, makeJpegWithExif } from "../../tests/fixtures/images";
import { decodeWithinLimits, UnreadableImageError } from "./decode-within-limits.server";
import { ImageRefusedError } from "./image-limits";

describe("decodeWithinLimits", () => {
  it("turns libvips' operation cache off by itself (no other module needs to be loaded first)", () => {
    const cache = sharp.cache();
    expect(cache.memory.max).toBe(0);
    expect(cache.items.max).toBe(0);
  });

  it("refuses a bomb from its header, before decoding", async () => {
    const error = await decodeWithinLimits(pngBomb(20_000, 20_000)).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(ImageRefusedError);
    expect((error as Error).message).toMatch(/400 megapixels/);
  });

  it("calls what is not an image, or not of a format the caller takes, unreadable", async () => {
    await expect(decodeWithinLimits(Buffer.from("not an image at all"))).rejects.toBeInstanceOf(UnreadableImageError);
    const gif = await makeImage("gif", { width: 40, height: 30 });
    await expect(decodeWithinLimits(gif, { formats: new Set(["jpeg", "png"]) })).rejects.toBeInstanceOf(
      UnreadableImageError,
    );
    await expect(decodeWithinLimits(gif)).resolves.toMatchObject({ upright: { width: 40, height: 30 } });
  });

  it("turns the image upright and shrinks it on load from its upright size", async () => {
    const photo = await makeJpegWithExif({ width: 1200, height: 800, orientation: 6 });
    const seen: { width: number; height: number }[] = [];
    const decoded = await decodeWithinLimits(photo, {
      resize: (upright) => {
        seen.push(upright);
        return { width: upright.width / 2 };
      },
    });
    expect(seen).toEqual([{ width: 800, height: 1200 }]);
    expect(decoded.upright).toEqual({ width: 800, height: 1200 });
    expect([decoded.info.width, decoded.info.height]).toEqual([400, 600]);
    expect(decoded.data.length).toBe(400 * 600 * decoded.info.channels);
  });

  it("flattens transparency onto the background it is given", async () => {
    const png = await sharp({
      create: { width: 4, height: 4, channels: 4, background: { r: 0, g: 0, b: 0, alpha: 0 } },
    })
      .png()
      .toBuffer();
    const decoded = await decodeWithinLimits(png, { background: "#ffffff" });
    expect(decoded.info.channels).toBe(3);
    expect([...decoded.data.subarray(0, 3)]).toEqual([255, 255, 255]);
  });
});
