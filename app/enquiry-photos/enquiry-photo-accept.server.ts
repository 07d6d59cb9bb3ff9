import { createHash, randomBytes, randomUUID } from "node:crypto";
import { createWriteStream } from "node:fs";
import { mkdir, open, rm, stat } from "node:fs/promises";
import path from "node:path";
import type { Readable } from "node:stream";
import { pipeline } from "node:stream/promises";
import { lockForTransaction } from "~/db/database.server";
import type { Env } from "~/env.server";
import { ImageRefusedError } from "~/images/image-limits";
import { ImageWorkerBusyError } from "~/images/image-worker.server";
import { sniffImageType } from "~/images/sniff-image-type";
import type { AppServices } from "~/services.server";
import { CountingTransform, HEAD_BYTES } from "~/storage/stream-limits.server";
import { ObjectTooLargeError } from "~/storage/storage-errors.server";
import {
  ENQUIRY_PHOTO_TYPES,
  MAX_ENQUIRY_PHOTO_BYTES,
  photoTooLargeMessage,
  unsupportedPhotoMessage,
  type EnquiryPhotoAccepted,
} from "./enquiry-photos";
import { enquiryPhotoKeys } from "./enquiry-photo-keys";

type Services = Pick<AppServices, "db" | "storage" | "images" | "clock" | "logger" | "env" | "addressKey" | "limits">;

/** The outcome of one photo sent by a visitor (JS: POST /api/enquiry-photos; no-JS: one file part). */
export type PhotoAcceptOutcome =
  | ({ status: "accepted" } & EnquiryPhotoAccepted)
  /** Too large, not one of the four types, unreadable, a bomb: `message` names the file and is shown as it is (400/413/415). */
  | { status: "refused"; httpStatus: 400 | 413 | 415; message: string }
  /**
   * ENQUIRY_PHOTOS_PER_DAY or ENQUIRY_PHOTOS_MAX_MB reached: the enquiry goes without photos (§6).
   * `token` (an addition to the contract) stands for the photo not taken: sent with the enquiry,
   * it makes the answer's `photos.notTaken` true, so the form learns it from the enquiry too.
   */
  | { status: "capped"; token: string; name: string }
  /** The visitors' queue in the image worker is full (20): "try again in a minute" (503 + Retry-After). */
  | { status: "busy"; message: string; retryAfterSeconds: number }
  /** The per-address limit (429 + Retry-After). */
  | { status: "rate-limited"; retryAfterSeconds: number };

/** A token works for this long after the upload (issue 21 §2). */
export const PHOTO_TOKEN_LIFETIME_MS = 60 * 60_000;
const BUSY_RETRY_AFTER_SECONDS = 60;
const ONE_DAY_MS = 24 * 60 * 60_000;
const MB = 1024 * 1024;
/** File names are the visitor's: shown back in messages, so kept short and printable. */
const MAX_NAME_LENGTH = 120;

export function photoUnreadableMessage(name: string): string {
  return `Photo ${name} could not be read as an image.`;
}
export function photoBombMessage(name: string): string {
  return `Photo ${name} is too large to process.`;
}

/** The name as shown back: no path, no control characters, at most 120 characters. */
export function displayName(fileName: string): string {
  const base = fileName.split(/[\\/]/).pop() ?? "";
  // eslint-disable-next-line no-control-regex
  const clean = base.replace(/[\u0000-\u001f\u007f]/g, "").trim();
  const cut = clean.length > MAX_NAME_LENGTH ? `${clean.slice(0, MAX_NAME_LENGTH - 1)}…` : clean;
  return cut || "photo";
}

export function hashPhotoToken(token: string): string {
  return createHash("sha256").update(token).digest("hex");
}

/** Where photos wait, on this server's disk, for the image worker: never in storage, deleted after processing. */
export function enquiryPhotoTempDir(env: Pick<Env, "DATA_DIR">): string {
  return path.join(env.DATA_DIR, "tmp", "enquiry-photos");
}

type Photo = { fileName: string; declaredType: string; body: Readable } | { fileName: string; declaredType: string; path: string };

/**
 * Takes one photo (a stream read once, or a file already on disk from the
 * no-JS multipart parser, which this then owns and deletes), bounded by
 * MAX_ENQUIRY_PHOTO_BYTES, processes it in the image worker (behind the
 * owner's uploads) into a thumbnail and a viewing copy under
 * `enquiry-photos/`, and answers a token: random, 1 hour, usable only with
 * an enquiry from the same address. The original bytes are not kept.
 * A stream that is refused before it is read is drained, so a multipart
 * parser carries on.
 */
