import { MAX_UPLOAD_BYTES, MAX_UPLOAD_FILES } from "~/galleries/gallery";

export const MAX_UPLOAD_MB = Math.round(MAX_UPLOAD_BYTES / (1024 * 1024));

/** Spec §2: 'Maximum N files, up to X MB each'. */
export const UPLOAD_LIMITS_TEXT = `Maximum ${MAX_UPLOAD_FILES} files, up to ${MAX_UPLOAD_MB} MB each`;

export const notAnImageMessage = (name: string) => `File ${name} is not an image`;
export const tooLargeMessage = (name: string) => `File ${name} is too large. Maximum size is ${MAX_UPLOAD_MB}MB`;

/**
 * Spec §5 upload picker: images only, each at most the size limit (each
 * refusal is alerted), and the selection (kept + new) cut to the file limit.
 */
export function addToSelection(
  kept: File[],
  incoming: File[],
  alert: (message: string) => void,
): { files: File[]; truncated: boolean } {
  const accepted: File[] = [];
  for (const file of incoming) {
    if (!file.type.startsWith("image/")) {
      alert(notAnImageMessage(file.name));
    } else if (file.size > MAX_UPLOAD_BYTES) {
      alert(tooLargeMessage(file.name));
    } else {
      accepted.push(file);
    }
  }
  const all = [...kept, ...accepted];
  return { files: all.slice(0, MAX_UPLOAD_FILES), truncated: all.length > MAX_UPLOAD_FILES };
}

/** A file's size in KB with one decimal, e.g. '12.3 KB'. */
export function formatKilobytes(bytes: number): string {
  return `${(bytes / 1024).toFixed(1)} KB`;
}
