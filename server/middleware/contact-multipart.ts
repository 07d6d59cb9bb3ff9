import type { Request, RequestHandler } from "express";
import type { ContactPhotosOutcome } from "~/contact/contact-result";
import { contactMessageSchema, HONEYPOT_FIELD } from "~/contact/contact-schema";
import { MAX_ENQUIRY_PHOTOS, TOO_MANY_PHOTOS_MESSAGE, photoTooLargeMessage } from "~/enquiry-photos/enquiry-photos";
import { displayName } from "~/enquiry-photos/enquiry-photo-accept.server";
import { acceptEnquiryPhoto, enquiryPhotoTempDir } from "~/enquiry-photos/enquiry-photo-accept.server";
import { forgetUnsentPhotos } from "~/enquiry-photos/enquiry-photos.server";
import type { AppServices } from "~/services.server";
import { HttpError, closeAfterAnswer } from "../http-error";
import { PHOTOS_BUSY, POST_FAILURE_STATUS, answerForPhoto } from "../photo-intake/photo-answer";
import { photoBytesOf, type PhotoDisk } from "../photo-intake/photo-disk";
import { PhotoPostError, readPhotoPost, type PhotoPost, type PhotoPostLimits } from "../photo-intake/read-photo-post";

/**
 * The no-JavaScript contact form with photos, read ahead of React Router by the one photo reader. The whole body
 * is read before refusing (so the browser shows the answer); temporary files are always deleted.
 */

declare module "express-serve-static-core" {
  interface Locals {
    /** A no-JS contact post read by this middleware: its text fields and its photos' outcome. */
    contactPost?: { fields: [string, string][]; photos: ContactPhotosOutcome };
  }
}

/** The form's real maxima: five text fields and a spare; the message 5,000 characters of up to 3 bytes. */
const LIMITS: Omit<PhotoPostLimits, "bodyBytes"> = {
  files: MAX_ENQUIRY_PHOTOS,
  fields: 6,
  fieldBytes: 15_000,
  textBytes: 20_000,
  parts: 40,
};
/** A body this long is not a form with a few photos: answered 413 and cut off. Below it, read to the end. */
export const CONTACT_BODY_CEILING_BYTES = 200 * 1024 * 1024;

const FORM_TOO_LONG_MESSAGE = "The form has more text than it can take. Please shorten the message and send it again.";

function isContactMultipart(req: Request): boolean {
  return (
    req.method === "POST" &&
    req.path.replace(/\/$/, "") === "/contact" &&
    (req.is("multipart/form-data") ?? false) !== false
  );
}

const isBots = (fields: [string, string][]) => fields.some(([name, value]) => name === HONEYPOT_FIELD && value.trim());

/** The text would be refused anyway (or it is a bot's): its photos are not worth processing. */
function textWillBeRefused(fields: [string, string][]): boolean {
  return !contactMessageSchema.safeParse(Object.fromEntries(fields)).success || isBots(fields);
}

/** What the post's limits found, in the visitor's words; none when it is within them. */
function postProblems(post: PhotoPost): string[] {
  const problems: string[] = [];
  if (post.tooManyParts || post.photoParts > MAX_ENQUIRY_PHOTOS) problems.push(TOO_MANY_PHOTOS_MESSAGE);
  for (const photo of post.photos) if (photo.tooLarge) problems.push(photoTooLargeMessage(displayName(photo.fileName)));
  if (post.tooMuchText) problems.push(FORM_TOO_LONG_MESSAGE);
  return problems;
}

/** One photo not taken refuses the post, as POST /api/enquiry-photos would; those taken before it are let go. */
async function judgePhotos(services: AppServices, post: PhotoPost, clientIp: string): Promise<ContactPhotosOutcome> {
  const tokens: string[] = [];
  const messages: string[] = [];
  let httpStatus = 400;
  let retryAfterSeconds: number | undefined;
  for (const photo of post.photos) {
    const outcome = await acceptEnquiryPhoto(services, photo, clientIp);
    if (outcome.status === "accepted") {
      tokens.push(outcome.token);
      continue;
    }
    const answer = answerForPhoto(outcome);
    messages.push(answer.message);
    httpStatus = answer.status;
    retryAfterSeconds = answer.retryAfterSeconds;
    // Busy, or a limit of this address: the photos after it would be turned away alike.
    if (outcome.status !== "refused") break;
  }
  if (messages.length === 0) return { status: "accepted", tokens };
  await forgetUnsentPhotos(services, tokens);
  return { status: "refused", httpStatus, messages, retryAfterSeconds };
}

async function photosOutcome(services: AppServices, post: PhotoPost, clientIp: string): Promise<ContactPhotosOutcome> {
  const problems = postProblems(post);
  if (problems.length) return { status: "refused", httpStatus: 413, messages: problems };
  if (post.noRoom)
    return {
      status: "refused",
      httpStatus: PHOTOS_BUSY.status,
      messages: [PHOTOS_BUSY.message],
      retryAfterSeconds: PHOTOS_BUSY.retryAfterSeconds,
    };
  if (post.photos.length === 0 || textWillBeRefused(post.fields)) return { status: "accepted", tokens: [] };
  return judgePhotos(services, post, clientIp);
}

export function contactMultipart(services: AppServices, photoDisk: PhotoDisk): RequestHandler {
  const dir = enquiryPhotoTempDir(services.env);

  return async (req, res, next) => {
    // A cross-site post is shown the page without reading it (server/middleware/cross-site.ts).
    if (!isContactMultipart(req) || res.locals.crossSiteRefused === true) return next();
    if (Number(req.get("content-length") ?? 0) > CONTACT_BODY_CEILING_BYTES) {
      closeAfterAnswer(res);
      return next(new HttpError(413, "Request body too large"));
    }

    // Disk for the photos when the first starts (the text takes none); a bot's photos are not written.
    const diskForPhotos = (fields: [string, string][], received: number) =>
      isBots(fields)
        ? "unwanted"
        : (photoDisk.tryReserve(req.ip ?? "", photoBytesOf(req, MAX_ENQUIRY_PHOTOS, received)) ?? "busy");
    let post: PhotoPost;
    try {
      post = await readPhotoPost(req, {
        dir,
        limits: { ...LIMITS, bodyBytes: CONTACT_BODY_CEILING_BYTES },
        diskForPhotos,
      });
    } catch (error) {
      if (!(error instanceof PhotoPostError)) return next(error);
      // The visitor left mid-post: nobody to answer.
      if (error.reason === "left") return;
      closeAfterAnswer(res);
      const status = POST_FAILURE_STATUS[error.reason];
      return next(new HttpError(status, status === 413 ? "Request body too large" : "The form could not be read"));
    }
    let photos: ContactPhotosOutcome | undefined;
    let failure: unknown;
    try {
      photos = await photosOutcome(services, post, req.ip ?? "unknown");
    } catch (error) {
      failure = error;
    }
    // Deleted, and their disk given back, before anything is answered: the photos are processed copies by now.
    await post.discard();
    if (!photos) return next(failure);
    res.locals.contactPost = { fields: post.fields, photos };
    next();
  };
}
