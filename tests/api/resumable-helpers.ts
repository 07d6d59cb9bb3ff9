/**
 * Test support for resumable uploads (not a test file itself): the admin
 * page's own client (app/admin/galleries/resumable-upload.ts) over Node's fetch, with a
 * real listening server, the administrator's session cookie, and a retry
 * schedule on a clock the test moves.
 */
import { createServer, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import type { Express } from "express";
import {
  ConnectionLostError,
  retryDelayMs,
  type JsonCall,
  type PartSender,
  type RetryWait,
} from "~/admin/galleries/resumable-upload";
import { ApiError } from "~/lib/api-client";
import { ADMIN } from "./helpers";

/** The app on a real port (a proxy can stand in front of it); its origin, and how to stop it. */
export async function listen(app: Express): Promise<{ origin: string; close(): Promise<void> }> {
  const server: Server = createServer(app);
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  return {
    origin: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
    close: () =>
      new Promise<void>((resolve) => {
        server.close(() => resolve());
        server.closeAllConnections();
      }),
  };
}

/** Signs the administrator in at `origin`; the Cookie header that carries the session. */
export async function sessionCookie(origin: string): Promise<string> {
  const res = await fetch(`${origin}/api/login`, {
    method: "POST",
    headers: { "Content-Type": "application/json", Origin: origin },
    body: JSON.stringify(ADMIN),
  });
  if (!res.ok) throw new Error(`sign-in failed: ${res.status} ${await res.text()}`);
  return res.headers
    .getSetCookie()
    .map((cookie) => cookie.split(";")[0])
    .join("; ");
}

/** fetch, with a dropped connection reported as the client module expects. */
async function send(url: string, init: RequestInit): Promise<Response> {
  try {
    return await fetch(url, init);
  } catch (error) {
    if (error instanceof TypeError)
      throw new ConnectionLostError(String((error as Error & { cause?: unknown }).cause ?? error.message));
    throw error;
  }
}

async function refusedUnlessOk(res: Response): Promise<Response> {
  if (!res.ok) throw new ApiError(res.status, await res.text().catch(() => ""), res.statusText);
  return res;
}

/** The page's calls, as the browser makes them: to `origin`, with the session and the page's Origin. */
export function pageTransport(origin: string, cookie: string): { call: JsonCall; sendPart: PartSender } {
  const call: JsonCall = async <T>(method: "GET" | "POST", path: string, body?: unknown) => {
    const res = await send(`${origin}${path}`, {
      method,
      headers: {
        Cookie: cookie,
        Origin: origin,
        ...(body === undefined ? {} : { "Content-Type": "application/json" }),
      },
      body: body === undefined ? undefined : JSON.stringify(body),
    });
    await refusedUnlessOk(res);
    // The body is read in full here: a connection cut while it arrives is a lost connection too.
    try {
      return (await res.json()) as T;
    } catch (error) {
      throw new ConnectionLostError(String(error));
    }
  };
  const sendPart: PartSender = async (url, part, { onProgress, signal }) => {
    // This site's own part route carries the session (same origin); a bucket's presigned URL gets no cookies at all.
    const ownSite = url.startsWith("/");
    const res = await send(ownSite ? `${origin}${url}` : url, {
      method: "PUT",
      headers: ownSite ? { Cookie: cookie, Origin: origin } : { Origin: origin },
      body: part,
      signal,
    });
    await refusedUnlessOk(res);
    await res.arrayBuffer().catch(() => {
      throw new ConnectionLostError("the answer was cut off");
    });
    const etag = res.headers.get("etag");
    if (!etag) throw new Error("the part's answer carried no ETag");
    onProgress(part.size);
    return etag;
  };
  return { call, sendPart };
}

/**
 * The client's retry schedule (retryDelayMs) on a clock that moves only when
 * the test says: `advance(ms)` lets every wait that falls due run.
 */
export function manualRetrySchedule() {
  let now = 0;
  const waiting: { at: number; resolve: () => void }[] = [];
  const waits: number[] = [];
  const waitToRetry: RetryWait = (attempt) =>
    new Promise<void>((resolve) => {
      waits.push(attempt);
      waiting.push({ at: now + retryDelayMs(attempt), resolve });
    });
  return {
    waitToRetry,
    /** Milliseconds on this clock (for the client's `now`, from the start of the epoch plus the real start time). */
    now: () => now,
    /** How many tries are waiting for their time. */
    get pending() {
      return waiting.length;
    },
    /** Every wait so far, by attempt number. */
    waits,
    /** When the earliest waiting try falls due, on this clock. */
    get nextAt() {
      return Math.min(...waiting.map((wait) => wait.at));
    },
    advance(ms: number) {
      now += ms;
      for (const wait of waiting.filter((w) => w.at <= now)) {
        waiting.splice(waiting.indexOf(wait), 1);
        wait.resolve();
      }
    },
  };
}

/** The part number of a part request that went through a proxy (the disk's route, or a bucket's UploadPart). */
export function partNumberOf(request: { method: string; url: string }): number | null {
  if (request.method !== "PUT") return null;
  const url = new URL(request.url, "http://x");
  const own = /\/api\/uploads\/resumable\/[^/]+\/parts\/(\d+)$/.exec(url.pathname);
  if (own) return Number(own[1]);
  return url.searchParams.has("uploadId") && url.searchParams.has("partNumber")
    ? Number(url.searchParams.get("partNumber"))
    : null;
}
