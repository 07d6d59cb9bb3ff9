import type { Readable } from "node:stream";
import type { Kysely, Transaction } from "kysely";
import { lockForTransaction } from "~/db/database.server";
import type { DatabaseSchema } from "~/db/schema";
import { deleteObjectsUnlessBackupRunning } from "~/storage/deferred-deletions.server";
import { systemClock, type Clock } from "~/lib/clock";
import type { AppServices } from "~/services.server";
import type { EnquiryPhotoSize, EnquiryPhotoSummary, PhotoOutcome } from "./enquiry-photos";
import { MAX_ENQUIRY_PHOTOS } from "./enquiry-photos";
import { hashPhotoToken } from "./enquiry-photo-accept.server";
import { enquiryPhotoKeys } from "./enquiry-photo-keys.server";

/** Photos visitors attach to enquiries (decision 0056): tied, read and deleted here. */

const ONE_DAY_MS = 24 * 60 * 60_000;
const MB = 1024 * 1024;

/** One address (an IPv6 client: its /56) attaches at most this many photos a day; the rest of the day's allowance stays for others. */
export const ENQUIRY_PHOTOS_PER_ADDRESS_PER_DAY = 10;

/** `missing`: sent but not with the enquiry; `leftOutKeys`: files let go, deleted once the transaction commits. */
export type AttachedPhotos = PhotoOutcome & {
  missing: number;
  added: number;
  firstAdded: number;
  leftOutKeys: string[];
};

/**
 * In submitEnquiry's transaction, up to 5 in all. A token that cannot attach is counted, never an error: the
 * enquiry must go through. The daily and storage caps count photos sent, here, under one lock across instances
 * (photos never sent use none); one past a cap is deleted and reported as `notTaken`.
 */
export async function attachEnquiryPhotos(
  trx: Transaction<DatabaseSchema>,
  services: Pick<AppServices, "clock" | "addressKey" | "env">,
  submissionId: string,
  tokens: readonly string[],
  clientIp: string,
): Promise<AttachedPhotos> {
  const hashes = [...new Set(tokens.filter((token) => typeof token === "string" && token.length <= 200))]
    .slice(0, MAX_ENQUIRY_PHOTOS)
    .map(hashPhotoToken);
  const outcome: AttachedPhotos = {
    ...{ attached: 0, notAttached: 0, notTaken: false },
    ...{ missing: 0, added: 0, firstAdded: 0, leftOutKeys: [] },
  };
  if (hashes.length === 0) return outcome;
  const now = services.clock.now();
  const addressHash = services.addressKey(clientIp);
  // Before reading the photos: two enquiries sending one token, or racing for the caps, take turns.
  await lockForTransaction(trx, "enquiry-photo-caps");
  const rows = await trx
    .selectFrom("enquiry_photos")
    .select(["id", "token_hash", "submission_id", "thumb_key", "view_key", "thumb_bytes", "view_bytes"])
    .where("token_hash", "in", hashes)
    .where((eb) =>
      eb.or([
        eb("submission_id", "=", submissionId),
        eb.and([eb("submission_id", "is", null), eb("status", "=", "ready"), eb("expires_at", ">", now.toISOString())]),
      ]),
    )
    .execute();
  const byHash = new Map(rows.map((row) => [row.token_hash, row]));
  const has = await trx
    .selectFrom("enquiry_photos")
    .select((eb) => eb.fn.max("position").as("last"))
    .where("submission_id", "=", submissionId)
    .executeTakeFirst();
  let position = Number(has?.last ?? 0);
  outcome.firstAdded = position + 1;
  const usage = await sentPhotoUsage(trx, new Date(now.getTime() - ONE_DAY_MS).toISOString(), addressHash);
  // A photo it cannot take is let go at once, row now and files after the commit: it would only wait.
  const leaveOut = async (row: (typeof rows)[number]) => {
    await trx.deleteFrom("enquiry_photos").where("id", "=", row.id).execute();
    outcome.leftOutKeys.push(...[row.thumb_key, row.view_key].filter((key): key is string => key !== null));
  };
  for (const hash of hashes) {
    const row = byHash.get(hash);
    if (row?.submission_id === submissionId) {
      // The enquiry has it already: the same tokens sent again.
      outcome.attached += 1;
      continue;
    }
    if (!row || position >= MAX_ENQUIRY_PHOTOS) {
      outcome.notAttached += 1;
      if (row) await leaveOut(row);
      continue;
    }
    if (
      usage.sentToday >= services.env.ENQUIRY_PHOTOS_PER_DAY ||
      usage.fromAddressToday >= ENQUIRY_PHOTOS_PER_ADDRESS_PER_DAY ||
      usage.keptBytes >= services.env.ENQUIRY_PHOTOS_MAX_MB * MB
    ) {
      outcome.notTaken = true;
      await leaveOut(row);
      continue;
    }
    position += 1;
    outcome.attached += 1;
    outcome.added += 1;
    usage.sentToday += 1;
    usage.fromAddressToday += 1;
    usage.keptBytes += Number(row.thumb_bytes) + Number(row.view_bytes);
    // From now on the row keeps the sending address: the per-address allowance counts what it attached.
    await trx
      .updateTable("enquiry_photos")
      .set({ submission_id: submissionId, position, address_hash: addressHash })
      .where("id", "=", row.id)
      .execute();
  }
  outcome.missing = hashes.length - outcome.attached;
  return outcome;
}

