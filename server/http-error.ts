import type { ServerResponse } from "node:http";

/** An error with an HTTP status; its message is safe to show to the client. */
export class HttpError extends Error {
  override name = "HttpError";
  constructor(
    readonly status: number,
    message: string,
    /** Extra JSON fields for the body, e.g. per-field messages. */
    readonly details?: Record<string, unknown>,
    readonly headers?: Record<string, string>,
  ) {
    super(message);
  }
}

export const badRequest = (message: string, details?: Record<string, unknown>) => new HttpError(400, message, details);
export const notFound = (message = "Not found") => new HttpError(404, message);

/** How long what still arrives of a refused body is read and dropped after the answer. */
const LINGER_MS = 2_000;

/**
 * Closes the connection after this answer without losing the answer. Node destroys the socket once
 * the answer is written; a body still arriving then makes the kernel reset the connection, which can
 * throw the answer away before the sender reads it. So the write side closes first, and what still
 * arrives is read and dropped for at most LINGER_MS (nginx's lingering close).
 */
export function closeAfterAnswer(res: ServerResponse): void {
  res.setHeader("Connection", "close");
  const socket = res.socket;
  if (!socket) return;
  socket.destroySoon = () => {
    if (socket.writable) socket.end();
    const timer = setTimeout(() => socket.destroy(), LINGER_MS);
    timer.unref();
    socket.once("close", () => clearTimeout(timer));
  };
}
