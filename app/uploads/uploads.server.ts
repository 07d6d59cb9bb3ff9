import { randomUUID } from "node:crypto";
import { nowIso } from "~/db/database.server";
import { systemClock, type Clock } from "~/lib/clock";
import { MAX_UPLOAD_BYTES } from "~/galleries/gallery";
import { sniffImageType } from "~/images/sniff-image-type";
import type { AppServices } from "~/services.server";
import type { DeclaredUpload } from "~/storage/storage.server";
import { INCOMING_PREFIX } from "~/storage/storage-keys.server";
import { HEAD_BYTES } from "~/storage/stream-limits.server";

/** Spec/issue: signed upload URLs live 15 minutes and work once. */
export const UPLOAD_URL_LIFETIME_MS = 15 * 60 * 1000;

/**
 * Via this server: pending → receiving → completed → registering → used. Straight to the bucket: pending →
 * registering → used. In parts: parts → assembling → completed → … Refused: failed; housekeeping: pruning.
 * Every step is a conditional update, so a URL or an upload is used once even when requests race.
 */
export type UploadStatus =
  "pending" | "receiving" | "parts" | "assembling" | "completed" | "registering" | "used" | "failed" | "pruning";

type Services = Pick<AppServices, "db" | "storage">;

/** A signed URL for one upload; with `declared`, only a PUT of exactly that size and type fits. */
export async function issueUploadTarget(
  services: Services,
  now = new Date(),
  declared?: DeclaredUpload,
): Promise<{ uploadURL: string }> {
  const id = randomUUID();
  const expiresAt = new Date(now.getTime() + UPLOAD_URL_LIFETIME_MS);
  const target = await services.storage.createUploadTarget(id, expiresAt, declared);
  await services.db
    .insertInto("uploads")
    .values({
      id,
      status: "pending",
      storage_key: target.key,
      content_type: null,
      bytes: null,
      expires_at: expiresAt.toISOString(),
      created_at: now.toISOString(),
      completed_at: null,
    })
    .execute();
  return { uploadURL: target.uploadURL };
}

/** Moves an upload from one status to the next, only if it is still in `from`; whether it moved. */
export async function transition(
  services: Pick<AppServices, "db">,
  id: string,
  from: UploadStatus,
  to: UploadStatus,
  extra: { content_type?: string; bytes?: number; completed_at?: string; storage_key?: string } = {},
) {
  const result = await services.db
    .updateTable("uploads")
    .set({ status: to, ...extra })
    .where("id", "=", id)
    .where("status", "=", from)
    .executeTakeFirst();
  return Number(result.numUpdatedRows) === 1;
}

/** Claims a pending upload for one PUT; false when unknown or already used. */
export function startReceiving(services: Services, id: string) {
  return transition(services, id, "pending", "receiving");
}

export function markReceived(services: Services, id: string, contentType: string, bytes: number) {
  return transition(services, id, "receiving", "completed", {
    content_type: contentType,
    bytes,
    completed_at: nowIso(),
  });
}

export function markFailed(services: Services, id: string, from: UploadStatus = "receiving") {
  return transition(services, id, from, "failed");
}

/** Claims a completed upload (local disk) to become a gallery image; its storage key, or null. */
export async function claimCompletedUpload(services: Services, id: string): Promise<string | null> {
  const upload = await services.db
    .selectFrom("uploads")
    .select(["storage_key", "status"])
    .where("id", "=", id)
    .executeTakeFirst();
  if (!upload || upload.status !== "completed") return null;
  return (await transition(services, id, "completed", "registering")) ? upload.storage_key : null;
}

/** The upload became a gallery image. */
export function markRegistered(services: Pick<AppServices, "db">, id: string) {
  return transition(services, id, "registering", "used");
}

/** Registering failed after the claim (the image could not be processed, say). */
export function markRegistrationFailed(services: Pick<AppServices, "db">, id: string) {
  return transition(services, id, "registering", "failed");
}

/** The private key an upload's original is kept at once it is registered. No URL can write there. */
export function originalKeyFor(uploadId: string): string {
  return `originals/${uploadId}`;
}

/** Where an upload's bytes land before they are checked (a bucket's single PUT, and parts on either store). */
export function incomingKeyFor(uploadId: string): string {
  return `${INCOMING_PREFIX}${uploadId}`;
}

export type DirectUploadClaim =
  | { status: "claimed"; originalKey: string; contentType: string; bytes: number }
  /** Not issued here, not uploaded (yet), or already used: the ticket is left as it was. */
  | { status: "unavailable" }
  | { status: "too-large" }
  | { status: "not-an-image" };

/** The image type of an object's first bytes, or null (missing, empty, or not a supported image). */
async function sniffStored(storage: Services["storage"], key: string, bytes: number): Promise<string | null> {
  // An empty object has no first bytes (S3 answers a ranged GET of one with 416).
  const head = bytes > 0 ? await storage.readHead(key, HEAD_BYTES) : null;
  return head ? sniffImageType(head) : null;
}

