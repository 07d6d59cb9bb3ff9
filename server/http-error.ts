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
