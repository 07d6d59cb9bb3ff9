/** What the pipeline agrees to decode, judged by the header (decision 0018), and the sizes it makes; pure. */

/**
 * Responsive AVIF/WebP widths, never upscaled, steps of about 1.5× (decision 0055): 800 covers a 412 px phone at
 * DPR 1.75 (Lighthouse's mobile) and DPR-2 phones; 1200 a 390 px phone at DPR 3.
 */
export const VARIANT_WIDTHS = [480, 800, 1200, 1600, 2400] as const;
/** A very tall image gets narrower variants instead: bounded work, and within WebP's 16,383 px. */
export const MAX_VARIANT_HEIGHT = 9600;

/** Longest side, any format. Phone panoramas fit; the pixel limits below do the real work. */
export const MAX_SIDE_PX = 30_000;
/** Longest side over shortest side. */
export const MAX_ASPECT_RATIO = 20;
/** JPEG shrinks on load (1/2, 1/4, 1/8), so a 200 MP phone photo costs about what a 12 MP one does. */
export const JPEG_MAX_PIXELS = 200_000_000;
/** PNG, GIF, WebP and AVIF decode at full size: 40 MP is 160 MB of RGBA. */
export const OTHER_MAX_PIXELS = 40_000_000;

export function maxPixelsFor(format: string | undefined): number {
  return format === "jpeg" ? JPEG_MAX_PIXELS : OTHER_MAX_PIXELS;
}

/** A refusal the uploader can act on; the API answers 422 with this message. */
export class ImageRefusedError extends Error {
  override name = "ImageRefusedError";
}

const FORMAT_NAMES: Record<string, string> = { jpeg: "JPEG", png: "PNG", webp: "WebP", gif: "GIF", heif: "AVIF" };
const number = (value: number) => value.toLocaleString("en-NZ");

/** Why an image of this format and stored size (EXIF rotation aside) is refused, or null. */
export function imageLimitViolation(format: string | undefined, width: number, height: number): string | null {
  if (!Number.isFinite(width) || !Number.isFinite(height) || width < 1 || height < 1) {
    return "The image could not be read. Please try a different file.";
  }
  const long = Math.max(width, height);
  const short = Math.min(width, height);
  const ratio = long / short;
  if (ratio > MAX_ASPECT_RATIO) {
    const shape = width > height ? "wide" : "tall";
    return `The image is too ${shape} for the gallery (${Math.round(ratio)}:1; at most ${MAX_ASPECT_RATIO}:1). Please crop it and try again.`;
  }
  if (long > MAX_SIDE_PX) {
    return `The image is too large (${number(long)} pixels on its longest side; at most ${number(MAX_SIDE_PX)}). Please resize it and try again.`;
  }
  const pixels = width * height;
  const limit = maxPixelsFor(format);
  if (pixels > limit) {
    const name = FORMAT_NAMES[format ?? ""] ?? "such";
    // Never "200 megapixels; at most 200": one decimal when rounding would hide the excess.
    const megapixels =
      Math.round(pixels / 1e6) * 1e6 > limit ? String(Math.round(pixels / 1e6)) : (pixels / 1e6).toFixed(1);
    return (
      `The image is too large (${megapixels} megapixels; ${name} images can have at most ${limit / 1e6}). ` +
      (format === "jpeg" ? "Please resize it and try again." : "Please save it as a JPEG or resize it, and try again.")
    );
  }
  return null;
}
