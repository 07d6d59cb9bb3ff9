import { readFile } from "node:fs/promises";
import { Readable } from "node:stream";
import sharp, { type OutputInfo, type Sharp } from "sharp";
import { decodeWithinLimits } from "~/images/decode-within-limits.server";
import { ImageRefusedError } from "~/images/image-limits";
import type { ObjectStorage } from "~/storage/storage.server";
import { THUMB_LONG_SIDE, VIEW_COPY_MAX_BYTES, VIEW_LONG_SIDE } from "./enquiry-photos";
import type { ProcessedEnquiryPhoto } from "~/images/processed-image";

/** Decisions 0017, 0018. sharp drops EXIF, GPS, XMP and ICC unless told to keep them, and nothing here tells it to. */

/** The formats the contact form accepts (sharp calls AVIF "heif"). */
const ACCEPTED_FORMATS = new Set(["jpeg", "png", "webp", "heif"]);
const THUMB_JPEG = { quality: 76, mozjpeg: true } as const;
/** Tried in order until the viewing copy fits VIEW_COPY_MAX_BYTES: quality first, then size. */
const VIEW_STEPS: readonly { longSide: number; quality: number }[] = [
  { longSide: VIEW_LONG_SIDE, quality: 80 },
  { longSide: VIEW_LONG_SIDE, quality: 70 },
  { longSide: VIEW_LONG_SIDE, quality: 60 },
  { longSide: 1280, quality: 60 },
  { longSide: 1024, quality: 60 },
  { longSide: 800, quality: 55 },
  { longSide: 640, quality: 50 },
];
const BACKGROUND = "#ffffff";

export async function processEnquiryPhoto(
  storage: ObjectStorage,
  file: string,
  keys: { thumbKey: string; viewKey: string },
): Promise<ProcessedEnquiryPhoto> {
  const input = await readFile(file);
  // Decoded once, upright, shrunk on load to the viewing copy's size (a bomb is refused from its header).
  const { data, info } = await decodeWithinLimits(input, {
    formats: ACCEPTED_FORMATS,
    resize: () => ({ width: VIEW_LONG_SIDE, height: VIEW_LONG_SIDE, fit: "inside", withoutEnlargement: true }),
    background: BACKGROUND,
  });
  const raw = { raw: { width: info.width, height: info.height, channels: info.channels } };
  const sized = (longSide: number): Sharp => {
    const image = sharp(data, raw);
    return Math.max(info.width, info.height) > longSide
      ? image.resize({ width: longSide, height: longSide, fit: "inside" })
      : image;
  };

  const thumb = await sized(THUMB_LONG_SIDE).jpeg(THUMB_JPEG).toBuffer();
  let view: { data: Buffer; info: OutputInfo } | null = null;
  for (const step of VIEW_STEPS) {
    view = await sized(step.longSide)
      .jpeg({ quality: step.quality, mozjpeg: true })
      .toBuffer({ resolveWithObject: true });
    if (view.data.length <= VIEW_COPY_MAX_BYTES) break;
  }
  if (!view || view.data.length > VIEW_COPY_MAX_BYTES)
    throw new ImageRefusedError("The viewing copy would not fit its size limit");

  // Written only once both encoded, so a failure leaves nothing behind.
  await storage.write(keys.thumbKey, Readable.from([thumb]));
  await storage.write(keys.viewKey, Readable.from([view.data]));
  return { width: view.info.width, height: view.info.height, thumbBytes: thumb.length, viewBytes: view.data.length };
}
