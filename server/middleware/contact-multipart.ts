import { createWriteStream } from "node:fs";
import fs from "node:fs/promises";
import path from "node:path";
import { pipeline } from "node:stream/promises";
import busboy from "busboy";
import type { Request, RequestHandler } from "express";
import { contactMessageSchema, HONEYPOT_FIELD } from "~/contact/contact-schema";
import {
  ENQUIRY_PHOTO_FIELD,
  MAX_ENQUIRY_PHOTO_BYTES,
  MAX_ENQUIRY_PHOTOS,
  TOO_MANY_PHOTOS_MESSAGE,
  photoTooLargeMessage,
} from "~/enquiry-photos/enquiry-photos";
import { displayName } from "~/enquiry-photos/enquiry-photo-accept.server";
import { acceptEnquiryPhoto } from "~/enquiry-photos/enquiry-photos.server";
import type { AppServices } from "~/services.server";
import { HttpError } from "../http-error";

/**
 * The no-JavaScript contact form with photos (issue 21 §3): `multipart/form-data`
 * posted to /contact. Streamed through busboy ahead of React Router; file parts
 * go to temporary files on disk within the limits, never whole into memory.
 * The whole body is read before anything is refused (so the browser shows the
 * answer); then each photo goes through acceptEnquiryPhoto, and the route's
 * action gets the text fields (as a form body) and the photos' outcome (in the
 * load context). The temporary files are always deleted. Every other page
 * post keeps the 64 KB limit (server/react-router-handler.ts).
 */

/** What the photos of a no-JS post came to; the contact route's action reads it. */
export type ContactPhotosOutcome =
  | { status: "accepted"; tokens: string[]; capped: boolean }
  /** Nothing is stored; the form comes back with its text and these reasons. */
  | { status: "refused"; httpStatus: number; messages: string[]; retryAfterSeconds?: number }
  | { status: "rate-limited"; retryAfterSeconds: number };

declare module "express-serve-static-core" {
  interface Locals {
    /** A no-JS contact post read by this middleware: its text fields and its photos' outcome. */
    contactPost?: { fields: [string, string][]; photos: ContactPhotosOutcome };
  }
}

declare module "react-router" {
  interface AppLoadContext {
    /** Set for a multipart post to /contact (server/middleware/contact-multipart.ts). */
    contactPhotos?: ContactPhotosOutcome;
  }
}

/** Text fields: the form has six; each far below this (the message is at most 5000 characters). */
const MULTIPART_LIMITS = { files: MAX_ENQUIRY_PHOTOS, fileSize: MAX_ENQUIRY_PHOTO_BYTES, fields: 10, fieldSize: 32 * 1024, parts: 40, headerPairs: 16 };
/** A body this long is not a form with a few photos: answered 413 and cut off. Below it, read to the end. */
export const CONTACT_BODY_CEILING_BYTES = 200 * 1024 * 1024;
/** Posts with photos on disk at once, per process: at most this × 5 × 15 MB of temporary files. */
export const CONCURRENT_PHOTO_POSTS = 4;

export const FORM_TOO_LONG_MESSAGE = "The form has more text than it can take. Please shorten the message and send it again.";
export const PHOTOS_BUSY_MESSAGE = "Many photos are being sent just now. Please try again in a minute.";
const BUSY_RETRY_SECONDS = 60;

type SavedFile = { fileName: string; declaredType: string; path: string };
/** `photoParts` counts the photos sent, saved or not. */
type ReadPost = { fields: [string, string][]; files: SavedFile[]; photoParts: number; problems: string[] };

function isContactMultipart(req: Request): boolean {
  return req.method === "POST" && req.path.replace(/\/$/, "") === "/contact" && (req.is("multipart/form-data") ?? false) !== false;
}

/** Reads the whole body: fields into memory (bounded), photo parts into `dir` (bounded), the rest thrown away. */
function readMultipart(req: Request, dir: string | null): Promise<ReadPost> {
  return new Promise((resolve, reject) => {
    const post: ReadPost = { fields: [], files: [], photoParts: 0, problems: [] };
    const writes: Promise<unknown>[] = [];
    const problem = (message: string) => {
      if (!post.problems.includes(message)) post.problems.push(message);
    };
    let parser: busboy.Busboy;
    try {
      parser = busboy({ headers: req.headers, limits: MULTIPART_LIMITS, defParamCharset: "utf8" });
    } catch {
      reject(new HttpError(400, "The form could not be read"));
      return;
    }
    parser.on("field", (name, value, info) => {
      if (info.nameTruncated || info.valueTruncated) problem(FORM_TOO_LONG_MESSAGE);
      else post.fields.push([name, value]);
    });
    parser.on("file", (name, stream, info) => {
      // An empty file input still sends a part, with no name and no bytes.
      if (name !== ENQUIRY_PHOTO_FIELD || !info.filename) {
        stream.resume();
        return;
      }
      post.photoParts += 1;
      if (!dir) {
        stream.resume();
        return;
      }
      const file: SavedFile = { fileName: info.filename, declaredType: info.mimeType, path: path.join(dir, String(post.files.length)) };
      post.files.push(file);
      // Past 15 MB busboy stops passing the file on and discards the rest of its part.
      stream.on("limit", () => problem(photoTooLargeMessage(displayName(file.fileName))));
      // Caught at once: a post broken off mid-file must not leave an unhandled rejection behind.
      writes.push(pipeline(stream, createWriteStream(file.path, { mode: 0o600 })).then(() => null, (error: unknown) => error));
    });
    parser.on("filesLimit", () => problem(TOO_MANY_PHOTOS_MESSAGE));
    parser.on("partsLimit", () => problem(TOO_MANY_PHOTOS_MESSAGE));
    parser.on("fieldsLimit", () => problem(FORM_TOO_LONG_MESSAGE));
    // The first failure wins; busboy destroyed also ends the photo being written.
    const fail = (error: Error) => {
      req.unpipe(parser);
      req.off("data", count);
      parser.destroy();
      reject(error);
    };
    parser.on("error", () => fail(new HttpError(400, "The form could not be read")));
    parser.on("close", () => {
      void Promise.all(writes).then((errors) => {
        const failed = errors.find((error) => error !== null);
        if (failed) reject(failed);
        else resolve(post);
      });
    });

    let seen = 0;
    const count = (chunk: Buffer) => {
      seen += chunk.length;
      if (seen > CONTACT_BODY_CEILING_BYTES) fail(new HttpError(413, "Request body too large"));
    };
    req.on("data", count);
    // Not pipeline(): that would destroy the request, and the 413 would never reach the browser.
    req.once("close", () => {
      if (!req.complete) fail(new VisitorLeftError());
    });
    req.pipe(parser);
  });
}

