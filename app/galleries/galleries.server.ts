import { randomUUID } from "node:crypto";
import { deleteObjectsUnlessBackupRunning } from "~/storage/deferred-deletions.server";
import { lockForTransaction, nowIso, type Database } from "~/db/database.server";
import type { GalleryImageRow } from "~/db/schema";
import { MEDIA_URL_PREFIX, type ProcessedImage } from "~/images/processed-image";
import type { AppServices } from "~/services.server";
import type { ImageVariants } from "~/images/processed-image";
import type { GalleryImage, GalleryResult, GalleryType } from "./gallery";
import { galleryImageKeys } from "./gallery-image-keys";

/** Services whose env may set MEDIA_BASE_URL (then image URLs point there instead of /media/). */
type MediaEnv = Partial<Pick<AppServices, "env">>;

/** '/media/<file>' → '<MEDIA_BASE_URL>/<file>' when set: browsers then fetch variants from the bucket or CDN. */
export function publicMediaUrl(storedPath: string, mediaBaseUrl: string | undefined): string {
  return mediaBaseUrl && storedPath.startsWith(MEDIA_URL_PREFIX)
    ? `${mediaBaseUrl}/${storedPath.slice(MEDIA_URL_PREFIX.length)}`
    : storedPath;
}

/** Every change to a gallery's membership or order holds this lock until its transaction ends. */
function lockGallery(trx: Database, galleryType: string) {
  return lockForTransaction(trx, `gallery:${galleryType}`);
}

export function toGalleryImage(row: GalleryImageRow, mediaBaseUrl?: string): GalleryImage {
  const variants = JSON.parse(row.variants) as ImageVariants;
  const at = <T extends { path: string }>(variant: T): T => ({
    ...variant,
    path: publicMediaUrl(variant.path, mediaBaseUrl),
  });
  return {
    id: row.id,
    imagePath: publicMediaUrl(row.image_path, mediaBaseUrl),
    caption: row.caption,
    galleryType: row.gallery_type as GalleryType,
    sortOrder: row.sort_order,
    width: row.width,
    height: row.height,
    placeholder: row.placeholder,
    variants: mediaBaseUrl
      ? { avif: variants.avif.map(at), webp: variants.webp.map(at), jpeg: at(variants.jpeg) }
      : variants,
  };
}

/** A gallery's images in display order. */
export async function listGalleryImages(
  { db, env }: Pick<AppServices, "db"> & MediaEnv,
  galleryType: GalleryType,
  options: { limit?: number } = {},
): Promise<GalleryImage[]> {
  let query = db
    .selectFrom("gallery_images")
    .selectAll()
    .where("gallery_type", "=", galleryType)
    .orderBy("sort_order", "asc")
    .orderBy("created_at", "asc");
  if (options.limit) query = query.limit(options.limit);
  const rows = await query.execute();
  return rows.map((row) => toGalleryImage(row, env?.MEDIA_BASE_URL));
}

/** A failed read becomes the error state, never a crashed page; `onFallback` hears of it. */
export async function loadGallery(
  services: Pick<AppServices, "db" | "logger"> & MediaEnv,
  galleryType: GalleryType,
  options: { limit?: number; onFallback?: () => void } = {},
): Promise<GalleryResult> {
  try {
    return { status: "ok", images: await listGalleryImages(services, galleryType, { limit: options.limit }) };
  } catch (error) {
    services.logger.error({ err: error, galleryType }, "reading a gallery failed");
    options.onFallback?.();
    return { status: "error" };
  }
}

export type NewGalleryImageInput = {
  galleryType: GalleryType;
  caption: string;
  processed: ProcessedImage;
  originalKey: string | null;
};

/** Taken under the gallery's lock, so sort orders stay 0..n-1 when uploads (or instances) race. */
export async function createGalleryImage(
  services: Pick<AppServices, "db" | "publicContentChanged"> & MediaEnv,
  input: NewGalleryImageInput,
): Promise<GalleryImage> {
  const now = nowIso();
  const row: GalleryImageRow = {
    id: randomUUID(),
    gallery_type: input.galleryType,
    caption: input.caption,
    sort_order: 0,
    image_path: input.processed.variants.jpeg.path,
    width: input.processed.width,
    height: input.processed.height,
    placeholder: input.processed.placeholder,
    variants: JSON.stringify(input.processed.variants),
    original_key: input.originalKey,
    created_at: now,
    updated_at: now,
  };
  await services.db.transaction().execute(async (trx) => {
    await lockGallery(trx, input.galleryType);
    const { count } = await trx
      .selectFrom("gallery_images")
      .select((eb) => eb.fn.countAll<number>().as("count"))
      .where("gallery_type", "=", input.galleryType)
      .executeTakeFirstOrThrow();
    row.sort_order = Number(count);
    await trx.insertInto("gallery_images").values(row).execute();
  });
  services.publicContentChanged();
  return toGalleryImage(row, services.env?.MEDIA_BASE_URL);
}

