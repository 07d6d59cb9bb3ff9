import type { Request } from "express";
import type { z } from "~/lib/zod";
import { HttpError } from "../http-error";

/** The request's JSON object body, or a 400 when there is none. */
export function jsonObjectBody(req: Request): Record<string, unknown> {
  if (!req.is("application/json")) {
    throw new HttpError(400, "Send the body as JSON with Content-Type: application/json");
  }
  const body: unknown = req.body;
  if (typeof body !== "object" || body === null || Array.isArray(body)) {
    throw new HttpError(400, "The request body must be a JSON object");
  }
  return body as Record<string, unknown>;
}

/** Parses a JSON body with a shared schema; 400 with one message per field otherwise. */
export function parseJsonBody<S extends z.ZodType>(req: Request, schema: S): z.infer<S> {
  const result = schema.safeParse(jsonObjectBody(req));
  if (!result.success) {
    const errors: Record<string, string> = {};
    for (const issue of result.error.issues) {
      const field = issue.path.join(".") || "body";
      errors[field] ??= issue.message;
    }
    const first = Object.values(errors)[0] ?? "Invalid request";
    throw new HttpError(400, first, { errors });
  }
  return result.data;
}
