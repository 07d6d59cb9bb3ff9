// The photo worker's main-thread side, imported once a photo is chosen: neither loads with the page.
import { SHRINK_PLANS, type ShrinkPlanName } from "./shrink-plan";

export type ShrinkRequest = { id: number; file: Blob; plan: ShrinkPlanName };
/** `kept`: the browser cannot (or should not) decode it; the photo goes as it is and the server judges it. */
export type ShrinkOutcome = { status: "shrunk"; blob: Blob } | { status: "kept" };
export type ShrinkReply = { id: number } & ShrinkOutcome;

let worker: Worker | null | undefined;
let nextId = 1;
const waiting = new Map<number, (reply: ShrinkReply) => void>();

/** One worker for the page; photos are shrunk one at a time, so a phone decodes one photo at once. */
function photoWorker(): Worker | null {
  if (worker !== undefined) return worker;
  if (
    typeof Worker === "undefined" ||
    typeof OffscreenCanvas === "undefined" ||
    typeof createImageBitmap === "undefined"
  )
    return (worker = null);
  try {
    worker = new Worker(new URL("./photo-shrink.worker.ts", import.meta.url), { type: "module" });
  } catch {
    return (worker = null);
  }
  worker.onmessage = (event: MessageEvent<ShrinkReply>) => {
    waiting.get(event.data.id)?.(event.data);
    waiting.delete(event.data.id);
  };
  // A worker that cannot start (a browser without module workers): every photo goes as it is.
  worker.onerror = () => {
    for (const [id, resolve] of waiting) resolve({ id, status: "kept" });
    waiting.clear();
    worker?.terminate();
    worker = null;
  };
  return worker;
}

/** A JPEG copy (same name, upright, no metadata) by the plan, or the photo as it is when none can be made. */
export function shrinkPhoto(file: File, plan: ShrinkPlanName = "enquiry"): Promise<File> {
  const target = photoWorker();
  if (!target) return Promise.resolve(file);
  const id = nextId++;
  return new Promise<ShrinkReply>((resolve) => {
    waiting.set(id, resolve);
    target.postMessage({ id, file, plan } satisfies ShrinkRequest);
  }).then((reply) =>
    // A copy over the plan's bytes and no smaller than the original (a small, already compressed photo) is not sent instead of it.
    reply.status === "shrunk" && (reply.blob.size <= SHRINK_PLANS[plan].maxBytes || reply.blob.size < file.size)
      ? new File([reply.blob], file.name, { type: "image/jpeg", lastModified: file.lastModified })
      : file,
  );
}
