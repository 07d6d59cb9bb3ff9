import type { GalleryImage, GalleryType } from "~/galleries/gallery";
import { apiRequest, isUnauthorizedError } from "~/lib/api-client";
import { serverMessage } from "./query-client";
import { UPLOAD_FAILED_MESSAGE, uploadFile } from "./upload-file";

export type UploadFailure = { name: string; message: string };
export type UploadOutcome = { uploaded: GalleryImage[]; failures: UploadFailure[] };

/**
 * Uploads files one after another (spec §7): for each, ask for an upload URL,
 * PUT the bytes there, then register it in the gallery with sortOrder = the
 * gallery's image count so far. One failed file does not stop the others; a
 * 401 at any step stops everything and is thrown (the session is gone).
 * Progress is bytes sent over all files, 0…1.
 */
export async function uploadImages(input: {
  files: File[];
  galleryType: GalleryType;
  currentCount: number;
  onProgress?: (fraction: number) => void;
  signal?: AbortSignal;
}): Promise<UploadOutcome> {
  const { files, galleryType, currentCount, onProgress, signal } = input;
  const totalBytes = files.reduce((sum, file) => sum + file.size, 0) || 1;
  let doneBytes = 0;
  const uploaded: GalleryImage[] = [];
  const failures: UploadFailure[] = [];
  onProgress?.(0);

  for (const file of files) {
    try {
      const target = (await (await apiRequest("POST", "/api/objects/upload")).json()) as { uploadURL: string };
      await uploadFile(target.uploadURL, file, {
        signal,
        onProgress: (loaded) => onProgress?.(Math.min(1, (doneBytes + loaded) / totalBytes)),
      });
      const res = await apiRequest("PUT", "/api/admin/gallery-images", {
        imageURL: target.uploadURL,
        galleryType,
        caption: "",
        sortOrder: String(currentCount + uploaded.length),
      });
      uploaded.push((await res.json()) as GalleryImage);
    } catch (error) {
      if (isUnauthorizedError(error)) throw error;
      if (signal?.aborted) throw error;
      failures.push({ name: file.name, message: serverMessage(error, UPLOAD_FAILED_MESSAGE) });
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