class VisitorLeftError extends Error {}

/** The text would be refused anyway (or it is a bot's): its photos are not worth processing. */
function textWillBeRefused(fields: [string, string][]): boolean {
  const values = Object.fromEntries(fields);
  return !contactMessageSchema.safeParse(values).success || (values[HONEYPOT_FIELD] ?? "").trim() !== "";
}

/** Each photo through acceptEnquiryPhoto, in the order chosen. */
async function judgePhotos(services: AppServices, files: SavedFile[], clientIp: string): Promise<ContactPhotosOutcome> {
  const tokens: string[] = [];
  const messages: string[] = [];
  let httpStatus = 400;
  let capped = false;
  let retryAfterSeconds: number | undefined;
  for (const file of files) {
    const outcome = await acceptEnquiryPhoto(services, { fileName: file.fileName, declaredType: file.declaredType, path: file.path }, clientIp);
    if (outcome.status === "accepted") tokens.push(outcome.token);
    else if (outcome.status === "capped") {
      // Its token goes with the enquiry too: the stored outcome then says photos were not taken.
      tokens.push(outcome.token);
      capped = true;
    }
    else if (outcome.status === "rate-limited") return { status: "rate-limited", retryAfterSeconds: outcome.retryAfterSeconds };
    else {
      messages.push(outcome.message);
      httpStatus = outcome.status === "busy" ? 503 : outcome.httpStatus;
      if (outcome.status === "busy") retryAfterSeconds = outcome.retryAfterSeconds;
    }
  }
  return messages.length ? { status: "refused", httpStatus, messages, retryAfterSeconds } : { status: "accepted", tokens, capped };
}

/** Temporary files under DATA_DIR (on disk, private), not /tmp (often memory, and shared). */
export function contactPhotosTempDir(services: Pick<AppServices, "env">): string {
  return path.join(services.env.DATA_DIR, "tmp", "contact-photos");
}

/** Leftovers of a process that stopped mid-post; a recent one may be another instance's post under way. */
async function sweepLeftovers(root: string, now: number): Promise<void> {
  const entries = await fs.readdir(root).catch(() => [] as string[]);
  for (const entry of entries) {
    const stat = await fs.stat(path.join(root, entry)).catch(() => null);
    if (stat && now - stat.mtimeMs > 60 * 60 * 1000) await fs.rm(path.join(root, entry), { recursive: true, force: true });
  }
}

export function contactMultipart(services: AppServices): RequestHandler {
  const root = contactPhotosTempDir(services);
  void sweepLeftovers(root, services.clock.now().getTime()).catch((error: unknown) => services.logger.warn({ err: error }, "contact photos: could not sweep leftovers"));
  let postsOnDisk = 0;

  return async (req, res, next) => {
    // A cross-site post is shown the page without reading it (server/middleware/cross-site.ts).
    if (!isContactMultipart(req) || res.locals.crossSiteRefused === true) return next();
    if (Number(req.get("content-length") ?? 0) > CONTACT_BODY_CEILING_BYTES) return next(new HttpError(413, "Request body too large"));

    const onDisk = postsOnDisk < CONCURRENT_PHOTO_POSTS;
    let dir: string | null = null;
    if (onDisk) postsOnDisk += 1;
    let photos: ContactPhotosOutcome | undefined;
    let fields: [string, string][] = [];
    let failure: unknown;
    try {
      if (onDisk) {
        await fs.mkdir(root, { recursive: true, mode: 0o700 });
        dir = await fs.mkdtemp(path.join(root, "post-"));
      }
      const post = await readMultipart(req, dir);
      fields = post.fields;
      if (post.problems.length) photos = { status: "refused", httpStatus: 413, messages: post.problems };
      else if (!onDisk && post.photoParts > 0) photos = { status: "refused", httpStatus: 503, messages: [PHOTOS_BUSY_MESSAGE], retryAfterSeconds: BUSY_RETRY_SECONDS };
      else if (post.files.length === 0 || textWillBeRefused(post.fields)) photos = { status: "accepted", tokens: [], capped: false };
      else photos = await judgePhotos(services, post.files, req.ip ?? "unknown");
    } catch (error) {
      failure = error;
    } finally {
      // Deleted before anything is answered: the photos, if any, are processed copies by now.
      if (dir) await fs.rm(dir, { recursive: true, force: true });
      if (onDisk) postsOnDisk -= 1;
    }
    if (photos) {
      res.locals.contactPost = { fields, photos };
      return next();
    }
    // The visitor left mid-post: nobody to answer.
    if (failure instanceof VisitorLeftError) return;
    if (failure instanceof HttpError && failure.status === 413) res.set("Connection", "close");
    next(failure);
  };
}
