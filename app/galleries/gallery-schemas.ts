import { z } from "~/lib/zod";
import { GALLERY_TYPES, MAX_CAPTION_LENGTH } from "./gallery";

/** Request bodies of the gallery API, used by the server and typed for the admin. */

export const galleryTypeSchema = z.enum(GALLERY_TYPES, {
  error: `galleryType must be one of: ${GALLERY_TYPES.join(", ")}`,
});

const captionSchema = z
  .string({ error: "caption must be a string" })
  .max(MAX_CAPTION_LENGTH, `caption must be at most ${MAX_CAPTION_LENGTH} characters`);

/** Body of PUT /api/admin/gallery-images: registers a finished upload. */
export const addGalleryImageSchema = z.object({
  imageURL: z.string({ error: "imageURL is required" }).min(1, "imageURL is required").max(2000),
  galleryType: galleryTypeSchema,
  caption: captionSchema.default(""),
  // Spec §3: sent as a string equal to the current image count.
  sortOrder: z
    .union([z.string().regex(/^\d{1,6}$/, "sortOrder must be a whole number"), z.number().int().min(0).max(999_999)])
    .transform(Number)
    .optional(),
});
export type AddGalleryImage = z.input<typeof addGalleryImageSchema>;

/** Body of PATCH /api/admin/gallery-images/:id. */
export const captionUpdateSchema = z.object({ caption: captionSchema });

/** Body of PUT /api/admin/gallery-images/reorder. */
export const reorderGallerySchema = z.object({
  galleryType: galleryTypeSchema,
  imageIds: z.array(z.string().min(1).max(100), { error: "imageIds must be a list of image ids" }).max(1000),
});
export type ReorderGallery = z.infer<typeof reorderGallerySchema>;
