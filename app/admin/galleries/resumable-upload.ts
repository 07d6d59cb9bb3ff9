import { ApiError } from "~/lib/api-client";
import {
  RESUMABLE_UPLOADS_PATH,
  resumablePaths,
  type PartTargets,
  type ResumableCompleted,
  type ResumableUpload,
} from "~/uploads/resumable-protocol";

/** Decision 0062. No DOM here, so the API tests drive this very code through a proxy that cuts the connection. */

/** The connection dropped (or never came up): worth trying again once it is back. */
export class ConnectionLostError extends Error {
  override name = "ConnectionLostError";
  constructor(message = "The connection was lost") {
    super(message);
  }
}

/** A JSON call to this site (the browser's fetch with its cookies, or a test's); an ApiError on refusal, ConnectionLostError on a dropped connection. */
export type JsonCall = <T>(method: "GET" | "POST", path: string, body?: unknown) => Promise<T>;

/** Sends one part's bytes to its URL and resolves with the ETag of the answer; errors as JsonCall's. */
export type PartSender = (
  url: string,
  part: Blob,
  options: { onProgress: (loadedBytes: number) => void; signal?: AbortSignal },
) => Promise<string>;

/** Waits before try number `attempt` (1, 2, …) after a failure worth retrying. */
export type RetryWait = (attempt: number, signal?: AbortSignal) => Promise<void>;

/** 1 s, 2 s, 4 s, 8 s, 16 s, then every 30 s (the browser also tries at once when it comes back online). */
export function retryDelayMs(attempt: number): number {
  return Math.min(30_000, 1000 * 2 ** Math.max(0, attempt - 1));
}

/** A server that keeps failing (not the connection) is given up on after this many tries. */
const MAX_SERVER_FAILURES = 5;
/** Part URLs are asked for again this long before they expire. */
const URL_EXPIRY_MARGIN_MS = 60_000;

/** Answers that say "not now": a proxy or store briefly away, a busy server, a timeout. */
const BUSY_STATUSES = new Set([408, 429, 502, 503, 504]);

/** A refusal, or a 500 (a fault that trying again will not mend), is not worth another try. */
export function isTransient(error: unknown): boolean {
  if (error instanceof ConnectionLostError) return true;
  return error instanceof ApiError && BUSY_STATUSES.has(error.status);
}

/** The answer to a part when a bucket's presigned URL expired meanwhile (asked again for fresh URLs). */
const isExpiredUrl = (error: unknown) => error instanceof ApiError && error.status === 403;

export type SendInPartsInput = {
  file: Blob;
  call: JsonCall;
  sendPart: PartSender;
  waitToRetry: RetryWait;
  /** Milliseconds since the epoch, to tell when part URLs run out (injected in tests). */
  now?: () => number;
  /** Bytes of the file the server has confirmed, plus those of the part in flight. */
  onProgress?: (sentBytes: number) => void;
  /** "lost" when a try failed on the connection; "up" once an answer came, or a part's bytes moved, again. */
  onConnection?: (state: "up" | "lost") => void;
  /** The site said "not now" (429: the owner's photos already on their way are at their bounds): waited out, never given up on. */
  onHeld?: (refusal: ApiError) => void;
  signal?: AbortSignal;
};

/** Sends a file in parts; resolves with the address to register (PUT /api/admin/gallery-images). */
export async function sendInParts(input: SendInPartsInput): Promise<ResumableCompleted> {
  const { file, call, sendPart, signal } = input;
  const now = input.now ?? Date.now;
  let lost = false;
  /** An answer came, or a part's bytes are moving again: the connection is back. */
  const up = () => {
    if (!lost) return;
    lost = false;
    input.onConnection?.("up");
  };

  /** Runs `attempt` until it succeeds, waiting between tries while the connection is down or the server busy. */
  async function persist<T>(attempt: () => Promise<T>): Promise<T> {
    let tries = 0;
    let serverFailures = 0;
    for (;;) {
      signal?.throwIfAborted();
      try {
        const result = await attempt();
        up();
        return result;
      } catch (error) {
        if (signal?.aborted || !isTransient(error)) throw error;
        if (error instanceof ApiError && error.status === 429) {
          input.onHeld?.(error);
        } else if (error instanceof ConnectionLostError) {
          if (!lost) {
            lost = true;
            input.onConnection?.("lost");
          }
        } else if (++serverFailures >= MAX_SERVER_FAILURES) {
          throw error;
        }
        await input.waitToRetry(++tries, signal);
      }
    }
  }

  const upload = await persist(() =>
    call<ResumableUpload>("POST", RESUMABLE_UPLOADS_PATH, { size: file.size, type: file.type }),
  );
  let targets: PartTargets = upload;
  const refreshTargets = async () => {
    targets = await call<PartTargets>("GET", resumablePaths.partTargets(upload.uploadId));
  };

  const etags: { partNumber: number; etag: string }[] = [];
  let confirmed = 0;
  for (const { partNumber, bytes } of upload.parts) {
    const start = (partNumber - 1) * upload.partBytes;
    const part = file.slice(start, start + bytes);
    let refreshedAfterRefusal = false;
    const send = () => {
      const url = targets.parts.find((target) => target.partNumber === partNumber)?.url;
      if (!url) throw new Error(`The server gave no address for part ${partNumber}`);
      input.onProgress?.(confirmed);
      return sendPart(url, part, {
        signal,
        onProgress: (loaded) => {
          if (loaded > 0) up();
          input.onProgress?.(confirmed + Math.min(loaded, bytes));
        },
      });
    };
    const etag = await persist(async () => {
      if (Date.parse(targets.expiresAt) - now() < URL_EXPIRY_MARGIN_MS) await refreshTargets();
      try {
        return await send();
      } catch (error) {
        // What the part in flight had sent does not count: only confirmed parts do.
        if (error instanceof ConnectionLostError) input.onProgress?.(confirmed);
        // A bucket's URL that ran out during a long outage: fresh URLs, and at once again.
        if (!isExpiredUrl(error) || refreshedAfterRefusal) throw error;
        refreshedAfterRefusal = true;
        await refreshTargets();
        return send();
      }
    });
    confirmed += bytes;
    etags.push({ partNumber, etag });
    input.onProgress?.(confirmed);
  }

  // Asked again (its first answer lost on the way), a completed upload answers the same.
  return persist(() => call<ResumableCompleted>("POST", resumablePaths.complete(upload.uploadId), { parts: etags }));
}
