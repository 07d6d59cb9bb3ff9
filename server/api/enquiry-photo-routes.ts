import type { Request, Response } from "express";
import { ENQUIRY_PHOTO_FIELD, MAX_ENQUIRY_PHOTO_BYTES } from "~/enquiry-photos/enquiry-photos";
import { acceptEnquiryPhoto, enquiryPhotoTempDir } from "~/enquiry-photos/enquiry-photo-accept.server";
import type { AppServices } from "~/services.server";
import { PHOTOS_BUSY, POST_FAILURE_STATUS, answerForPhoto, sendPhotoAnswer } from "../photo-intake/photo-answer";
import { closeAfterAnswer } from "../http-error";
import { photoBytesOf, type PhotoDisk } from "../photo-intake/photo-disk";
import { PhotoPostError, readPhotoPost, type PhotoPost, type PhotoPostLimits } from "../photo-intake/read-photo-post";

/**
 * POST /api/enquiry-photos: one photo per request, read to a temporary file by the bounded multipart reader,
 * its disk reserved first (503 when taken). Registered ahead of the JSON parser.
 */

const NO_PHOTO_MESSAGE = `Send one photo, as multipart/form-data in the field "${ENQUIRY_PHOTO_FIELD}".`;
const TOO_LARGE_MESSAGE = "Send one photo of at most 15 MB.";

/** A refused photo's body is drained, up to three photos' worth, so the browser sees the answer. */
const LIMITS: PhotoPostLimits = {
  files: 1,
  fields: 10,
  fieldBytes: 1024,
  textBytes: 10 * 1024,
  parts: 12,
  bodyBytes: 3 * MAX_ENQUIRY_PHOTO_BYTES,
};

export async function receiveEnquiryPhoto(
  services: AppServices,
  photoDisk: PhotoDisk,
  req: Request,
  res: Response,
): Promise<void> {
  const disk = photoDisk.tryReserve(req.ip ?? "", photoBytesOf(req, 1));
  if (!disk) {
    closeAfterAnswer(res);
    return sendPhotoAnswer(res, PHOTOS_BUSY);
  }
  let post: PhotoPost;
  try {
    post = await readPhotoPost(req, { dir: enquiryPhotoTempDir(services.env), limits: LIMITS });
  } catch (error) {
    disk.release();
    if (!(error instanceof PhotoPostError)) throw error;
    // The visitor went away: nobody to answer.
    if (error.reason === "left") return;
    closeAfterAnswer(res);
    const status = POST_FAILURE_STATUS[error.reason];
    sendPhotoAnswer(res, { status, message: status === 413 ? TOO_LARGE_MESSAGE : NO_PHOTO_MESSAGE });
    return;
  }
  try {
    const [photo] = post.photos;
    // One photo a post: a second photo part is never written, and the post is refused.
    if (!photo || post.tooManyParts) return sendPhotoAnswer(res, { status: 400, message: NO_PHOTO_MESSAGE });
    const outcome = await acceptEnquiryPhoto(services, photo, req.ip ?? "unknown");
    if (outcome.status === "accepted") res.status(201).json({ token: outcome.token, name: outcome.name });
    else sendPhotoAnswer(res, answerForPhoto(outcome));
  } finally {
    await post.discard();
    disk.release();
  }
}
