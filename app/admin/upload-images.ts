import type { GalleryImage, GalleryType } from "~/galleries/gallery";
import { apiRequest, isUnauthorizedError } from "~/lib/api-client";
import type { UploadDeclaration } from "~/uploads/upload-declaration";
import { serverMessage } from "./query-client";
import { UPLOAD_FAILED_MESSAGE, uploadFile } from "./upload-file";

export type UploadFailure = { name: string; message: string };
export type UploadOutcome = { uploaded: GalleryImage[]; failures: UploadFailure[] };

/** Where one file stands, as the upload modal shows it. */
export type FileUploadState =
  | { state: "waiting" }
  | { state: "uploading"; percent: number }
  | { state: "processing" }
  | { state: "done" }
  | { state: "failed"; reason: string };

export type FileToUpload = {
  file: File;
  /** Read when the file is registered, so an edit made while earlier files upload still counts. */
  caption: () => string;
};

/**
 * Uploads files one after another (spec §7): for each, ask for a new upload
 * URL (saying the file's size and type, which the URL is then signed for),
 * PUT the bytes there with that type, then register it in the gallery with its caption
 * and sortOrder = the gallery's image count so far (the server processes it
 * then). One failed file does not stop the others; a 401 at any step stops
 * everything and is thrown (the session is gone). Progress is bytes sent over
 * all these files, 0…1; each file's own state goes to onFileState.
 */
export async function uploadImages(input: {
  files: FileToUpload[];
  galleryType: GalleryType;
  currentCount: number;
  onProgress?: (fraction: number) => void;
  onFileState?: (index: number, state: FileUploadState) => void;
  signal?: AbortSignal;
}): Promise<UploadOutcome> {
  const { files, galleryType, currentCount, onProgress, onFileState, signal } = input;
  const totalBytes = files.reduce((sum, { file }) => sum + file.size, 0) || 1;
  let doneBytes = 0;
  const uploaded: GalleryImage[] = [];
  const failures: UploadFailure[] = [];
  onProgress?.(0);

  for (const [index, { file, caption }] of files.entries()) {
    try {
      onFileState?.(index, { state: "uploading", percent: 0 });
      // The file's size and type: refused at once if the server will not take it, else signed into the URL.
      const declaration: UploadDeclaration = { size: file.size, type: file.type };
      const target = (await (await apiRequest("POST", "/api/objects/upload", declaration)).json()) as { uploadURL: string };
      await uploadFile(target.uploadURL, file, {
        signal,
        onProgress: (loaded) => {
          onFileState?.(index, { state: "uploading", percent: Math.round((loaded / (file.size || 1)) * 100) });
          onProgress?.(Math.min(1, (doneBytes + loaded) / totalBytes));
        },
      });
      onFileState?.(index, { state: "processing" });
      const res = await apiRequest("PUT", "/api/admin/gallery-images", {
        imageURL: target.uploadURL,
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
