import express, { Router, type ErrorRequestHandler } from "express";
import type { AppServices } from "~/services.server";
import { HttpError } from "../http-error";
import type { PageCache } from "../page-cache";
import type { PhotoDisk } from "../photo-intake/photo-disk";
import { rejectCrossSiteRequests } from "../middleware/cross-site";
import { requireAdmin, resolveSession } from "../middleware/session";
import { accountRoutes } from "./account-routes";
import { adminRoutes } from "./admin-routes";
import { authRoutes } from "./auth-routes";
import { receiveEnquiryPhoto } from "./enquiry-photo-routes";
import { passkeyAccountRoutes, passkeySignInRoutes } from "./passkey-routes";
import { publicListRoutes } from "./list-routes";
import { publicRoutes } from "./public-routes";
import { receiveResumablePart, resumableUploadRoutes } from "./resumable-upload-routes";
import { twoStepAccountRoutes, twoStepSignInRoutes } from "./two-step-routes";
import { createUploadTarget, receiveUpload } from "./uploads";

/** Spec/issue: JSON bodies are at most 64 KB. */
export const JSON_BODY_LIMIT_BYTES = 64 * 1024;

/** The JSON API, mounted at /api. Every error answers JSON `{ message }`. */
export function createApiRouter(
  services: AppServices,
  options: { pageCache?: PageCache; photoDisk: PhotoDisk },
): Router {
  const api = Router();
  api.use((_req, res, next) => {
    res.set("Cache-Control", "no-store");
    next();
  });
  api.use(rejectCrossSiteRequests(services.env));
  api.use(resolveSession(services));

  // The direct upload streams its raw body: registered before the JSON parser.
  api.put("/uploads/:objectId", requireAdmin, (req, res) => receiveUpload(services, req, res));
  // A part of a resumable upload (on the disk) streams its raw body too (decision 0062).
  api.put("/uploads/resumable/:uploadId/parts/:partNumber", requireAdmin, (req, res) =>
    receiveResumablePart(services, req, res),
  );
  // A visitor's photo streams its multipart body too: never through the 64 KB JSON parser.
  api.post("/enquiry-photos", (req, res) => receiveEnquiryPhoto(services, options.photoDisk, req, res));

  api.use(express.json({ limit: JSON_BODY_LIMIT_BYTES, strict: true }));

  api.use(publicRoutes(services, options.pageCache));
  api.use(publicListRoutes(services));
  // A prerendered page, once shown, reports here (PAGE_VIEW_BEACON_PATH); the page-view counter
  // counts it from the request itself (server/page-view-counter.ts), so there is nothing to answer.
  api.post("/page-views/shown", (_req, res) => void res.status(200).end());
  api.use(authRoutes(services));
  api.use(twoStepSignInRoutes(services));
  api.use(passkeySignInRoutes(services));
  api.post("/objects/upload", requireAdmin, (req, res) => createUploadTarget(services, req, res));
  // Resumable uploads, an addition to the spec's single PUT: start, part URLs, complete.
  api.use("/uploads/resumable", requireAdmin, resumableUploadRoutes(services));
  // Everything under /admin, including routes added later, needs a signed-in administrator.
  api.use("/admin", requireAdmin, adminRoutes(services));
  api.use("/admin", requireAdmin, accountRoutes(services));
  api.use("/admin", requireAdmin, passkeyAccountRoutes(services));
  api.use("/admin", requireAdmin, twoStepAccountRoutes(services));

  api.use((req, _res, next) => next(new HttpError(404, `No API route for ${req.method} ${req.baseUrl}${req.path}`)));
  api.use(apiErrorHandler(services));
  return api;
}

type BodyParserError = Error & { type?: string; status?: number };

const UNSUPPORTED_ENCODING: [number, string] = [415, "Unsupported body encoding; send UTF-8 JSON"];
/** body-parser's failures; any limit is a 400 (docs/decisions/0004). */
const PARSER_ERRORS: Partial<Record<string, [number, string]>> = {
  "entity.parse.failed": [400, "The request body is not valid JSON"],
  "entity.too.large": [400, `The request body is too large (at most ${JSON_BODY_LIMIT_BYTES / 1024} KB)`],
  "encoding.unsupported": UNSUPPORTED_ENCODING,
  "charset.unsupported": UNSUPPORTED_ENCODING,
  "request.aborted": [400, "The request was aborted"],
};

/** Maps every failure to a JSON `{ message }` with the right status; never a stack trace. */
function apiErrorHandler(services: AppServices): ErrorRequestHandler {
  return (error: unknown, req, res, _next) => {
    let status = 500;
    let body: Record<string, unknown> = { message: "Something went wrong on our side. Please try again." };
    if (error instanceof HttpError) {
      status = error.status;
      body = { message: error.message, ...error.details };
      if (error.headers) res.set(error.headers);
    } else {
      const known = PARSER_ERRORS[(error as BodyParserError)?.type ?? ""];
      if (known) [status, body] = [known[0], { message: known[1] }];
      else services.logger.error({ err: error, method: req.method, path: req.path }, "API request failed");
    }
    if (res.headersSent) return;
    res.status(status).json(body);
  };
}
