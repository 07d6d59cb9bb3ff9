import { ApiError, apiRequest } from "~/lib/api-client";
import { ConnectionLostError, retryDelayMs, type JsonCall, type PartSender, type RetryWait } from "./resumable-upload";

/** Resumable uploads' transport (decision 0062): parts by XMLHttpRequest, for upload progress. */

/** A part that has sent nothing for this long is taken as a dropped connection (a phone's signal can stall without an error). */
export const PART_STALL_MS = 45_000;

/** JSON calls to this site with the session; a failed fetch (no connection) becomes ConnectionLostError. */
export const browserJsonCall: JsonCall = async <T>(method: "GET" | "POST", path: string, body?: unknown) => {
  let res: Response;
  try {
    res = await apiRequest(method, path, body);
  } catch (error) {
    if (error instanceof TypeError) throw new ConnectionLostError(error.message);
    throw error;
  }
  try {
    return (await res.json()) as T;
  } catch (error) {
    throw new ConnectionLostError(String(error));
  }
};

/** A presigned bucket URL gets no cookies (withCredentials stays false) and must expose ETag in its CORS rule. */
export function createXhrPartSender(options: { stallMs?: number } = {}): PartSender {
  const stallMs = options.stallMs ?? PART_STALL_MS;
  return (url, part, { onProgress, signal }) =>
    new Promise<string>((resolve, reject) => {
      const xhr = new XMLHttpRequest();
      let stalled = false;
      let watchdog: ReturnType<typeof setTimeout> | undefined;
      const watch = () => {
        clearTimeout(watchdog);
        watchdog = setTimeout(() => {
          stalled = true;
          xhr.abort();
        }, stallMs);
      };
      const settle = () => {
        clearTimeout(watchdog);
        signal?.removeEventListener("abort", cancel);
      };
      const cancel = () => xhr.abort();
      xhr.open("PUT", url);
      xhr.upload.onprogress = (event) => {
        watch();
        onProgress(Math.min(event.loaded, part.size));
      };
      xhr.onload = () => {
        settle();
        if (xhr.status < 200 || xhr.status >= 300) {
          reject(
            new ApiError(xhr.status, typeof xhr.responseText === "string" ? xhr.responseText : "", xhr.statusText),
          );
          return;
        }
        const etag = xhr.getResponseHeader("ETag");
        // A bucket whose CORS rule hides ETag: the start-up check should have said so (no resuming there).
        if (!etag) reject(new Error("The answer to a part carried no ETag"));
        else resolve(etag);
      };
      xhr.onerror = () => {
        settle();
        reject(new ConnectionLostError());
      };
      xhr.ontimeout = xhr.onerror;
      xhr.onabort = () => {
        settle();
        reject(
          stalled
            ? new ConnectionLostError("The connection stalled")
            : new DOMException("The upload was cancelled", "AbortError"),
        );
      };
      if (signal?.aborted) {
        reject(new DOMException("The upload was cancelled", "AbortError"));
        return;
      }
      signal?.addEventListener("abort", cancel, { once: true });
      watch();
      xhr.send(part);
    });
}

/** Ends early when the browser is online again (a phone that found its signal). */
export const waitForConnection: RetryWait = (attempt, signal) =>
  new Promise<void>((resolve, reject) => {
    const done = () => {
      clearTimeout(timer);
      window.removeEventListener("online", done);
      signal?.removeEventListener("abort", cancelled);
      resolve();
    };
    const cancelled = () => {
      clearTimeout(timer);
      window.removeEventListener("online", done);
      reject(new DOMException("The upload was cancelled", "AbortError"));
    };
    const timer = setTimeout(done, retryDelayMs(attempt));
    window.addEventListener("online", done);
    if (signal?.aborted) cancelled();
    else signal?.addEventListener("abort", cancelled, { once: true });
  });
