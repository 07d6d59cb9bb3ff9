import sharp from "sharp";

/**
 * A camera-like JPEG: smooth colour blobs plus per-pixel noise, detail that
 * JPEG cannot squash, so the file is as large as a real photo of that size.
 * Deterministic. Used by the image benchmarks.
 */
export async function photoLikeJpeg(options: {
  width: number;
  height: number;
  /** Stored landscape with EXIF orientation 6, as a phone held upright does. */
  portrait?: boolean;
  quality?: number;
  /** Noise amplitude (0–255): more means a larger file. */
  noise?: number;
  /**
   * Amplitude (0–255) of a grain four pixels across, like gravel, leaves or stone texture: detail
   * that survives downscaling, so the smaller variants weigh what a real photo's do. 0: none.
   */
  texture?: number;
}): Promise<Buffer> {
  const { width, height, portrait = false, quality = 98, noise = 40, texture = 0 } = options;
  let seed = 0x9e3779b9;
  const random = () => {
    seed ^= seed << 13;
    seed >>>= 0;
    seed ^= seed >>> 17;
    seed ^= seed << 5;
    seed >>>= 0;
    return seed;
  };
  const coarse = Buffer.alloc(60 * 40 * 3);
  for (let i = 0; i < coarse.length; i++) coarse[i] = random() & 255;
  const pixels = await sharp(coarse, { raw: { width: 60, height: 40, channels: 3 } })
    .resize(width, height, { kernel: "cubic" })
    .raw()
    .toBuffer();
  let grain: Buffer | null = null;
  if (texture > 0) {
    const [grainWidth, grainHeight] = [Math.ceil(width / 4), Math.ceil(height / 4)];
    const small = Buffer.alloc(grainWidth * grainHeight * 3);
    for (let i = 0; i < small.length; i++) small[i] = random() & 255;
    grain = await sharp(small, { raw: { width: grainWidth, height: grainHeight, channels: 3 } })
      .resize(width, height, { kernel: "cubic" })
      .raw()
      .toBuffer();
  }
  for (let i = 0; i < pixels.length; i++) {
    const r = random();
    let delta = (((r & 255) + ((r >>> 8) & 255) - 255) * noise) / 255;
    if (grain) delta += (((grain[i] ?? 128) - 128) * texture) / 128;
    pixels[i] = Math.max(0, Math.min(255, (pixels[i] ?? 0) + delta));
  }
  let image = sharp(pixels, { raw: { width, height, channels: 3 } });
  if (portrait) image = image.withMetadata({ orientation: 6 });
  return image.jpeg({ quality }).toBuffer();
}
