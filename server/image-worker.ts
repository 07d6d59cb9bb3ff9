// The image worker's entry (decision 0017): turns photos into stored variants, one job at a time.
import { processEnquiryPhoto } from "~/enquiry-photos/enquiry-photo-pipeline.server";
import { ImageRefusedError } from "~/images/image-limits";
import { processImage } from "~/images/image-pipeline.server";
import type {
  FromImageWorker,
  ImageJobFailure,
  ImageJobKind,
  ImageJobRequest,
  ToImageWorker,
} from "~/images/image-worker-protocol.server";
import { ImageNotFoundError } from "~/images/processed-image";
import { openObjectStorage } from "~/storage/open-storage.server";
import type { ObjectStorage } from "~/storage/storage.server";

const send = process.send?.bind(process);
if (!send) {
  console.error("The image worker is started by the server; it does not run on its own.");
  process.exit(1);
}
const reply = (message: FromImageWorker) => send(message);
const peakRssMB = () => Math.round(process.resourceUsage().maxRSS / 1024);

// Opened from the server's configuration (local disk or the bucket) when it says init.
let storage: Promise<ObjectStorage> | null = null;

function failure(error: unknown): ImageJobFailure {
  if (error instanceof ImageRefusedError) return "refused";
  if (error instanceof ImageNotFoundError) return "not-found";
  return "unreadable";
}

/** What the worker does for each kind of job, and its answer. */
const handlers: {
  [K in ImageJobKind]: (store: ObjectStorage, request: ImageJobRequest<K>, id: number) => Promise<FromImageWorker>;
} = {
  "owner-photo": async (store, { originalKey }, id) => {
    const result = await processImage(store, originalKey);
    return { type: "done", kind: "owner-photo", id, result, peakRssMB: peakRssMB() };
  },
  "enquiry-photo": async (store, { file, thumbKey, viewKey }, id) => {
    const result = await processEnquiryPhoto(store, file, { thumbKey, viewKey });
    return { type: "done", kind: "enquiry-photo", id, result, peakRssMB: peakRssMB() };
  },
};

function runJob<K extends ImageJobKind>(
  store: ObjectStorage,
  kind: K,
  request: ImageJobRequest<K>,
  id: number,
): Promise<FromImageWorker> {
  const handler: (store: ObjectStorage, request: ImageJobRequest<K>, id: number) => Promise<FromImageWorker> =
    handlers[kind];
  return handler(store, request, id);
}

process.on("message", (message: ToImageWorker) => {
  if (message.type === "init") {
    storage = openObjectStorage(message.storage);
    // A failed open is reported by the first job that needs the storage.
    storage.catch(() => {});
    return;
  }
  const { id } = message;
  reply({ type: "started", id });
  const opened = storage ?? Promise.reject(new Error("The worker has no storage yet"));
  const fail = (error: unknown) =>
    reply({
      type: "failed",
      id,
      reason: failure(error),
      message: error instanceof Error ? error.message : String(error),
      peakRssMB: peakRssMB(),
    });
  opened.then((store) => runJob(store, message.kind, message.request, id)).then(reply, fail);
});

// The server is gone (or stopping): so is the worker.
process.on("disconnect", () => process.exit(0));

reply({ type: "ready" });
