import { createHash } from "node:crypto";
import { Readable } from "node:stream";
import sharp, { type OutputInfo, type Sharp } from "sharp";
import type { ObjectStorage } from "~/storage/storage.server";
import { decodeWithinLimits } from "./decode-within-limits.server";
import { MAX_VARIANT_HEIGHT, VARIANT_WIDTHS } from "./image-limits";
import { ImageNotFoundError, MEDIA_URL_PREFIX, type ImageVariant, type ProcessedImage } from "./processed-image";

/** The single JPEG fallback is at most this wide. */
export const JPEG_FALLBACK_MAX_WIDTH = 1600;

// Encoder settings, tuned with scripts/bench-image-pipeline.ts on 2 cores. AVIF effort 3 encodes
// as fast as 2 here and makes photo-like files about 30 % smaller at a higher PSNR (decision 0055).
const AVIF_OPTIONS = { quality: 52, effort: 3, chromaSubsampling: "4:2:0" } as const;
const WEBP_OPTIONS = { quality: 78, effort: 4 } as const;
const JPEG_OPTIONS = { quality: 78, mozjpeg: true, progressive: true } as const;
// Bounding box of the placeholder: tiny, since CSS stretches and blurs it anyway.
const PLACEHOLDER_SIZE = 20;
// Two encodes at once keep both cores busy (each is mostly single-threaded) without piling up buffers.
const ENCODE_CONCURRENCY = 2;
const JPEG_BACKGROUND = "#ffffff";

type Format = "avif" | "webp" | "jpeg";
const EXTENSIONS: Record<Format, string> = { avif: "avif", webp: "webp", jpeg: "jpg" };

/** The widest a variant of this upright size may be: its own width, or less for a very tall image. */
export function maxVariantWidth(uprightWidth: number, uprightHeight: number = uprightWidth): number {
  return Math.max(1, Math.min(uprightWidth, Math.floor((MAX_VARIANT_HEIGHT * uprightWidth) / uprightHeight)));
}

/** VARIANT_WIDTHS within the upright size; an image narrower than the smallest gets one at its own width. */
export function variantWidthsFor(uprightWidth: number, uprightHeight: number = uprightWidth): number[] {
  const widest = maxVariantWidth(uprightWidth, uprightHeight);
  const widths = VARIANT_WIDTHS.filter((width) => width <= widest);
  return widths.length > 0 ? widths : [widest];
}

/** Runs tasks with at most `limit` in flight; results keep the tasks' order. */
async function runLimited<T>(tasks: (() => Promise<T>)[], limit: number): Promise<T[]> {
  const results: T[] = new Array<T>(tasks.length);
  let next = 0;
  let failed = false;
  const lane = async () => {
    // After a failure the other lane stops too, rather than encoding on unseen.
    while (!failed && next < tasks.length) {
      const index = next++;
      try {
        results[index] = await tasks[index]!();
      } catch (error) {
        failed = true;
        throw error;
      }
    }
  };
  await Promise.all(Array.from({ length: Math.min(limit, tasks.length) }, lane));
  return results;
}

// One image at a time: a 24 MP decode is the memory peak, and two at once on 2 cores only slow both.
let queueTail: Promise<unknown> = Promise.resolve();
function serialize<T>(task: () => Promise<T>): Promise<T> {
  const run = queueTail.then(task, task);
  queueTail = run.catch(() => undefined);
  return run;
}

async function readObject(storage: ObjectStorage, key: string): Promise<Buffer> {
  const object = await storage.read(key);
  if (!object) throw new ImageNotFoundError(`No stored object at ${key}`);
  const chunks: Buffer[] = [];
  for await (const chunk of object.stream) chunks.push(chunk as Buffer);
  return Buffer.concat(chunks);
}

type Encoded = { format: Format; width: number; height: number; data: Buffer };

/**
 * Decodes the original once (upright, sRGB, shrunk on load) and writes every variant content-addressed under
 * `variants/`; sharp strips EXIF, GPS, XMP and ICC unless told otherwise.
 */
export function processImage(storage: ObjectStorage, originalKey: string): Promise<ProcessedImage> {
  return serialize(() => runPipeline(storage, originalKey));
}

type Decoded = {
  uprightWidth: number;
  uprightHeight: number;
  widths: number[];
  jpegWidth: number;
  data: Buffer;
  info: OutputInfo;
};