export async function acceptEnquiryPhoto(services: Services, photo: Photo, clientIp: string): Promise<PhotoAcceptOutcome> {
  const name = displayName(photo.fileName);
  let tempFile = "path" in photo ? photo.path : null;
  try {
    const limit = await services.limits.enquiryPhotos.hit(clientIp);
    if (!limit.allowed) {
      if ("body" in photo) photo.body.resume();
      return { status: "rate-limited", retryAfterSeconds: limit.retryAfterSeconds };
    }
    let head: Buffer;
    if ("body" in photo) {
      const dir = enquiryPhotoTempDir(services.env);
      await mkdir(dir, { recursive: true, mode: 0o700 });
      tempFile = path.join(dir, `${randomUUID()}.upload`);
      const counter = new CountingTransform(MAX_ENQUIRY_PHOTO_BYTES);
      // Piped, not pipelined: a refusal must leave the source readable, to be drained (a multipart parser waits on it).
      const body = photo.body;
      const abort = (error: Error) => counter.destroy(error);
      body.once("error", abort);
      body.pipe(counter);
      try {
        await pipeline(counter, createWriteStream(tempFile, { mode: 0o600 }));
      } catch (error) {
        body.unpipe(counter);
        body.resume();
        if (error instanceof ObjectTooLargeError) {
          return { status: "refused", httpStatus: 413, message: photoTooLargeMessage(name) };
        }
        throw error;
      } finally {
        body.off("error", abort);
      }
      head = counter.head;
    } else {
      if ((await stat(photo.path)).size > MAX_ENQUIRY_PHOTO_BYTES) {
        return { status: "refused", httpStatus: 413, message: photoTooLargeMessage(name) };
      }
      head = await readHead(photo.path);
    }
    // The file's own bytes decide, never its name or declared type.
    const type = sniffImageType(head);
    if (!type || !(ENQUIRY_PHOTO_TYPES as readonly string[]).includes(type)) {
      return { status: "refused", httpStatus: 415, message: unsupportedPhotoMessage(name) };
    }
    return await processPhoto(services, tempFile!, name, clientIp);
  } finally {
    if (tempFile) await rm(tempFile, { force: true }).catch(() => {});
  }
}

async function readHead(file: string): Promise<Buffer> {
  const handle = await open(file, "r");
  try {
    const buffer = Buffer.alloc(HEAD_BYTES);
    const { bytesRead } = await handle.read(buffer, 0, HEAD_BYTES, 0);
    return buffer.subarray(0, bytesRead);
  } finally {
    await handle.close();
  }
}

type Reservation = { id: string; token: string; capped: boolean };

/**
 * A row for the photo, before processing: counted against the daily and
 * storage caps under one lock, so the caps hold across every instance.
 */
async function reserve(services: Services, clientIp: string): Promise<Reservation> {
  const now = services.clock.now();
  const token = randomBytes(32).toString("base64url");
  const id = randomUUID();
  const capped = await services.db.transaction().execute(async (trx) => {
    await lockForTransaction(trx, "enquiry-photo-caps");
    const since = new Date(now.getTime() - ONE_DAY_MS).toISOString();
    const usage = await trx
      .selectFrom("enquiry_photos")
      .select((eb) => [
        eb.fn
          .count("id")
          .filterWhere((w) => w.and([w("created_at", ">", since), w("status", "!=", "capped")]))
          .as("today"),
        eb.fn.sum<number | string | null>(eb("thumb_bytes", "+", eb.ref("view_bytes"))).as("bytes"),
      ])
      .executeTakeFirstOrThrow();
    const capped =
      Number(usage.today) >= services.env.ENQUIRY_PHOTOS_PER_DAY || Number(usage.bytes ?? 0) >= services.env.ENQUIRY_PHOTOS_MAX_MB * MB;
    await trx
      .insertInto("enquiry_photos")
      .values({
        id,
        token_hash: hashPhotoToken(token),
        address_hash: services.addressKey(clientIp),
        status: capped ? "capped" : "processing",
        submission_id: null,
        position: null,
        thumb_key: null,
        view_key: null,
        created_at: now.toISOString(),
        expires_at: new Date(now.getTime() + PHOTO_TOKEN_LIFETIME_MS).toISOString(),
      })
      .execute();
    return capped;
  });
  return { id, token, capped };
}

async function processPhoto(services: Services, file: string, name: string, clientIp: string): Promise<PhotoAcceptOutcome> {
  const reservation = await reserve(services, clientIp);
  if (reservation.capped) {
    services.logger.info("an enquiry photo was not taken: a daily or storage cap is reached");
    return { status: "capped", token: reservation.token, name };
  }
  const keys = enquiryPhotoKeys(reservation.id);
  const forget = () => services.db.deleteFrom("enquiry_photos").where("id", "=", reservation.id).execute();
  let processed;
  try {
    processed = await services.images.processEnquiryPhoto(file, keys);
  } catch (error) {
    await forget();
    // A worker that died between its two writes may have left one behind.
    await Promise.all([services.storage.delete(keys.thumbKey), services.storage.delete(keys.viewKey)]).catch(() => {});
    if (error instanceof ImageWorkerBusyError) {
      return { status: "busy", message: error.message, retryAfterSeconds: BUSY_RETRY_AFTER_SECONDS };
    }
    services.logger.info({ err: error }, "an enquiry photo was refused");
    if (error instanceof ImageRefusedError) return { status: "refused", httpStatus: 413, message: photoBombMessage(name) };
    return { status: "refused", httpStatus: 400, message: photoUnreadableMessage(name) };
  }
  await services.db
    .updateTable("enquiry_photos")
    .set({
      status: "ready",
      thumb_key: keys.thumbKey,
      view_key: keys.viewKey,
      thumb_bytes: processed.thumbBytes,
      view_bytes: processed.viewBytes,
      width: processed.width,
      height: processed.height,
    })
    .where("id", "=", reservation.id)
    .execute();
  return { status: "accepted", token: reservation.token, name };
}