/** The updated image, or null when there is no such image. */
export async function updateGalleryImageCaption(
  services: Pick<AppServices, "db" | "publicContentChanged"> & MediaEnv,
  id: string,
  caption: string,
): Promise<GalleryImage | null> {
  const result = await services.db
    .updateTable("gallery_images")
    .set({ caption, updated_at: nowIso() })
    .where("id", "=", id)
    .executeTakeFirst();
  if (Number(result.numUpdatedRows) === 0) return null;
  services.publicContentChanged();
  const row = await services.db.selectFrom("gallery_images").selectAll().where("id", "=", id).executeTakeFirstOrThrow();
  return toGalleryImage(row, services.env?.MEDIA_BASE_URL);
}

export class GalleryOrderMismatchError extends Error {
  override name = "GalleryOrderMismatchError";
}

/** The ids must be exactly the gallery's, checked under its lock, so sort orders stay 0..n-1 with no gaps. */
export async function reorderGallery(
  services: Pick<AppServices, "db" | "publicContentChanged"> & MediaEnv,
  galleryType: GalleryType,
  imageIds: string[],
): Promise<GalleryImage[]> {
  const images = await services.db.transaction().execute(async (trx) => {
    await lockGallery(trx, galleryType);
    const current = await trx
      .selectFrom("gallery_images")
      .select("id")
      .where("gallery_type", "=", galleryType)
      .execute();
    const currentIds = new Set(current.map((r) => r.id));
    const requested = new Set(imageIds);
    if (
      requested.size !== imageIds.length ||
      requested.size !== currentIds.size ||
      !imageIds.every((id) => currentIds.has(id))
    ) {
      throw new GalleryOrderMismatchError("imageIds must list every image of the gallery exactly once");
    }
    const now = nowIso();
    for (const [index, id] of imageIds.entries()) {
      await trx
        .updateTable("gallery_images")
        .set({ sort_order: index, updated_at: now })
        .where("id", "=", id)
        .where("gallery_type", "=", galleryType)
        .execute();
    }
    const rows = await trx
      .selectFrom("gallery_images")
      .selectAll()
      .where("gallery_type", "=", galleryType)
      .orderBy("sort_order", "asc")
      .orderBy("created_at", "asc")
      .execute();
    return rows.map((row) => toGalleryImage(row, services.env?.MEDIA_BASE_URL));
  });
  services.publicContentChanged();
  return images;
}

/** Every storage key that belongs to an image: its variants and its private original. */
export function storageKeysOf(image: GalleryImageRow): string[] {
  return galleryImageKeys(image);
}

/** Variants are content-addressed (shared); call after the rows' deletion commits (deferred while a backup runs). */
export async function deleteUnreferencedFiles(
  services: Pick<AppServices, "db" | "storage" | "logger">,
  keys: string[],
): Promise<void> {
  const rows = await services.db.selectFrom("gallery_images").selectAll().execute();
  const stillUsed = new Set(rows.flatMap(storageKeysOf));
  await deleteObjectsUnlessBackupRunning(
    services,
    keys.filter((key) => !stillUsed.has(key)),
  );
}

/** Closes the gap in the order in the same transaction, then deletes the files. */
export async function deleteGalleryImage(
  services: Pick<AppServices, "db" | "storage" | "logger" | "publicContentChanged">,
  id: string,
): Promise<boolean> {
  const row = await services.db.transaction().execute(async (trx) => {
    const image = await trx.selectFrom("gallery_images").select("gallery_type").where("id", "=", id).executeTakeFirst();
    if (!image) return null;
    await lockGallery(trx, image.gallery_type);
    // Read again under the lock: a delete or reorder that held it may have moved or removed the image.
    const found = await trx.selectFrom("gallery_images").selectAll().where("id", "=", id).executeTakeFirst();
    if (!found) return null;
    await trx.deleteFrom("gallery_images").where("id", "=", id).execute();
    await trx
      .updateTable("gallery_images")
      .set((eb) => ({ sort_order: eb("sort_order", "-", 1) }))
      .where("gallery_type", "=", found.gallery_type)
      .where("sort_order", ">", found.sort_order)
      .execute();
    return found;
  });
  if (!row) return false;
  services.publicContentChanged();
  await deleteUnreferencedFiles(services, storageKeysOf(row));
  return true;
}
