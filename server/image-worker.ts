// The image worker's entry (decision 0017): Vite builds it into build/server/image-worker.js
// beside the server bundle; development and tests run this file with tsx. It does one thing:
// turn stored originals into variants, one job at a time, for the server that started it.
import { processEnquiryPhoto } from "~/enquiry-photos/enquiry-photo-pipeline.server";
import { ImageRefusedError } from "~/images/image-limits";
import { processImage } from "~/images/image-pipeline.server";
import type { FromImageWorker, ImageJobFailure, ToImageWorker } from "~/images/image-worker-protocol";
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
  if (message.type === "enquiry-photo") {
    // Issue 21: a visitor's photo (app/enquiry-photos/enquiry-photo-pipeline.server.ts).
    const { file, thumbKey, viewKey } = message;
    opened
      .then((store) => processEnquiryPhoto(store, file, { thumbKey, viewKey }))
      .then((photo) => reply({ type: "enquiry-photo-done", id, photo, peakRssMB: peakRssMB() }), fail);
    return;
  }
  opened
    .then((store) => processImage(store, message.originalKey))
    .then((image) => reply({ type: "done", id, image, peakRssMB: peakRssMB() }), fail);
});

// The server is gone (or stopping): so is the worker.
process.on("disconnect", () => process.exit(0));

reply({ type: "ready" });
