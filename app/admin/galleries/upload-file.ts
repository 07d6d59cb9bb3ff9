import { ApiError } from "~/lib/api-client";

export const UPLOAD_FAILED_MESSAGE = "Failed to upload image";

/** Spec §7 single PUT. A presigned bucket URL gets no cookies (withCredentials false): the signature is all it has. */
export function uploadFile(
  url: string,
  file: File,
  options: { onProgress?: (loadedBytes: number) => void } = {},
): Promise<void> {
  return new Promise((resolve, reject) => {
    const xhr = new XMLHttpRequest();
    xhr.open("PUT", url);
    xhr.setRequestHeader("Content-Type", file.type || "application/octet-stream");
    xhr.upload.onprogress = (event) => {
      if (event.lengthComputable || event.loaded) options.onProgress?.(Math.min(event.loaded, file.size));
    };
    xhr.onload = () => {
      if (xhr.status >= 200 && xhr.status < 300) {
        options.onProgress?.(file.size);
        resolve();
      } else {
        reject(new ApiError(xhr.status, typeof xhr.responseText === "string" ? xhr.responseText : "", xhr.statusText));
      }
    };
    xhr.onerror = xhr.ontimeout = xhr.onabort = () => reject(new Error(UPLOAD_FAILED_MESSAGE));
    xhr.send(file);
  });
}
