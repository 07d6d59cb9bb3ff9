import { PassThrough } from "node:stream";
import type { Request, Response } from "express";
import { createGalleryImage, deleteUnreferencedFiles } from "~/galleries/galleries.server";
import { MAX_UPLOAD_BYTES } from "~/galleries/gallery";
import { addGalleryImageSchema } from "~/galleries/gallery-schemas";
import { ImageRefusedError } from "~/images/image-limits";
import { sniffImageType } from "~/images/sniff-image-type";
import type { AppServices } from "~/services.server";
import { ObjectTooLargeError } from "~/storage/storage-errors.server";
import type { DeclaredUpload } from "~/storage/storage.server";
import {
  UPLOAD_NOT_AN_IMAGE_MESSAGE,
  UPLOAD_TOO_LARGE_MESSAGE,
  uploadDeclarationSchema,
} from "~/uploads/upload-declaration";
import {
  claimCompletedUpload,
  claimDirectUpload,
  issueUploadTarget,
  markFailed,
  markReceived,
  markRegistered,
  markRegistrationFailed,
  startReceiving,
} from "~/uploads/uploads.server";
import { HttpError, badRequest, closeAfterAnswer } from "../http-error";
import { streamsToDisk } from "../middleware/request-bounds";
import { parseJsonBody } from "./validation";

/** Uploads beyond the limit are read and thrown away up to this point, so the client sees the 413. */
const DRAIN_LIMIT_BYTES = 3 * MAX_UPLOAD_BYTES;

const NOT_COMPLETED_MESSAGE = "imageURL is not a completed upload (it may be unfinished or already used)";

/** The body of POST /api/objects/upload, or null for the spec's empty one (no body, or `{}`). */
function uploadDeclaration(req: Request): DeclaredUpload | null {
  const body: unknown = req.body;
  if (
    body === undefined ||
    (typeof body === "object" && body !== null && !Array.isArray(body) && Object.keys(body).length === 0)
  ) {
    return null;
  }
  const { size, type } = parseJsonBody(req, uploadDeclarationSchema);
  return { bytes: size, contentType: type };
}

/**
 * POST /api/objects/upload: a signed URL valid 15 minutes. With `{ size, type }` a file too large or not an image
 * is refused (400) before signing, and the URL fits only that size and type.
 */
export async function createUploadTarget(services: AppServices, req: Request, res: Response) {
  const declared = uploadDeclaration(req);
  res.json(await issueUploadTarget(services, new Date(), declared ?? undefined));
}

/** What a PUT to a URL signed for `declared` must look like, or why it does not (the bucket's rule, on the disk). */
function mismatchWithDeclaration(req: Request, declared: DeclaredUpload): string | null {
  const length = req.get("content-length");
  const type = (req.get("content-type") ?? "").trim().toLowerCase();
  if (length !== String(declared.bytes) || type !== declared.contentType) {
    return `This upload link is for a file of ${declared.bytes} bytes of type ${declared.contentType}: send that file, with that Content-Length and Content-Type`;
  }
  return null;
}

/** Discards the rest of a refused body, then answers; gives up on endless bodies. */
export function answerAfterDraining(req: Request, res: Response, error: HttpError) {
  let drained = 0;
  const reply = () => {
    if (res.headersSent) return;
    closeAfterAnswer(res);
    res.status(error.status).json({ message: error.message });
  };
  if (req.readableEnded) return reply();
  req.on("data", (chunk: Buffer) => {
    drained += chunk.length;
    if (drained > DRAIN_LIMIT_BYTES) {
      reply();
      req.destroy();
    }
  });
  req.on("end", reply);
  req.resume();
}

