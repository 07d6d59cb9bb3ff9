import type { IncomingMessage, ServerResponse } from "node:http";
import { systemClock, type Clock, type TimerClock } from "~/lib/clock";
import { normaliseClientAddress } from "~/lib/client-address.server";
import type { Logger } from "~/lib/logger.server";
import { closeAfterAnswer } from "../http-error";
import { logRequest } from "./request-logger";

/**
 * Bounds on visitors' unfinished requests, before everything (decision 0072): requests per address, body memory
 * in all (429 / 503), a minimum body rate and a deadline (408). Each refusal closes the connection.
 */

/** Generous: many phones share one mobile carrier's address. */
const REQUESTS_PER_ADDRESS = 64;
/** Well under the 192 MB heap, with room for the sockets themselves. */
const BODY_MEMORY_BYTES = 32 * 1024 * 1024;
/** The most any reader keeps of one body: the JSON and page-post limit, above a multipart post's text. */
const HELD_BODY_BYTES = 64 * 1024;
/** A request's own objects (socket, parser, request, response), counted with its body. */
const REQUEST_BYTES = 16 * 1024;
/** Slower than a rural signal ever sends: under 1 KB/s over 30 s. */
const WINDOW_MS = 30_000;
const MIN_BYTES_PER_WINDOW = 30 * 1024;
/** A JSON or form body arrives within this; a photo streamed to disk has the rate rule instead. */
const BODY_ARRIVAL_MS = 30_000;
const CHECK_EVERY_MS = 1000;
const RETRY_AFTER_SECONDS = 30;

const SLOW_API_MESSAGE = "The request stopped arriving. Please send it again.";
const SLOW_PAGE_MESSAGE = "The form stopped arriving. Please send it again.";
const TOO_MANY_MESSAGE = "Too many requests from this address at once. Please try again in a minute.";
const BUSY_MESSAGE = "The server is busy just now. Please try again in a minute.";

const streamed = new WeakSet<IncomingMessage>();

/** The body goes to disk as it arrives (a photo): no arrival deadline, the minimum rate alone. */
export function streamsToDisk(req: IncomingMessage): void {
  streamed.add(req);
}

export type RequestBounds = {
  /** Takes the request in (true), or answers it and closes its connection (false). */
  admit(req: IncomingMessage, res: ServerResponse): boolean;
};

type Body = {
  req: IncomingMessage;
  res: ServerResponse;
  /** Answered in JSON (the API), or as text (a page). */
  api: boolean;
  startedAt: number;
  windowStart: number;
  windowBytes: number;
};

const isApi = (req: IncomingMessage) => (req.url ?? "").startsWith("/api/");

function declaredLength(req: IncomingMessage): number | null {
  if (req.headers["transfer-encoding"] !== undefined) return Infinity;
  const length = Number(req.headers["content-length"] ?? 0);
  return Number.isSafeInteger(length) && length > 0 ? length : null;
}

/** Answers (or, once an answer has gone, just drops) a request, closing its connection. */
function answerAndClose(
  req: IncomingMessage,
  res: ServerResponse,
  answer: { status: number; message: string; api: boolean; retry?: boolean },
) {
  if (res.headersSent) {
    req.socket.destroy();
    return;
  }
  const { status, message, api } = answer;
  closeAfterAnswer(res);
  const body = api ? JSON.stringify({ message }) : message;
  res.writeHead(status, {
    "Content-Type": api ? "application/json; charset=utf-8" : "text/plain; charset=utf-8",
    "Content-Length": Buffer.byteLength(body),
    "Cache-Control": "no-store",
    "X-Content-Type-Options": "nosniff",
    ...(answer.retry ? { "Retry-After": String(RETRY_AFTER_SECONDS) } : {}),
  });
  res.end(body);
}

export function createRequestBounds(options: {
  /** The services' clock; its own timer when it has one (a test's), else the system's. */
  clock: Clock | TimerClock;
  /** The client's address, as Express's req.ip resolves it. */
  clientAddress: (req: IncomingMessage) => string;
  logger: Logger;
}): RequestBounds {
  const { clock, logger } = options;
  const repeat = "repeat" in clock ? clock.repeat : systemClock.repeat;
  const openByAddress = new Map<string, number>();
  const bodies = new Set<Body>();
  let reservedBytes = 0;
  let stopChecking: (() => void) | null = null;

  const unwatch = (body: Body) => {
    bodies.delete(body);
    if (bodies.size === 0) {
      stopChecking?.();
      stopChecking = null;
    }
  };

  function check() {
    const now = clock.now().getTime();
    for (const body of bodies) {
      const { req, res, api } = body;
      if (req.complete || req.destroyed) {
        unwatch(body);
        continue;
      }
      const received = req.socket.bytesRead;
      const late = !streamed.has(req) && now - body.startedAt >= BODY_ARRIVAL_MS;
      // Not read just now (waiting for a handler, or for our own disk): not the visitor's slowness.
      if (!late && req.readableFlowing !== true) {
        body.windowStart = now;
        body.windowBytes = received;
        continue;
      }
      if (!late && now - body.windowStart < WINDOW_MS) continue;
      if (late || received - body.windowBytes < MIN_BYTES_PER_WINDOW) {
        unwatch(body);
        answerAndClose(req, res, { status: 408, message: api ? SLOW_API_MESSAGE : SLOW_PAGE_MESSAGE, api });
      } else {
        body.windowStart = now;
        body.windowBytes = received;
      }
    }
  }

  function refuse(req: IncomingMessage, res: ServerResponse, status: number, message: string, address: string) {
    const startedAt = process.hrtime.bigint();
    answerAndClose(req, res, { status, message, api: isApi(req), retry: true });
    if (logger.isLevelEnabled("info"))
      logRequest(logger, { method: req.method ?? "", url: req.url ?? "", status, startedAt, ip: address });
    return false;
  }

  return {
    admit(req, res) {
      const address = options.clientAddress(req);
      const key = normaliseClientAddress(address);
      const open = openByAddress.get(key) ?? 0;
      if (open >= REQUESTS_PER_ADDRESS) return refuse(req, res, 429, TOO_MANY_MESSAGE, address);
      const length = declaredLength(req);
      const reserved = length === null ? 0 : REQUEST_BYTES + Math.min(length, HELD_BODY_BYTES);
      if (reservedBytes + reserved > BODY_MEMORY_BYTES) return refuse(req, res, 503, BUSY_MESSAGE, address);

      openByAddress.set(key, open + 1);
      reservedBytes += reserved;
      // Held until the answer is out and the body is read (or the connection gone), whichever is last.
      let waiting = 2;
      const done = () => {
        if (--waiting > 0) return;
        reservedBytes -= reserved;
        const left = (openByAddress.get(key) ?? 1) - 1;
        if (left > 0) openByAddress.set(key, left);
        else openByAddress.delete(key);
      };
      res.once("close", done);
      req.once("close", done);
      if (length !== null) {
        // Node forgets a request once answered: if its connection then goes mid-body, end it for its reader.
        const orphaned = () => req.destroy();
        req.socket.once("close", orphaned);
        req.once("close", () => req.socket.off("close", orphaned));
      }
      if (length !== null && !req.complete) {
        const now = clock.now().getTime();
        const body = { req, res, api: isApi(req), startedAt: now, windowStart: now, windowBytes: req.socket.bytesRead };
        bodies.add(body);
        stopChecking ??= repeat(CHECK_EVERY_MS, check);
      }
      return true;
    },
  };
}
