import { createHash, randomBytes, randomUUID } from "node:crypto";
import { open, rm, stat } from "node:fs/promises";
import path from "node:path";
import { lockForTransaction } from "~/db/database.server";
import type { Env } from "~/env.server";
import { ImageRefusedError } from "~/images/image-limits";
import { ImageWorkerBusyError } from "~/images/image-worker.server";
import { sniffImageType } from "~/images/sniff-image-type";
import type { AppServices } from "~/services.server";
import { deleteObjectsUnlessBackupRunning } from "~/storage/deferred-deletions.server";
import { HEAD_BYTES } from "~/storage/stream-limits.server";
import {
  ENQUIRY_PHOTO_TYPES,
  MAX_ENQUIRY_PHOTO_BYTES,
  photoTooLargeMessage,
  unsupportedPhotoMessage,
  type EnquiryPhotoAccepted,
} from "./enquiry-photos";
import { enquiryPhotoKeys } from "./enquiry-photo-keys.server";

type Services = Pick<AppServices, "db" | "storage" | "images" | "clock" | "logger" | "env" | "addressKey" | "limits">;

/** The outcome of one photo sent by a visitor (JS: POST /api/enquiry-photos; no-JS: one file part). */
export type PhotoAcceptOutcome =
  | ({ status: "accepted" } & EnquiryPhotoAccepted)
  /** Too large, not one of the four types, unreadable, a bomb: `message` names the file and is shown as it is (400/413/415). */
  | { status: "refused"; httpStatus: 400 | 413 | 415; message: string }
  /** The visitors' queue in the image worker is full (20): "try again in a minute" (503 + Retry-After). */
  | { status: "busy"; message: string; retryAfterSeconds: number }
  /** The per-address limit (429 + Retry-After). */
  | { status: "rate-limited"; retryAfterSeconds: number };

/** A token works for this long after the upload, from any address: a phone changes network, a message takes long. */
export const PHOTO_TOKEN_LIFETIME_MS = 24 * 60 * 60_000;
const BUSY_RETRY_AFTER_SECONDS = 60;
/** Photos uploaded but not yet sent with an enquiry, from one address (an IPv6 client: its /56). */
export const MAX_WAITING_PHOTOS_PER_ADDRESS = 10;
/** … and from everyone together. */
export const MAX_WAITING_PHOTOS = 200;
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

/** A photo on this server's disk (the multipart reader's temporary file), which acceptEnquiryPhoto then owns and deletes. */
export type PhotoOnDisk = { fileName: string; declaredType: string; path: string };

/** The token is random, the browser's own secret, usable from any address for 24 hours; no original is kept. */
export async function acceptEnquiryPhoto(
  services: Services,
  photo: PhotoOnDisk,
  clientIp: string,
): Promise<PhotoAcceptOutcome> {
  const name = displayName(photo.fileName);
  try {
    const limit = await services.limits.enquiryPhotos.hit(clientIp);
    if (!limit.allowed) return { status: "rate-limited", retryAfterSeconds: limit.retryAfterSeconds };
    if ((await stat(photo.path)).size > MAX_ENQUIRY_PHOTO_BYTES) {
      return { status: "refused", httpStatus: 413, message: photoTooLargeMessage(name) };
    }
    // The file's own bytes decide, never its name or declared type.
    const type = sniffImageType(await readHead(photo.path));
    if (!type || !(ENQUIRY_PHOTO_TYPES as readonly string[]).includes(type)) {
      return { status: "refused", httpStatus: 415, message: unsupportedPhotoMessage(name) };
    }
    return await processPhoto(services, photo.path, name, clientIp);
  } finally {
    await rm(photo.path, { force: true }).catch(() => {});
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

/**
 * Waiting photos are bounded per address and overall, under one lock across instances. Past a bound the new
 * photo displaces its own address's oldest, or the biggest holder's: a flood never closes the form to others.
 * The daily and storage caps are checked at attach time (attachEnquiryPhotos).
 */
async function reserve(services: Services, clientIp: string): Promise<{ id: string; token: string }> {
  const now = services.clock.now();
  const addressHash = services.addressKey(clientIp);
  const { reservation, displaced } = await services.db.transaction().execute(async (trx) => {
    await lockForTransaction(trx, "enquiry-photos-waiting");
    const waitingPhotos = () =>
      trx.selectFrom("enquiry_photos").where("submission_id", "is", null).where("expires_at", ">", now.toISOString());
    const waiting = await waitingPhotos()
      .select((eb) => [
        eb.fn.countAll<number | string>().as("total"),
        eb.fn.count<number | string>("id").filterWhere("address_hash", "=", addressHash).as("fromAddress"),
      ])
      .executeTakeFirstOrThrow();
    let holder: string | undefined;
    if (Number(waiting.fromAddress) >= MAX_WAITING_PHOTOS_PER_ADDRESS) holder = addressHash;
    else if (Number(waiting.total) >= MAX_WAITING_PHOTOS) {
      const most = await waitingPhotos()
        .select("address_hash")
        .groupBy("address_hash")
        .orderBy((eb) => eb.fn.countAll(), "desc")
        .orderBy((eb) => eb.fn.min("created_at"))
        .limit(1)
        .executeTakeFirst();
      holder = most?.address_hash;
    }
    const oldest = holder
      ? await waitingPhotos()
          .select("id")
          .where("address_hash", "=", holder)
          .orderBy("created_at")
          .orderBy("id")
          .limit(1)
          .executeTakeFirst()
      : undefined;
    if (oldest) await trx.deleteFrom("enquiry_photos").where("id", "=", oldest.id).execute();
    const token = randomBytes(32).toString("base64url");
    const id = randomUUID();
    await trx
      .insertInto("enquiry_photos")
      .values({
        id,
        token_hash: hashPhotoToken(token),
        address_hash: addressHash,
        status: "processing",
        submission_id: null,
        position: null,
        thumb_key: null,
        view_key: null,
        created_at: now.toISOString(),
        expires_at: new Date(now.getTime() + PHOTO_TOKEN_LIFETIME_MS).toISOString(),
      })
      .execute();
    return { reservation: { id, token }, displaced: oldest?.id };
  });
  if (displaced) {
    services.logger.info("a waiting enquiry photo gave its place to a new one");
    await deletePhotoFiles(services, displaced);
  }
  return reservation;
}

const deletePhotoFiles = (services: Services, id: string) =>
  deleteObjectsUnlessBackupRunning(services, Object.values(enquiryPhotoKeys(id)), services.clock);

async function processPhoto(
  services: Services,
  file: string,
  name: string,
  clientIp: string,
): Promise<PhotoAcceptOutcome> {
  const reservation = await reserve(services, clientIp);
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
    if (error instanceof ImageRefusedError)
      return { status: "refused", httpStatus: 413, message: photoBombMessage(name) };
    return { status: "refused", httpStatus: 400, message: photoUnreadableMessage(name) };
  }
  const ready = await services.db
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
    .executeTakeFirst();
  // Displaced while it was processed: its files go too, and its token will attach nothing.
  if (Number(ready.numUpdatedRows) === 0) await deletePhotoFiles(services, reservation.id);
  return { status: "accepted", token: reservation.token, name };
}