/** Photos sent with enquiries since `since` (by the enquiry's time), from everyone and from one address, and the bytes every sent photo keeps. */
async function sentPhotoUsage(
  trx: Transaction<DatabaseSchema>,
  since: string,
  addressHash: string,
): Promise<{ sentToday: number; fromAddressToday: number; keptBytes: number }> {
  const today = await trx
    .selectFrom("enquiry_photos as p")
    .innerJoin("contact_submissions as s", "s.id", "p.submission_id")
    .select((eb) => [
      eb.fn.countAll<number | string>().as("count"),
      eb.fn.count<number | string>("p.id").filterWhere("p.address_hash", "=", addressHash).as("fromAddress"),
    ])
    .where("s.submitted_at", ">", since)
    .executeTakeFirstOrThrow();
  const kept = await trx
    .selectFrom("enquiry_photos")
    .select((eb) => eb.fn.sum<number | string | null>(eb("thumb_bytes", "+", eb.ref("view_bytes"))).as("bytes"))
    .where("submission_id", "is not", null)
    .executeTakeFirstOrThrow();
  return {
    sentToday: Number(today.count),
    fromAddressToday: Number(today.fromAddress),
    keptBytes: Number(kept.bytes ?? 0),
  };
}

/** For a refused post: their tokens will never be sent, so they stop counting as waiting at once. */
export async function forgetUnsentPhotos(
  services: Pick<AppServices, "db" | "storage" | "logger" | "clock">,
  tokens: readonly string[],
): Promise<void> {
  if (tokens.length === 0) return;
  const keys = await services.db.transaction().execute(async (trx) => {
    const rows = await trx
      .selectFrom("enquiry_photos")
      .select(["id"])
      .where("token_hash", "in", tokens.map(hashPhotoToken))
      .where("submission_id", "is", null)
      .execute();
    if (rows.length === 0) return [];
    await trx
      .deleteFrom("enquiry_photos")
      .where(
        "id",
        "in",
        rows.map((row) => row.id),
      )
      .execute();
    return rows.flatMap((row) => Object.values(enquiryPhotoKeys(row.id)));
  });
  await deleteEnquiryPhotoObjects(services, keys);
}

/** The photos of many enquiries at once, in order (one query: the inbox page). */
export async function enquiryPhotosOf(
  { db }: Pick<AppServices, "db">,
  submissionIds: readonly string[],
): Promise<Map<string, EnquiryPhotoSummary[]>> {
  const photos = new Map<string, EnquiryPhotoSummary[]>();
  if (submissionIds.length === 0) return photos;
  const rows = await db
    .selectFrom("enquiry_photos")
    .select(["submission_id", "position", "width", "height"])
    .where("submission_id", "in", [...submissionIds])
    .where("status", "=", "ready")
    .orderBy("submission_id")
    .orderBy("position")
    .execute();
  for (const row of rows) {
    const list = photos.get(row.submission_id!) ?? [];
    list.push({ n: Number(row.position), width: Number(row.width), height: Number(row.height) });
    photos.set(row.submission_id!, list);
  }
  return photos;
}

/** One kept copy, streamed from storage (JPEG); null when there is no such photo. */
export async function openEnquiryPhoto(
  services: Pick<AppServices, "db" | "storage">,
  submissionId: string,
  n: number,
  size: EnquiryPhotoSize,
): Promise<{ body: Readable; contentType: "image/jpeg"; bytes: number } | null> {
  if (!Number.isInteger(n) || n < 1 || n > MAX_ENQUIRY_PHOTOS) return null;
  const row = await services.db
    .selectFrom("enquiry_photos")
    .select(["thumb_key", "view_key"])
    .where("submission_id", "=", submissionId)
    .where("position", "=", n)
    .where("status", "=", "ready")
    .executeTakeFirst();
  const key = size === "thumb" ? row?.thumb_key : row?.view_key;
  if (!key) return null;
  const object = await services.storage.read(key);
  return object ? { body: object.stream, contentType: "image/jpeg", bytes: object.bytes } : null;
}

/** Deletes the enquiry's photo rows inside the caller's transaction; returns their storage keys, to delete once it commits. */
export async function deleteEnquiryPhotoRows(trx: Kysely<DatabaseSchema>, submissionId: string): Promise<string[]> {
  const rows = await trx
    .selectFrom("enquiry_photos")
    .select(["thumb_key", "view_key"])
    .where("submission_id", "=", submissionId)
    .execute();
  await trx.deleteFrom("enquiry_photos").where("submission_id", "=", submissionId).execute();
  return rows.flatMap((row) => [row.thumb_key, row.view_key]).filter((key): key is string => key !== null);
}

/** While a backup runs, or when a delete fails, the keys wait in deferred_deletions. */
export async function deleteEnquiryPhotoObjects(
  services: Pick<AppServices, "db" | "storage" | "logger"> & { clock?: Clock },
  keys: readonly string[],
): Promise<void> {
  await deleteObjectsUnlessBackupRunning(services, keys, services.clock ?? systemClock);
}
