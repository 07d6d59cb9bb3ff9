import { randomUUID } from "node:crypto";
import { nowIso } from "~/db/database.server";
import { systemClock, type Clock } from "~/lib/clock";
import type { AppServices } from "~/services.server";

/** Spec/issue: signed upload URLs live 15 minutes and work once. */
export const UPLOAD_URL_LIFETIME_MS = 15 * 60 * 1000;

/**
 * An upload's life: pending (URL issued) → receiving (a PUT is streaming) →
 * completed (stored and recognised as an image) → used (turned into a
 * gallery image). Every step is a conditional update, so a URL or a finished
 * upload can be used once even when two requests race. Housekeeping moves a
 * stale upload to "pruning" the same way before it deletes its file.
 */
export type UploadStatus = "pending" | "receiving" | "completed" | "used" | "failed" | "pruning";

type Services = Pick<AppServices, "db" | "storage">;

export async function issueUploadTarget(services: Services, now = new Date()): Promise<{ uploadURL: string }> {
  const id = randomUUID();
  const expiresAt = new Date(now.getTime() + UPLOAD_URL_LIFETIME_MS);
  await services.db
    .insertInto("uploads")
    .values({
      id,
      status: "pending",
      storage_key: `originals/${id}`,
      content_type: null,
      bytes: null,
      expires_at: expiresAt.toISOString(),
      created_at: now.toISOString(),
      completed_at: null,
    })
    .execute();
  return services.storage.createUploadTarget(id, expiresAt);
}

async function transition(services: Services, id: string, from: UploadStatus, to: UploadStatus, extra = {}) {
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
  return transition(services, id, "receiving", "completed", { content_type: contentType, bytes, completed_at: nowIso() });
}

export function markFailed(services: Services, id: string) {
  return transition(services, id, "receiving", "failed");
}

/** Claims a completed upload to become a gallery image; its storage key, or null. */
export async function claimCompletedUpload(services: Services, id: string): Promise<string | null> {
  const upload = await services.db.selectFrom("uploads").select(["storage_key", "status"]).where("id", "=", id).executeTakeFirst();
  if (!upload || upload.status !== "completed") return null;
  return (await transition(services, id, "completed", "used")) ? upload.storage_key : null;
}

/**
 * Forgets URLs never used and deletes originals uploaded but never added to a
 * gallery. Each upload is claimed with a conditional update first, so one
 * that a request moved on meanwhile (the owner adding it to a gallery just
 * then) is left alone; an upload left in "pruning" by a crash is finished on
 * the next run.
 */
export async function pruneStaleUploads(services: Services, clock: Clock = systemClock): Promise<number> {
  const now = clock.now();
  const dayAgo = new Date(now.getTime() - 24 * 60 * 60 * 1000).toISOString();
  const stale = await services.db
    .selectFrom("uploads")
    .select(["id", "storage_key", "status"])
    .where((eb) =>
      eb.or([
        eb.and([eb("status", "in", ["pending", "failed"]), eb("expires_at", "<", now.toISOString())]),
        eb.and([eb("status", "in", ["completed", "receiving"]), eb("created_at", "<", dayAgo)]),
        eb("status", "=", "pruning"),
      ]),
    )
    .execute();
  let pruned = 0;
  for (const upload of stale) {
    const status = upload.status as UploadStatus;
    if (status !== "pruning" && !(await transition(services, upload.id, status, "pruning"))) continue;
    await services.storage.delete(upload.storage_key);
    await services.db.deleteFrom("uploads").where("id", "=", upload.id).where("status", "=", "pruning").execute();
    pruned += 1;
  }
  return pruned;
}
