import { randomUUID } from "node:crypto";
import { lockForTransaction } from "~/db/database.server";
import { MAX_UPLOAD_BYTES } from "~/galleries/gallery";
import { sniffImageType } from "~/images/sniff-image-type";
import type { AppServices } from "~/services.server";
import { IncompletePartError, InvalidPartsError, ObjectTooLargeError } from "~/storage/storage-errors.server";
import type { DeclaredUpload } from "~/storage/storage.server";
import { HEAD_BYTES } from "~/storage/stream-limits.server";
import {
  LET_OTHERS_FINISH_MESSAGE,
  partCountFor,
  partSizeOf,
  resumablePaths,
  type PartTargets,
  type ResumableCompleted,
  type ResumableUpload,
} from "./resumable-protocol";
import { UPLOAD_NOT_AN_IMAGE_MESSAGE, UPLOAD_TOO_LARGE_MESSAGE } from "./upload-declaration";
import { UPLOAD_URL_LIFETIME_MS, incomingKeyFor, originalKeyFor, transition } from "./uploads.server";

/**
 * Uploads sent in parts (decision 0062). Parts land under incoming/; the whole is checked as a single upload is and
 * registered by PUT /api/admin/gallery-images. An unfinished one is deleted a day after it began; at most 30 at once.
 */

/** An upload in parts may take its time on a weak signal; housekeeping forgets it after this. */
export const RESUMABLE_UPLOAD_LIFETIME_MS = 24 * 60 * 60 * 1000;
export const MAX_UNFINISHED_UPLOADS = 30;

/** A refusal the routes answer with their own status (server/api/resumable-upload-routes.ts). */
export class UploadRefusal extends Error {
  override name = "UploadRefusal";
  constructor(
    readonly kind: "not-found" | "ended" | "busy" | "invalid" | "too-large" | "not-an-image" | "wait",
    message: string,
  ) {
    super(message);
  }
}

type Services = Pick<AppServices, "db" | "storage" | "clock" | "logger">;

const NOT_FOUND_MESSAGE = "There is no such upload (it may have been finished or forgotten): start it again";
const ENDED_MESSAGE = "This upload has ended: start it again";

type UploadInParts = {
  id: string;
  status: string;
  storage_key: string;
  content_type: string | null;
  bytes: number;
  part_bytes: number;
  multipart_id: string | null;
};

async function uploadInParts(services: Services, id: string): Promise<UploadInParts> {
  const row = await services.db
    .selectFrom("uploads")
    .select(["id", "status", "storage_key", "content_type", "bytes", "part_bytes", "multipart_id"])
    .where("id", "=", id)
    .executeTakeFirst();
  if (!row || row.part_bytes === null || row.bytes === null) throw new UploadRefusal("not-found", NOT_FOUND_MESSAGE);
  return { ...row, bytes: row.bytes, part_bytes: row.part_bytes };
}

async function partTargetsOf(services: Services, upload: UploadInParts): Promise<PartTargets> {
  const expiresAt = new Date(services.clock.now().getTime() + UPLOAD_URL_LIFETIME_MS);
  const parts: PartTargets["parts"] = [];
  const partCount = partCountFor(upload.bytes, upload.part_bytes);
  for (let partNumber = 1; partNumber <= partCount; partNumber++) {
    const bytes = partSizeOf(upload.bytes, upload.part_bytes, partNumber);
    const presigned = await services.storage.parts.partUrl(
      upload.storage_key,
      upload.multipart_id,
      { partNumber, bytes },
      expiresAt,
    );
    parts.push({ partNumber, bytes, url: presigned ?? resumablePaths.part(upload.id, partNumber) });
  }
  return { parts, expiresAt: expiresAt.toISOString() };
}

/** Begins an upload of the declared file (at most 20 MB, an image type; "wait" past 30 unfinished) and says where its parts go. */
export async function startResumableUpload(services: Services, declared: DeclaredUpload): Promise<ResumableUpload> {
  const now = services.clock.now();
  const id = randomUUID();
  const key = incomingKeyFor(id);
  const partBytes = services.storage.parts.partBytes;
  const upload = await services.db.transaction().execute(async (trx) => {
    await lockForTransaction(trx, "unfinished-uploads");
    const unfinished = await trx
      .selectFrom("uploads")
      .select((eb) => eb.fn.countAll().as("count"))
      .where("status", "in", ["parts", "assembling"])
      .executeTakeFirstOrThrow();
    if (Number(unfinished.count) >= MAX_UNFINISHED_UPLOADS) throw new UploadRefusal("wait", LET_OTHERS_FINISH_MESSAGE);
    const { multipartId } = await services.storage.parts.start(key, { contentType: declared.contentType });
    const row: UploadInParts = {
      id,
      status: "parts",
      storage_key: key,
      content_type: declared.contentType,
      bytes: declared.bytes,
      part_bytes: partBytes,
      multipart_id: multipartId,
    };
    await trx
      .insertInto("uploads")
      .values({
        ...row,
        expires_at: new Date(now.getTime() + RESUMABLE_UPLOAD_LIFETIME_MS).toISOString(),
        created_at: now.toISOString(),
        completed_at: null,
      })
      .execute();
    return row;
  });
  return {
    uploadId: id,
    partBytes,
    partCount: partCountFor(declared.bytes, partBytes),
    ...(await partTargetsOf(services, upload)),
  };
}

/** Fresh URLs for every part of an upload still taking parts. */
export async function partTargetsFor(services: Services, id: string): Promise<PartTargets> {
  const upload = await uploadInParts(services, id);
  if (upload.status !== "parts") throw new UploadRefusal("ended", ENDED_MESSAGE);
  return partTargetsOf(services, upload);
}

