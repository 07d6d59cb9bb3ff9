import type { ProcessedEnquiryPhoto } from "~/enquiry-photos/enquiry-photo-keys";
import type { StorageConfig } from "~/storage/open-storage.server";
import type { ProcessedImage } from "./processed-image";

/** Messages between the web process and the image worker (JSON over the IPC channel). */

export type ToImageWorker =
  /** Sent once, in answer to "ready": how to open the storage. */
  | { type: "init"; storage: StorageConfig }
  | { type: "job"; id: number; originalKey: string }
  /** Issue 21: a visitor's photo in a local temp file, turned into a thumbnail and a viewing copy at these keys. */
  | { type: "enquiry-photo"; id: number; file: string; thumbKey: string; viewKey: string };

/** Why a job failed: "refused" carries a message meant for the uploader. */
export type ImageJobFailure = "refused" | "not-found" | "unreadable";

export type FromImageWorker =
  | { type: "ready" }
  | { type: "started"; id: number }
  | { type: "done"; id: number; image: ProcessedImage; peakRssMB: number }
  | { type: "enquiry-photo-done"; id: number; photo: ProcessedEnquiryPhoto; peakRssMB: number }
  | { type: "failed"; id: number; reason: ImageJobFailure; message: string; peakRssMB: number };
