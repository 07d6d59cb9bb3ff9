/**
 * What processing an image produces, and how its files are named: shared
 * by the web process and the image worker without loading sharp.
 */

/** One encoded size of a gallery image. */
export type ImageVariant = { width: number; height: number; path: string; bytes: number };
export type ImageVariants = { avif: ImageVariant[]; webp: ImageVariant[]; jpeg: ImageVariant };

/** Public URL prefix the server maps onto `variants/` keys. */
export const MEDIA_URL_PREFIX = "/media/";

export type ProcessedImage = {
  /** Upright (EXIF-orientation applied) size of the original. */
  width: number;
  height: number;
  /** `data:image/webp;base64,…`, a tiny blurred preview (well under 1 KB). */
  placeholder: string;
  variants: ImageVariants;
  /** Every `variants/` key written, for clean-up when the image is deleted. */
  storageKeys: string[];
};

/** What processing a visitor's photo gives back (its two copies are at the keys the job named). */
export type ProcessedEnquiryPhoto = {
  /** The viewing copy's size. */
  width: number;
  height: number;
  thumbBytes: number;
  viewBytes: number;
};

export class ImageNotFoundError extends Error {
  override name = "ImageNotFoundError";
}

/** '/media/<20 hex>.<avif|webp|jpg>' -> 'variants/<same>'; null for anything else. */
export function variantKeyFromPublicPath(publicPath: string): string | null {
  const match = /^\/media\/([0-9a-f]{20}\.(?:avif|webp|jpg))$/.exec(publicPath);
  return match ? `variants/${match[1]}` : null;
}
