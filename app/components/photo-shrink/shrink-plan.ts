import { VIEW_LONG_SIDE } from "~/enquiry-photos/enquiry-photos";

/** The copy the browser sends: the long side the site keeps, at most this many bytes. */
export const SENT_LONG_SIDE = VIEW_LONG_SIDE;
export const SENT_MAX_BYTES = 500 * 1024;
/**
 * Photos larger than this are not decoded in the browser (a 12 MP photo is 48 MB of pixels; this is
 * 200 MB): they go as they are, and the server, which decodes JPEG at a fraction of its size, judges them.
 */
export const MAX_DECODE_PIXELS = 50_000_000;

export type EncodeStep = { width: number; height: number; quality: number };

/**
 * The encodings to try, in order, until one fits SENT_MAX_BYTES: the photo at SENT_LONG_SIDE (never
 * enlarged) at JPEG quality 0.8, 0.7 and 0.6, then smaller at 0.7, as the server steps its viewing copy.
 */
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