/** The width of the JPEG fallback for an image of this upright size. */
function jpegWidthFor(uprightWidth: number, uprightHeight: number): number {
  return Math.min(JPEG_FALLBACK_MAX_WIDTH, maxVariantWidth(uprightWidth, uprightHeight));
}

/** Reads and decodes the original once; its compressed bytes are unreachable once this returns. */
async function decodeOriginal(storage: ObjectStorage, originalKey: string): Promise<Decoded> {
  const input = await readObject(storage, originalKey);
  // Decoded at the largest width needed: JPEG shrink-on-load then decodes a 6000 px original at
  // 3000 px, which is most of the speed-up.
  const { upright, data, info } = await decodeWithinLimits(input, {
    resize: ({ width, height }) => {
      const decodeWidth = Math.max(jpegWidthFor(width, height), ...variantWidthsFor(width, height));
      return decodeWidth < width ? { width: decodeWidth } : undefined;
    },
  });
  return {
    uprightWidth: upright.width,
    uprightHeight: upright.height,
    widths: variantWidthsFor(upright.width, upright.height),
    jpegWidth: jpegWidthFor(upright.width, upright.height),
    data,
    info,
  };
}

async function runPipeline(storage: ObjectStorage, originalKey: string): Promise<ProcessedImage> {
  const { uprightWidth, uprightHeight, widths, jpegWidth, data, info } = await decodeOriginal(storage, originalKey);

  const raw = { raw: { width: info.width, height: info.height, channels: info.channels } };
  const at = (width: number) => {
    const image = sharp(data, raw);
    return width < info.width ? image.resize({ width }) : image;
  };
  const encode = (format: Format, width: number, image: Sharp) => async (): Promise<Encoded> => {
    const out = await image.toBuffer({ resolveWithObject: true });
    return { format, width: out.info.width, height: out.info.height, data: out.data };
  };

  // Largest first: the biggest AVIF alone is ~40% of the work, so it starts at
  // once on one lane while the other works through the rest.
  const jobs: (() => Promise<Encoded>)[] = [];
  for (const width of [...widths].reverse()) {
    jobs.push(encode("avif", width, at(width).avif(AVIF_OPTIONS)));
    jobs.push(encode("webp", width, at(width).webp(WEBP_OPTIONS)));
  }
  jobs.splice(
    Math.min(3, jobs.length),
    0,
    encode("jpeg", jpegWidth, at(jpegWidth).flatten({ background: JPEG_BACKGROUND }).jpeg(JPEG_OPTIONS)),
  );
  // Bounded on both sides so even a very tall image stays well under 1 KB.
  const placeholderJob = () =>
    sharp(data, raw)
      .resize({ width: PLACEHOLDER_SIZE, height: PLACEHOLDER_SIZE, fit: "inside", withoutEnlargement: true })
      .blur(0.6)
      .webp({ quality: 40, effort: 6 })
      .toBuffer();
  const [encoded, placeholder] = await Promise.all([runLimited(jobs, ENCODE_CONCURRENCY), placeholderJob()]);

  // Write only once everything encoded, so a failed encode leaves nothing behind.
  const written = new Map<string, ImageVariant>();
  const variants: { avif: ImageVariant[]; webp: ImageVariant[]; jpeg: ImageVariant[] } = {
    avif: [],
    webp: [],
    jpeg: [],
  };
  for (const item of encoded) {
    const hash = createHash("sha256").update(item.data).digest("hex").slice(0, 20);
    const file = `${hash}.${EXTENSIONS[item.format]}`;
    let variant = written.get(file);
    if (!variant) {
      await storage.write(`variants/${file}`, Readable.from([item.data]));
      variant = {
        width: item.width,
        height: item.height,
        path: `${MEDIA_URL_PREFIX}${file}`,
        bytes: item.data.length,
      };
      written.set(file, variant);
    }
    variants[item.format].push(variant);
  }
  variants.avif.sort((a, b) => a.width - b.width);
  variants.webp.sort((a, b) => a.width - b.width);
  const jpeg = variants.jpeg[0];
  if (!jpeg) throw new Error("JPEG fallback was not produced");

  return {
    width: uprightWidth,
    height: uprightHeight,
    placeholder: `data:image/webp;base64,${placeholder.toString("base64")}`,
    variants: { avif: variants.avif, webp: variants.webp, jpeg },
    storageKeys: [...written.keys()].map((file) => `variants/${file}`),
  };
}
