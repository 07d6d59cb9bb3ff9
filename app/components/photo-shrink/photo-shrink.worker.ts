/// <reference lib="webworker" />
// Off the main thread: decoded upright, then a JPEG with no metadata (a canvas writes none) by the plan.
import { photoHeaderSize } from "./photo-header-size";
import { MAX_DECODE_PIXELS, SHRINK_PLANS, type ShrinkPlanName } from "./shrink-plan";
import type { ShrinkOutcome, ShrinkReply, ShrinkRequest } from "./photo-shrink";

declare const self: DedicatedWorkerGlobalScope;

/** Enough for any header before the frame size (EXIF with a thumbnail is well under this). */
const HEADER_BYTES = 256 * 1024;

async function shrink(file: Blob, planName: ShrinkPlanName): Promise<ShrinkOutcome> {
  const plan = SHRINK_PLANS[planName];
  const size = photoHeaderSize(new Uint8Array(await file.slice(0, HEADER_BYTES).arrayBuffer()));
  if (size && size.width * size.height > MAX_DECODE_PIXELS) return { status: "kept" };
  let bitmap: ImageBitmap;
  try {
    bitmap = await createImageBitmap(file, { imageOrientation: "from-image" });
  } catch {
    return { status: "kept" };
  }
  try {
    let smallest: Blob | null = null;
    for (const step of plan.steps(bitmap.width, bitmap.height)) {
      const canvas = new OffscreenCanvas(step.width, step.height);
      const context = canvas.getContext("2d");
      if (!context) return { status: "kept" };
      // A transparent PNG gets white, not black, behind it.
      context.fillStyle = "#fff";
      context.fillRect(0, 0, step.width, step.height);
      context.imageSmoothingQuality = "high";
      context.drawImage(bitmap, 0, 0, step.width, step.height);
      const blob = await canvas.convertToBlob({ type: "image/jpeg", quality: step.quality });
      if (!smallest || blob.size < smallest.size) smallest = blob;
      if (blob.size <= plan.maxBytes) break;
    }
    return smallest ? { status: "shrunk", blob: smallest } : { status: "kept" };
  } finally {
    bitmap.close();
  }
}

self.onmessage = (event: MessageEvent<ShrinkRequest>) => {
  const { id, file, plan } = event.data;
  shrink(file, plan)
    .catch((): ShrinkOutcome => ({ status: "kept" }))
    .then((outcome) => self.postMessage({ id, ...outcome } as ShrinkReply));
};
