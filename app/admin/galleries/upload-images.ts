import type { GalleryImage, GalleryType } from "~/galleries/gallery";
import { apiRequest, isUnauthorizedError } from "~/lib/api-client";
import { LET_OTHERS_FINISH_MESSAGE } from "~/uploads/resumable-protocol";
import type { UploadDeclaration } from "~/uploads/upload-declaration";
import { serverMessage } from "../query-client";
import { sendInParts, type JsonCall, type PartSender, type RetryWait } from "./resumable-upload";
import { UPLOAD_FAILED_MESSAGE, uploadFile } from "./upload-file";

export type UploadFailure = { name: string; message: string };
export type UploadOutcome = { uploaded: GalleryImage[]; failures: UploadFailure[] };

/** Where one file stands, as the upload modal shows it. */
export type FileUploadState =
  /** With `reason`: the site asked it to wait (the photos already on their way first); it goes by itself later. */
  | { state: "waiting"; reason?: string }
  | { state: "uploading"; percent: number }
  /** Sent in parts, and the connection dropped: it resumes by itself when the signal returns. */
  | { state: "reconnecting"; percent: number }
  | { state: "processing" }
  | { state: "done" }
  | { state: "failed"; reason: string };

/** How files go up in parts (decision 0062); without it, each goes up in one PUT as the spec has it. */
export type PartTransport = { call: JsonCall; sendPart: PartSender; waitToRetry: RetryWait };

export type FileToUpload = {
  file: File;
  /** Read when the file is registered, so an edit made while earlier files upload still counts. */
  caption: () => string;
};

/**
 * Uploads files one after another (spec §7): for each, send its bytes, then
 * register it in the gallery with its caption and sortOrder = the gallery's
 * image count so far (the server processes it then). With `parts`, a file
 * goes up in parts that survive a dropped connection (decision 0062);
 * otherwise it asks for a new upload URL (saying the file's size and type,
 * which the URL is then signed for) and PUTs the bytes there with that type.
 * One failed file does not stop the others; a 401 at any step stops
 * everything and is thrown (the session is gone). Progress is bytes sent over
 * all these files, 0…1; each file's own state goes to onFileState.
 */
export async function uploadImages(input: {
  files: FileToUpload[];
  galleryType: GalleryType;
  currentCount: number;
  parts?: PartTransport | null;
  onProgress?: (fraction: number) => void;
  onFileState?: (index: number, state: FileUploadState) => void;
  signal?: AbortSignal;
}): Promise<UploadOutcome> {
  const { files, galleryType, currentCount, parts, onProgress, onFileState, signal } = input;
  const totalBytes = files.reduce((sum, { file }) => sum + file.size, 0) || 1;
  let doneBytes = 0;
  const uploaded: GalleryImage[] = [];
  const failures: UploadFailure[] = [];
  onProgress?.(0);

  for (const [index, { file, caption }] of files.entries()) {
    try {
      onFileState?.(index, { state: "uploading", percent: 0 });
      let percent = 0;
      let reconnecting = false;
      const sent = (loaded: number) => {
        percent = Math.round((loaded / (file.size || 1)) * 100);
        onFileState?.(index, reconnecting ? { state: "reconnecting", percent } : { state: "uploading", percent });
        onProgress?.(Math.min(1, (doneBytes + loaded) / totalBytes));
      };
      let imageURL: string;
      if (parts) {
        ({ imageURL } = await sendInParts({
          file,
          ...parts,
          signal,
          onProgress: sent,
          onConnection: (connection) => {
            reconnecting = connection === "lost";
            onFileState?.(index, reconnecting ? { state: "reconnecting", percent } : { state: "uploading", percent });
          },
          onHeld: (refusal) =>
            onFileState?.(index, { state: "waiting", reason: serverMessage(refusal, LET_OTHERS_FINISH_MESSAGE) }),
        }));
      } else {
        // The file's size and type: refused at once if the server will not take it, else signed into the URL.
        const declaration: UploadDeclaration = { size: file.size, type: file.type };
        const target = (await (await apiRequest("POST", "/api/objects/upload", declaration)).json()) as {
          uploadURL: string;
        };
        await uploadFile(target.uploadURL, file, { signal, onProgress: sent });
        imageURL = target.uploadURL;
      }
      onFileState?.(index, { state: "processing" });
      const res = await apiRequest("PUT", "/api/admin/gallery-images", {
        imageURL,
        galleryType,
        caption: caption().trim(),
        sortOrder: String(currentCount + uploaded.length),
      });
      uploaded.push((await res.json()) as GalleryImage);
      onFileState?.(index, { state: "done" });
    } catch (error) {
      if (isUnauthorizedError(error)) throw error;
      if (signal?.aborted) throw error;
      const message = serverMessage(error, UPLOAD_FAILED_MESSAGE);
      failures.push({ name: file.name, message });
      onFileState?.(index, { state: "failed", reason: message });
    }
    doneBytes += file.size;
    onProgress?.(Math.min(1, doneBytes / totalBytes));
  }
  return { uploaded, failures };
}

/** The 'Upload failed' toast's text for the files that did not make it. */
export function describeUploadFailures(outcome: UploadOutcome): string {
  const { uploaded, failures } = outcome;
  const details = failures.map((f) => `${f.name}: ${f.message}`).join("; ");
  if (!uploaded.length) return details;
  const total = uploaded.length + failures.length;
  return `${uploaded.length} of ${total} images uploaded. ${details}`;
}
