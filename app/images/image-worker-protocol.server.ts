import type { StorageConfig } from "~/storage/open-storage.server";
import type { ProcessedEnquiryPhoto, ProcessedImage } from "./processed-image";

/** The web process ↔ image worker messages (IPC JSON): a new kind is one entry here and one in each handler table. */
export type ImageJobs = {
  /** The owner's upload: a stored original becomes the gallery's variants. */
  "owner-photo": { request: { originalKey: string }; result: ProcessedImage };
  /** A visitor's photo in a local temp file becomes a thumbnail and a viewing copy at these keys. */
  "enquiry-photo": { request: { file: string; thumbKey: string; viewKey: string }; result: ProcessedEnquiryPhoto };
};
export type ImageJobKind = keyof ImageJobs;
export type ImageJobRequest<K extends ImageJobKind> = ImageJobs[K]["request"];
export type ImageJobResult<K extends ImageJobKind> = ImageJobs[K]["result"];

/** One job's message for each kind. */
export type ImageJobMessage = {
  [K in ImageJobKind]: { type: "job"; kind: K; id: number; request: ImageJobRequest<K> };
}[ImageJobKind];
/** One job's answer for each kind. */
export type ImageJobDone = {
  [K in ImageJobKind]: { type: "done"; kind: K; id: number; result: ImageJobResult<K>; peakRssMB: number };
}[ImageJobKind];

export type ToImageWorker =
  /** Sent once, in answer to "ready": how to open the storage. */
  { type: "init"; storage: StorageConfig } | ImageJobMessage;

/** Why a job failed: "refused" carries a message meant for the uploader. */
export type ImageJobFailure = "refused" | "not-found" | "unreadable";

export type FromImageWorker =
  | { type: "ready" }
  | { type: "started"; id: number }
  | ImageJobDone
  | { type: "failed"; id: number; reason: ImageJobFailure; message: string; peakRssMB: number };