/**
 * Claims an upload that went straight to the bucket: size by HEAD, type by its bytes, then moved to its private key
 * as that type and checked again there (a reused presigned URL cannot replace it). A refused object is deleted.
 */
export async function claimDirectUpload(services: Services, id: string, now = new Date()): Promise<DirectUploadClaim> {
  const { db, storage } = services;
  const upload = await db
    .selectFrom("uploads")
    .select(["storage_key", "status"])
    .where("id", "=", id)
    .executeTakeFirst();
  // Pending: a single PUT that may have landed. Completed: parts put together in incoming/ (resumable-uploads.server.ts).
  if (!upload || (upload.status !== "pending" && upload.status !== "completed")) return { status: "unavailable" };
  const uploaded = await storage.stat(upload.storage_key);
  if (!uploaded) return { status: "unavailable" };
  if (!(await transition(services, id, upload.status, "registering"))) return { status: "unavailable" };

  // From here the upload is this request's alone.
  const refuse = async (keys: string[], status: "too-large" | "not-an-image") => {
    for (const key of keys) await storage.delete(key);
    await markRegistrationFailed(services, id);
    return { status };
  };
  if (uploaded.bytes > MAX_UPLOAD_BYTES) return refuse([upload.storage_key], "too-large");
  const claimedType = await sniffStored(storage, upload.storage_key, uploaded.bytes);
  if (!claimedType) return refuse([upload.storage_key], "not-an-image");
  const originalKey = originalKeyFor(id);
  await storage.move(upload.storage_key, originalKey, { contentType: claimedType });
  const original = await storage.stat(originalKey);
  if (!original || original.bytes > MAX_UPLOAD_BYTES) return refuse([originalKey], "too-large");
  // Replaced between the first look and the move: judged again, and it must still be what it is stored as.
  const contentType = await sniffStored(storage, originalKey, original.bytes);
  if (contentType !== claimedType) return refuse([originalKey], "not-an-image");
  await db
    .updateTable("uploads")
    .set({ content_type: contentType, bytes: original.bytes, completed_at: now.toISOString() })
    .where("id", "=", id)
    .execute();
  return { status: "claimed", originalKey, contentType, bytes: original.bytes };
}

/** A PUT that started before its URL expired may still be arriving for a while after. */
const EXPIRY_GRACE_MS = 60 * 60 * 1000;

/**
 * Housekeeping: forgets unused and expired tickets, deletes originals never added to a gallery (never one a gallery
 * names). Each upload is claimed first ("pruning"), so one a request moved on meanwhile is left alone.
 */
export async function pruneStaleUploads(services: Services, clock: Clock = systemClock): Promise<number> {
  const { db, storage } = services;
  const now = clock.now();
  const expiredBefore = new Date(now.getTime() - EXPIRY_GRACE_MS).toISOString();
  const dayAgo = new Date(now.getTime() - 24 * 60 * 60 * 1000).toISOString();
  const stale = await db
    .selectFrom("uploads")
    .select(["id", "storage_key", "status", "bytes", "part_bytes", "multipart_id"])
    .where((eb) =>
      eb.or([
        eb.and([eb("status", "in", ["pending", "failed", "used"]), eb("expires_at", "<", expiredBefore)]),
        // Unfinished uploads in parts: their lifetime (RESUMABLE_UPLOAD_LIFETIME_MS) is their expiry.
        eb.and([eb("status", "in", ["parts", "assembling"]), eb("expires_at", "<", now.toISOString())]),
        eb.and([eb("status", "in", ["completed", "receiving", "registering"]), eb("created_at", "<", dayAgo)]),
        eb("status", "=", "pruning"),
      ]),
    )
    .execute();
  let pruned = 0;
  for (const upload of stale) {
    const status = upload.status as UploadStatus;
    if (status !== "pruning" && !(await transition(services, upload.id, status, "pruning"))) continue;
    if (upload.part_bytes) {
      // Sent in parts: the parts go too (a bucket aborts its multipart upload where it can; its
      // lifecycle rule removes the rest). Idempotent, so a late part of a finished upload goes as well.
      const partCount = Math.max(1, Math.ceil(Number(upload.bytes ?? 0) / upload.part_bytes));
      await storage.parts.abort(incomingKeyFor(upload.id), upload.multipart_id, partCount);
    }
    const keys = [...new Set([upload.storage_key, incomingKeyFor(upload.id), originalKeyFor(upload.id)])];
    const referenced = await db
      .selectFrom("gallery_images")
      .select("original_key")
      .where("original_key", "in", keys)
      .execute();
    const inUse = new Set(referenced.map((row) => row.original_key));
    for (const key of keys) if (!inUse.has(key)) await storage.delete(key);
    await db.deleteFrom("uploads").where("id", "=", upload.id).where("status", "=", "pruning").execute();
    pruned += 1;
  }
  return pruned;
}
