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
  /** Its copy is being made (shrunk) in the browser. */
  | { state: "preparing" }
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

/** Spec §7. Preparing, sending and registering overlap, so the uplink never waits; only a 401 stops the rest. */
export async function uploadImages(input: {
  files: FileToUpload[];
  galleryType: GalleryType;
  currentCount: number;
  parts?: PartTransport | null;
  prepare: (file: File) => Promise<File>;
  onProgress?: (fraction: number) => void;
  onFileState?: (index: number, state: FileUploadState) => void;
}): Promise<UploadOutcome> {
  const { files, galleryType, currentCount, parts, prepare, onProgress, onFileState } = input;
  const totalBytes = files.reduce((sum, { file }) => sum + file.size, 0) || 1;
  let doneBytes = 0;
  const uploaded: GalleryImage[] = [];
  const failures: UploadFailure[] = [];
  // A 401 (the session is gone): the run stops, and throws it.
  const stopped: unknown[] = [];
  let registering = Promise.resolve();
  const fail = (index: number, error: unknown) => {
    if (isUnauthorizedError(error)) return void stopped.push(error);
    const message = serverMessage(error, UPLOAD_FAILED_MESSAGE);
    failures.push({ name: files[index]!.file.name, message });
    onFileState?.(index, { state: "failed", reason: message });
  };
  onProgress?.(0);

  let nextCopy = files.length ? prepare(files[0]!.file) : null;
  for (const [index, { file, caption }] of files.entries()) {
    if (stopped.length) break;
    onFileState?.(index, { state: "preparing" });
    const copy = await nextCopy!;
    nextCopy = index + 1 < files.length ? prepare(files[index + 1]!.file) : null;
    try {
      const imageURL = await sendBytes(copy, parts, (state) => {
        onFileState?.(index, state);
        if (state.state === "uploading" || state.state === "reconnecting")
          onProgress?.(Math.min(1, (doneBytes + (file.size * state.percent) / 100) / totalBytes));
      });
      onFileState?.(index, { state: "processing" });
      // Registered one at a time, in order, while the next file's bytes go up.
      registering = registering.then(async () => {
        if (stopped.length) return;
        try {
          const res = await apiRequest("PUT", "/api/admin/gallery-images", {
            imageURL,
            galleryType,
            caption: caption().trim(),
            sortOrder: String(currentCount + uploaded.length),
          });
          uploaded.push((await res.json()) as GalleryImage);
          onFileState?.(index, { state: "done" });
        } catch (error) {
          fail(index, error);
        }
      });
    } catch (error) {
      fail(index, error);
    }
    doneBytes += file.size;
    onProgress?.(Math.min(1, doneBytes / totalBytes));
  }
  await registering;
  if (stopped.length) throw stopped[0];
  return { uploaded, failures };
}

/** Sends one file's bytes, reporting its state; resolves with the address to register it under. */
async function sendBytes(
  file: File,
  parts: PartTransport | null | undefined,
  onState: (state: FileUploadState) => void,
): Promise<string> {
  onState({ state: "uploading", percent: 0 });
  let percent = 0;
  let reconnecting = false;
  const report = () => onState(reconnecting ? { state: "reconnecting", percent } : { state: "uploading", percent });
  const sent = (loaded: number) => {
    percent = Math.round((loaded / (file.size || 1)) * 100);
    report();
  };
  if (parts) {
    const { imageURL } = await sendInParts({
      file,
      ...parts,
      onProgress: sent,
      onConnection: (connection) => {
        reconnecting = connection === "lost";
        report();
      },
      onHeld: (refusal) => onState({ state: "waiting", reason: serverMessage(refusal, LET_OTHERS_FINISH_MESSAGE) }),
    });
    return imageURL;
  }
  // The file's size and type: refused at once if the server will not take it, else signed into the URL.
  const declaration: UploadDeclaration = { size: file.size, type: file.type };
  const target = (await (await apiRequest("POST", "/api/objects/upload", declaration)).json()) as {
    uploadURL: string;
  };
  await uploadFile(target.uploadURL, file, { onProgress: sent });
  return target.uploadURL;
}

/** The 'Upload failed' toast's text for the files that did not make it. */
export function describeUploadFailures(outcome: UploadOutcome): string {
  const { uploaded, failures } = outcome;
  const details = failures.map((f) => `${f.name}: ${f.message}`).join("; ");
  if (!uploaded.length) return details;
  const total = uploaded.length + failures.length;
  return `${uploaded.length} of ${total} images uploaded. ${details}`;
}
