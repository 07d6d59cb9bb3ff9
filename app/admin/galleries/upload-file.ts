import { ApiError } from "~/lib/api-client";

export const UPLOAD_FAILED_MESSAGE = "Failed to upload image";

/**
 * PUTs one file's raw bytes to an upload URL (spec §7: a direct single upload,
 * no multipart), reporting bytes sent as they go. A same-origin URL (this
 * server's) carries the session cookie as every same-origin request does; a
 * bucket's presigned URL is another origin and gets no cookies at all
 * (withCredentials stays false): the signature is its only credential.
 * Resolves on 2xx; a refusal rejects with an ApiError ("{status}: {text}"),
 * a network failure with an Error.
 */
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
