import type { ImageVariants } from "~/images/processed-image";

/** Without the validation library, so public pages do not load zod (schemas: ./gallery-schemas). */

/** The four galleries, in the dashboard's order, and their titles in the admin (spec §2). */
export const GALLERY_TITLES = {
  traditional: "Traditional Stonework",
  veneer: "Veneer Stonework",
  landscaping: "Hard Landscaping",
  homepage: "Homepage Hero Images",
} satisfies Record<string, string>;
export type GalleryType = keyof typeof GALLERY_TITLES;
export const GALLERY_TYPES = Object.keys(GALLERY_TITLES) as readonly GalleryType[];

export function isGalleryType(value: string): value is GalleryType {
  return (GALLERY_TYPES as readonly string[]).includes(value);
}

/** A gallery image as the API and the pages see it. */
export type GalleryImage = {
  id: string;
  imagePath: string;
  caption: string;
  galleryType: GalleryType;
  sortOrder: number;
  width: number;
  height: number;
  /** Tiny blurred data: URL shown while the real image loads. */
  placeholder: string;
  variants: ImageVariants;
};

/** A gallery read for a page: a failed read is a state, not a crash. */
export type GalleryResult = { status: "ok"; images: GalleryImage[] } | { status: "error" };

/** Alt text: the caption, or the gallery type plus the item number (spec §2). */
export function galleryImageAlt(image: Pick<GalleryImage, "caption">, galleryType: GalleryType, index: number) {
  return image.caption.trim() || `${galleryType} ${index + 1}`;
}

export const MAX_CAPTION_LENGTH = 500;
/** Spec §9: at most 10 files per upload, 20 MB (20971520 bytes) each. */
export const MAX_UPLOAD_FILES = 10;
export const MAX_UPLOAD_BYTES = 20 * 1024 * 1024;

/** Spec §8: what a gallery that cannot be loaded says, on the site and in the admin. */
export const GALLERY_LOAD_ERROR = "Unable to load gallery images.";