/** PUT /api/uploads/:objectId: streams to storage, judges the type by its bytes, leaves nothing when refusing. */
export async function receiveUpload(services: AppServices, req: Request, res: Response) {
  const objectId = String(req.params.objectId);
  const param = (name: string) => (typeof req.query[name] === "string" ? req.query[name] : undefined);
  const params = {
    expires: param("expires") ?? "",
    signature: param("signature") ?? "",
    size: param("size"),
    type: param("type"),
  };
  const verdict = services.storage.verifyUploadTarget(objectId, params);
  if (verdict === "expired") throw new HttpError(403, "This upload link has expired");
  if (verdict !== "ok") throw new HttpError(403, "This upload link is not valid");
  // Signed (verified above): the one file this link is for. Refused before the ticket is used, as the bucket does.
  const declared = params.size !== undefined ? { bytes: Number(params.size), contentType: String(params.type) } : null;
  const mismatch = declared ? mismatchWithDeclaration(req, declared) : null;
  if (mismatch) return answerAfterDraining(req, res, new HttpError(403, mismatch));
  if (!(await startReceiving(services, objectId))) throw new HttpError(403, "This upload link has already been used");

  const key = `originals/${objectId}`;
  if (Number(req.get("content-length") ?? 0) > MAX_UPLOAD_BYTES) {
    await markFailed(services, objectId);
    return answerAfterDraining(req, res, new HttpError(413, UPLOAD_TOO_LARGE_MESSAGE));
  }

  // A pass-through, so a refusal stops the file without destroying the request we answer on.
  streamsToDisk(req);
  const body = new PassThrough();
  // Storage reports a failed write through its own promise; once that has settled (a refused
  // file, say), a late client abort must not become an unhandled 'error' that ends the process.
  body.on("error", () => {});
  req.pipe(body);
  // pipe() does not pass an aborted upload on; without this the write would wait forever. A reset
  // connection destroys even a request that had arrived whole, with its unread bytes; one reset while
  // the ticket was claimed above is gone already.
  const abort = () => {
    if (!req.readableEnded) body.destroy(new Error("The client aborted the upload"));
  };
  req.once("close", abort);
  if (req.destroyed) abort();
  let written: { bytes: number; head: Buffer };
  try {
    written = await services.storage.write(key, body, { maxBytes: declared?.bytes ?? MAX_UPLOAD_BYTES });
  } catch (error) {
    await markFailed(services, objectId);
    req.unpipe(body);
    if (error instanceof ObjectTooLargeError) {
      return answerAfterDraining(req, res, new HttpError(413, UPLOAD_TOO_LARGE_MESSAGE));
    }
    if (req.destroyed || req.readableAborted) return; // The client went away.
    throw error;
  }

  const type = sniffImageType(written.head);
  if (!type) {
    await services.storage.delete(key);
    await markFailed(services, objectId);
    throw new HttpError(415, UPLOAD_NOT_AN_IMAGE_MESSAGE);
  }
  await markReceived(services, objectId, type, written.bytes);
  res.json({ message: "Upload complete" });
}

/** The upload id in an upload URL this server issued, or null (other host, other path, junk). */
function uploadIdFromUrl(imageURL: string, req: Request, services: AppServices): string | null {
  const ownOrigin = `${req.protocol}://${req.get("host")}`;
  let url: URL;
  try {
    url = new URL(imageURL, ownOrigin);
  } catch {
    return null;
  }
  return services.storage.objectIdFromUploadUrl(url, [ownOrigin, new URL(services.env.SITE_URL).origin]);
}

/** An upload that went straight to the bucket: checked and moved to its private key (app/uploads). */
async function claimBucketUpload(services: AppServices, uploadId: string): Promise<string> {
  const claim = await claimDirectUpload(services, uploadId);
  switch (claim.status) {
    case "claimed":
      return claim.originalKey;
    case "too-large":
      throw new HttpError(413, UPLOAD_TOO_LARGE_MESSAGE);
    case "not-an-image":
      throw new HttpError(415, UPLOAD_NOT_AN_IMAGE_MESSAGE);
    default:
      throw badRequest(NOT_COMPLETED_MESSAGE);
  }
}

/** A completed upload becomes a gallery image; the server reads only its own storage, never a URL. */
export async function addUploadedImage(services: AppServices, req: Request) {
  const input = parseJsonBody(req, addGalleryImageSchema);
  const uploadId = uploadIdFromUrl(input.imageURL, req, services);
  if (!uploadId) throw badRequest("imageURL must be an upload URL issued by this site");
  const originalKey =
    services.storage.uploadMode === "direct"
      ? await claimBucketUpload(services, uploadId)
      : await claimCompletedUpload(services, uploadId);
  if (!originalKey) throw badRequest(NOT_COMPLETED_MESSAGE);

  let processed;
  try {
    processed = await services.images.process(originalKey);
  } catch (error) {
    services.logger.warn({ err: error, uploadId }, "an uploaded image could not be processed");
    await services.storage.delete(originalKey);
    await markRegistrationFailed(services, uploadId);
    // Over a limit: say which. Anything else (undecodable, or the worker died on it) is unreadable.
    throw new HttpError(
      422,
      error instanceof ImageRefusedError ? error.message : "The image could not be read. Please try a different file.",
    );
  }
  let image;
  try {
    image = await createGalleryImage(services, {
      galleryType: input.galleryType,
      caption: input.caption,
      processed,
      originalKey,
    });
  } catch (error) {
    // No half-written image: remove the files of a record that was not stored.
    await deleteUnreferencedFiles(services, [...processed.storageKeys, originalKey]);
    await markRegistrationFailed(services, uploadId);
    throw error;
  }
  await markRegistered(services, uploadId);
  return image;
}
