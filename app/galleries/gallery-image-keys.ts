import type { GalleryImageRow } from "~/db/schema";
import { variantKeyFromPublicPath } from "~/images/processed-image";
import type { ImageVariants } from "~/images/processed-image";

/** The one place that reads a row's storage keys, so delete, in-use checks and backups never disagree. */

/** The `variants/` keys a row's `variants` column (JSON) names; throws when it is not a list of image files. */
export function variantKeysOf(variantsJson: unknown): string[] {
  const variants = JSON.parse(String(variantsJson)) as ImageVariants;
  const paths: unknown[] = [...variants.avif, ...variants.webp, variants.jpeg].map((variant) => variant.path);
  if (!paths.every((path): path is string => typeof path === "string")) throw new Error("not a list of image files");
  return paths.map(variantKeyFromPublicPath).filter((key): key is string => key !== null);
}

/** The private original a row's `original_key` column names (none when it was not kept); throws when it is not a key. */
export function originalKeysOf(originalKey: unknown): string[] {
  if (originalKey === null || originalKey === undefined) return [];
  if (typeof originalKey !== "string") throw new Error("not a storage key");
  return [originalKey];
}

/** Every storage key that belongs to an image, once each: its variants and its private original. */
export function galleryImageKeys(row: Pick<GalleryImageRow, "variants" | "original_key">): string[] {
  return [...new Set([...variantKeysOf(row.variants), ...originalKeysOf(row.original_key)])];
}
