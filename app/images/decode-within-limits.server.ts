import sharp, { type OutputInfo, type ResizeOptions } from "sharp";
import { ImageRefusedError, imageLimitViolation, maxPixelsFor } from "./image-limits";

// Every upload is a new input: libvips' (process-wide) cache would only keep decoded images alive.
sharp.cache(false);

/** The input has no header sharp can read, or is of a format the caller does not take. */
export class UnreadableImageError extends Error {
  override name = "UnreadableImageError";
}

export type DecodeOptions = {
  /** sharp's metadata().format names the caller takes; any readable format when absent. */
  formats?: ReadonlySet<string>;
  /** The shrink-on-load to apply, chosen from the upright (EXIF-rotated) size; none when it returns undefined. */
  resize?: (upright: { width: number; height: number }) => ResizeOptions | undefined;
  /** Flattens transparency onto this colour (for JPEG output). */
  background?: string;
};

export type DecodedImage = {
  /** The size once turned upright, before any resize. */
  upright: { width: number; height: number };
  /** Raw 8-bit sRGB pixels, described by `info`. */
  data: Buffer;
  info: OutputInfo;
};

/**
 * The worker's one decode (decision 0018): the header is judged first, so a decompression bomb is refused before a
 * pixel is decoded; then decoded once, upright, shrunk on load if asked, sRGB (libvips' pixel limit as a second line).
 */
export async function decodeWithinLimits(input: Buffer, options: DecodeOptions = {}): Promise<DecodedImage> {
  let header;
  try {
    header = await sharp(input, { limitInputPixels: false }).metadata();
  } catch (error) {
    throw new UnreadableImageError(error instanceof Error ? error.message : "not an image", { cause: error });
  }
  if (options.formats && !options.formats.has(header.format ?? "")) {
    throw new UnreadableImageError(`format ${header.format} is not taken here`);
  }
  const violation = imageLimitViolation(header.format, header.width, header.height);
  if (violation) throw new ImageRefusedError(violation);

  const upright = { width: header.autoOrient.width, height: header.autoOrient.height };
  let decoder = sharp(input, { limitInputPixels: maxPixelsFor(header.format) }).rotate();
  const resize = options.resize?.(upright);
  if (resize) decoder = decoder.resize(resize);
  decoder = decoder.toColourspace("srgb");
  if (options.background) decoder = decoder.flatten({ background: options.background });
  const { data, info } = await decoder.raw({ depth: "uchar" }).toBuffer({ resolveWithObject: true });
  return { upright, data, info };
}
