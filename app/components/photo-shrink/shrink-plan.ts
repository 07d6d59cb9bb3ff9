import { VIEW_LONG_SIDE } from "~/enquiry-photos/enquiry-photos";
import { MAX_VARIANT_HEIGHT, VARIANT_WIDTHS } from "~/images/image-limits";

/** The copy the browser sends: the long side the site keeps, at most this many bytes. */
export const SENT_LONG_SIDE = VIEW_LONG_SIDE;
export const SENT_MAX_BYTES = 500 * 1024;
/** Not decoded in the browser (a 12 MP photo is 48 MB of pixels): the server, which decodes JPEG cheaply, judges. */
export const MAX_DECODE_PIXELS = 50_000_000;
/** A gallery copy's JPEG quality: its variants look as those of the camera's photo (docs/PERFORMANCE.md). */
export const GALLERY_QUALITY = 0.9;

export type EncodeStep = { width: number; height: number; quality: number };

/** Who the copy is for: a visitor's enquiry (small), or the owner's gallery (the largest the site serves). */
export type ShrinkPlanName = "enquiry" | "gallery";

/** Tried in order until one fits, as the server steps its viewing copy. */
export function shrinkPlan(width: number, height: number): EncodeStep[] {
  const scaled = (longSide: number) => {
    const scale = Math.min(1, longSide / Math.max(width, height));
    return { width: Math.max(1, Math.round(width * scale)), height: Math.max(1, Math.round(height * scale)) };
  };
  const full = scaled(SENT_LONG_SIDE);
  const steps: EncodeStep[] = [0.8, 0.7, 0.6].map((quality) => ({ ...full, quality }));
  for (const longSide of [1280, 1024, 800]) {
    if (longSide < Math.max(full.width, full.height)) steps.push({ ...scaled(longSide), quality: 0.7 });
  }
  return steps;
}

/** As wide as the widest variant, so the site makes the very same variants from it; none when no larger. */
export function galleryShrinkPlan(width: number, height: number): EncodeStep[] {
  const widest = Math.min(Math.max(...VARIANT_WIDTHS), Math.floor((MAX_VARIANT_HEIGHT * width) / height));
  if (widest >= width) return [];
  return [{ width: widest, height: Math.round((height * widest) / width), quality: GALLERY_QUALITY }];
}

/** Each plan's encodings, tried until a copy fits `maxBytes`; a copy is sent if it fits or is smaller than the photo. */
export const SHRINK_PLANS: Record<ShrinkPlanName, { steps: typeof shrinkPlan; maxBytes: number }> = {
  enquiry: { steps: shrinkPlan, maxBytes: SENT_MAX_BYTES },
  gallery: { steps: galleryShrinkPlan, maxBytes: 0 },
};