/** The disk: one part, exactly its size (so they add up to the declared size); the first must start like an image. */
export async function receivePart(
  services: Services,
  input: { id: string; partNumber: number; contentLength: number; body: NodeJS.ReadableStream },
): Promise<string> {
  const upload = await uploadInParts(services, input.id);
  if (upload.status !== "parts") throw new UploadRefusal("ended", ENDED_MESSAGE);
  const partCount = partCountFor(upload.bytes, upload.part_bytes);
  if (!Number.isInteger(input.partNumber) || input.partNumber < 1 || input.partNumber > partCount) {
    throw new UploadRefusal(
      "invalid",
      `This upload has ${partCount} part(s): the part number must be from 1 to ${partCount}`,
    );
  }
  const bytes = partSizeOf(upload.bytes, upload.part_bytes, input.partNumber);
  if (input.contentLength > bytes) throw new UploadRefusal("too-large", UPLOAD_TOO_LARGE_MESSAGE);
  if (input.contentLength !== bytes) {
    throw new UploadRefusal(
      "invalid",
      `Part ${input.partNumber} of this upload is ${bytes} bytes: send exactly those, with that Content-Length`,
    );
  }
  let written;
  try {
    written = await services.storage.parts.write(upload.storage_key, input.partNumber, input.body, bytes);
  } catch (error) {
    if (error instanceof ObjectTooLargeError) throw new UploadRefusal("too-large", UPLOAD_TOO_LARGE_MESSAGE);
    if (error instanceof IncompletePartError) throw new UploadRefusal("invalid", error.message);
    throw error;
  }
  // Judged by its own bytes as early as possible: a file that is no image goes no further.
  if (input.partNumber === 1 && !sniffImageType(written.head)) {
    await refuse(services, upload, "parts");
    throw new UploadRefusal("not-an-image", UPLOAD_NOT_AN_IMAGE_MESSAGE);
  }
  return written.etag;
}

/** Ends an upload as refused: its parts and whatever was put together are deleted. */
async function refuse(services: Services, upload: UploadInParts, from: "parts" | "assembling") {
  if (!(await transition(services, upload.id, from, "failed"))) return;
  await services.storage.parts.abort(
    upload.storage_key,
    upload.multipart_id,
    partCountFor(upload.bytes, upload.part_bytes),
  );
  await services.storage.delete(upload.storage_key);
}

/**
 * Puts the parts together and checks the whole as a single upload (declared size, an image's first bytes); on the
 * disk it moves to its private key at once, on a bucket at registration. Asked again, it answers the same.
 */
export async function completeResumableUpload(
  services: Services,
  id: string,
  parts: readonly { partNumber: number; etag: string }[],
): Promise<ResumableCompleted> {
  const { storage } = services;
  const upload = await uploadInParts(services, id);
  const completed = { imageURL: storage.parts.imageUrl(id) };
  if (upload.status === "completed") return completed;
  if (upload.status === "assembling")
    throw new UploadRefusal("busy", "This upload is being put together: ask again in a moment");
  if (upload.status !== "parts") throw new UploadRefusal("ended", ENDED_MESSAGE);

  const partCount = partCountFor(upload.bytes, upload.part_bytes);
  const etags = new Map(parts.map((part) => [part.partNumber, part.etag]));
  const listed: { partNumber: number; etag: string }[] = [];
  for (let partNumber = 1; partNumber <= partCount; partNumber++) {
    const etag = etags.get(partNumber);
    if (!etag)
      throw new UploadRefusal("invalid", `Part ${partNumber} is missing: send it, then list every part with its ETag`);
    listed.push({ partNumber, etag });
  }
  if (etags.size !== partCount || parts.length !== partCount) {
    throw new UploadRefusal(
      "invalid",
      `This upload has ${partCount} part(s): list each once, numbered 1 to ${partCount}`,
    );
  }
  if (!(await transition(services, id, "parts", "assembling"))) return completeResumableUpload(services, id, parts);

  // From here the upload is this request's alone.
  try {
    await storage.parts.complete(upload.storage_key, upload.multipart_id, listed);
  } catch (error) {
    // Nothing is lost: the parts are kept, and the owner's page can send the ones asked for again.
    await transition(services, id, "assembling", "parts");
    if (error instanceof InvalidPartsError) throw new UploadRefusal("invalid", error.message);
    throw error;
  }
  const whole = await storage.stat(upload.storage_key);
  if (!whole || whole.bytes !== upload.bytes || whole.bytes > MAX_UPLOAD_BYTES) {
    services.logger.warn(
      { uploadId: id, bytes: whole?.bytes, declared: upload.bytes },
      "parts put together are not the declared size",
    );
    await refuse(services, upload, "assembling");
    throw new UploadRefusal(
      whole && whole.bytes > MAX_UPLOAD_BYTES ? "too-large" : "invalid",
      `The parts do not add up to the declared ${upload.bytes} bytes`,
    );
  }
  const head = whole.bytes > 0 ? await storage.readHead(upload.storage_key, HEAD_BYTES) : null;
  const type = head ? sniffImageType(head) : null;
  if (!type) {
    await refuse(services, upload, "assembling");
    throw new UploadRefusal("not-an-image", UPLOAD_NOT_AN_IMAGE_MESSAGE);
  }
  let storageKey = upload.storage_key;
  if (storage.uploadMode === "via-server") {
    storageKey = originalKeyFor(id);
    await storage.move(upload.storage_key, storageKey);
  }
  await transition(services, id, "assembling", "completed", {
    storage_key: storageKey,
    content_type: type,
    bytes: whole.bytes,
    completed_at: services.clock.now().toISOString(),
  });
  return completed;
}
