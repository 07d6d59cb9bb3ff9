// The main thread's side of the photo worker (photo-shrink.worker.ts). Imported by the photo picker
// when a photo is chosen, so neither this nor the worker loads with the page.
import { SENT_MAX_BYTES } from "./shrink-plan";

export type ShrinkRequest = { id: number; file: Blob };
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

/**
 * The file to send for a chosen photo: a JPEG copy with the same name (at most 1600 px on the long
 * side, upright, at most 500 KB, no metadata), or the photo as it is when the browser cannot make one.
 */
export function shrinkPhoto(file: File): Promise<File> {
  const target = photoWorker();
  if (!target) return Promise.resolve(file);
  const id = nextId++;
  return new Promise<ShrinkReply>((resolve) => {
    waiting.set(id, resolve);
    target.postMessage({ id, file } satisfies ShrinkRequest);
  }).then((reply) =>
    // A copy larger than the limit and the original (a small, already compressed photo) is not sent instead of it.
    reply.status === "shrunk" && (reply.blob.size <= SENT_MAX_BYTES || reply.blob.size < file.size)
      ? new File([reply.blob], file.name, { type: "image/jpeg", lastModified: file.lastModified })
      : file,
  );
}
