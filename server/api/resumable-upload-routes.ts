import { PassThrough } from "node:stream";
import { Router, type Request, type Response } from "express";
import type { AppServices } from "~/services.server";
import { completeResumableSchema, startResumableSchema, type ResumableSupport } from "~/uploads/resumable-protocol";
import {
  UploadRefusal,
  completeResumableUpload,
  partTargetsFor,
  receivePart,
  startResumableUpload,
} from "~/uploads/resumable-uploads.server";
import { HttpError } from "../http-error";
import { streamsToDisk } from "../middleware/request-bounds";
import { answerAfterDraining } from "./uploads";
import { parseJsonBody } from "./validation";

const REFUSAL_STATUS: Record<UploadRefusal["kind"], number> = {
  "not-found": 404,
  ended: 409,
  // Another request is putting the parts together: a moment later the answer is there.
  busy: 503,
  invalid: 400,
  "too-large": 413,
  "not-an-image": 415,
  // The owner's own uploads on their way are at their bounds: not now, which the upload tray waits out.
  wait: 429,
};

function httpErrorOf(error: unknown): HttpError | null {
  if (!(error instanceof UploadRefusal)) return null;
  const headers = error.kind === "wait" ? { "Retry-After": "30" } : undefined;
  return new HttpError(REFUSAL_STATUS[error.kind], error.message, undefined, headers);
}

/** The upload id in the path: the form this server gives out (a UUID), or a 404. */
function uploadIdOf(req: Request): string {
  const id = String(req.params.uploadId);
  if (!/^[0-9a-f-]{36}$/.test(id))
    throw new HttpError(404, "There is no such upload (it may have been finished or forgotten): start it again");
  return id;
}

/** What GET /api/uploads/resumable answers: the start-up check's finding, with the part size. */
function resumableSupportOf(services: AppServices): ResumableSupport {
  const support = services.partUploads;
  return support.available ? { available: true, partBytes: services.storage.parts.partBytes } : support;
}

/** Resumable uploads' JSON routes for the administrator (decision 0062; paths in app/uploads/resumable-protocol.ts). */
export function resumableUploadRoutes(services: AppServices): Router {
  const router = Router();

  /** GET /api/uploads/resumable: whether uploads here can resume, or why not (the upload window says so). */
  router.get("/", (_req, res) => {
    res.json(resumableSupportOf(services));
  });

  /** POST /api/uploads/resumable: { size, type } (refused as POST /api/objects/upload refuses) → the upload and where its parts go. */
  router.post("/", async (req, res) => {
    const support = services.partUploads;
    if (!support.available) throw new HttpError(409, support.reason, { resumable: false });
    const { size, type } = parseJsonBody(req, startResumableSchema);
    try {
      res.status(201).json(await startResumableUpload(services, { bytes: size, contentType: type }));
    } catch (error) {
      throw httpErrorOf(error) ?? error;
    }
  });

  /** GET …/:uploadId/parts: fresh URLs for every part (a bucket's last 15 minutes). */
  router.get("/:uploadId/parts", async (req, res) => {
    try {
      res.json(await partTargetsFor(services, uploadIdOf(req)));
    } catch (error) {
      throw httpErrorOf(error) ?? error;
    }
  });

  /** POST …/:uploadId/complete: { parts: [{ partNumber, etag }] } → { imageURL } to register. */
  router.post("/:uploadId/complete", async (req, res) => {
    const id = uploadIdOf(req);
    const { parts } = parseJsonBody(req, completeResumableSchema);
    try {
      res.json(await completeResumableUpload(services, id, parts));
    } catch (error) {
      throw httpErrorOf(error) ?? error;
    }
  });

  return router;
}

/** PUT …/parts/:partNumber: streams one part to storage (a cut-off part leaves nothing) and answers its ETag. */
export async function receiveResumablePart(services: AppServices, req: Request, res: Response) {
  if (services.storage.uploadMode !== "via-server") {
    return answerAfterDraining(
      req,
      res,
      new HttpError(404, "Parts of uploads to this site's bucket go to the bucket, at the URLs the upload was given"),
    );
  }
  const id = uploadIdOf(req);
  const partNumber = /^\d{1,5}$/.test(String(req.params.partNumber)) ? Number(req.params.partNumber) : NaN;
  const length = req.get("content-length");
  if (!length || !/^\d{1,12}$/.test(length)) {
    return answerAfterDraining(req, res, new HttpError(411, "Send the part with its Content-Length"));
  }

  // As PUT /api/uploads/:id: a pass-through, so a refusal stops the part without destroying the request we answer on.
  streamsToDisk(req);
  const body = new PassThrough();
  body.on("error", () => {});
  req.pipe(body);
  req.once("close", () => {
    if (!req.complete) body.destroy(new Error("The client aborted the part"));
  });
  let etag: string;
  try {
    etag = await receivePart(services, { id, partNumber, contentLength: Number(length), body });
  } catch (error) {
    req.unpipe(body);
    // The connection dropped mid-part: nobody to answer; the page sends the part again.
    if (!req.complete && (req.destroyed || req.readableAborted)) return;
    const refusal = httpErrorOf(error);
    if (refusal) return answerAfterDraining(req, res, refusal);
    throw error;
  }
  res.set("ETag", etag).json({ partNumber, etag });
}
