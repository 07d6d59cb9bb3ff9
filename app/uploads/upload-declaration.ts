import { MAX_UPLOAD_BYTES } from "~/galleries/gallery";
import { z } from "~/lib/zod";

/** An image media type, the only kind an upload URL is ever signed for (image/jpeg, image/png, …). */
export const IMAGE_MEDIA_TYPE = /^image\/[a-z0-9][a-z0-9.+-]{0,62}$/;

export const UPLOAD_TOO_LARGE_MESSAGE = `The file is too large. Maximum size is ${MAX_UPLOAD_BYTES / (1024 * 1024)}MB`;
/** The file's own first bytes are not one of the accepted image types (it is refused with 415). */
export const UPLOAD_NOT_AN_IMAGE_MESSAGE = "The file is not a supported image (JPEG, PNG, WebP, AVIF or GIF)";
export const UPLOAD_NOT_AN_IMAGE_TYPE_MESSAGE =
  "Only images can be uploaded: type must be an image type such as image/jpeg";

/** POST /api/objects/upload's optional body: refused before signing if too large or not an image, else signed in. */
export const uploadDeclarationSchema = z.object({
  size: z
    .number({ error: "size must be the file's size in bytes" })
    .int("size must be the file's size in bytes")
    .min(1, "size must be the file's size in bytes (the file is empty)")
    .max(MAX_UPLOAD_BYTES, UPLOAD_TOO_LARGE_MESSAGE),
  type: z
    .string({ error: UPLOAD_NOT_AN_IMAGE_TYPE_MESSAGE })
    .transform((type) => type.trim().toLowerCase())
    .pipe(z.string().regex(IMAGE_MEDIA_TYPE, UPLOAD_NOT_AN_IMAGE_TYPE_MESSAGE)),
});
export type UploadDeclaration = z.input<typeof uploadDeclarationSchema>;
