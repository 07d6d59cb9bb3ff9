import { z } from "~/lib/zod";
import { uploadDeclarationSchema } from "./upload-declaration";

/** Resumable uploads' routes and bodies (decision 0062), shared by the routes and the admin page; docs/API.md. */
export const RESUMABLE_UPLOADS_PATH = "/api/uploads/resumable";

export const resumablePaths = {
  partTargets: (uploadId: string) => `${RESUMABLE_UPLOADS_PATH}/${encodeURIComponent(uploadId)}/parts`,
  part: (uploadId: string, partNumber: number) =>
    `${RESUMABLE_UPLOADS_PATH}/${encodeURIComponent(uploadId)}/parts/${partNumber}`,
  complete: (uploadId: string) => `${RESUMABLE_UPLOADS_PATH}/${encodeURIComponent(uploadId)}/complete`,
};

/** GET /api/uploads/resumable. `reason`: why photos go up in one piece here, in the owner's words. */
export type ResumableSupport = { available: true; partBytes: number } | { available: false; reason: string };

/** POST /api/uploads/resumable's 429 while the unfinished uploads are at their bounds; the tray waits it out. */
export const LET_OTHERS_FINISH_MESSAGE = "Let the photos already on their way finish first.";

/** POST /api/uploads/resumable: the file's size and type, as for a single upload (refused alike). */
export const startResumableSchema = uploadDeclarationSchema;

/** Where each part goes: a URL valid until `expiresAt` (a bucket's presigned one, or this server's part route). */
export type PartTargets = {
  parts: { partNumber: number; bytes: number; url: string }[];
  /** ISO time; ask GET …/parts again before then. */
  expiresAt: string;
};

/** POST /api/uploads/resumable's answer. */
export type ResumableUpload = PartTargets & { uploadId: string; partBytes: number; partCount: number };

/** An ETag as a bucket or this server answers a part with: quoted hex (S3 adds "-N" to some). */
const ETAG = /^"?[0-9A-Za-z-]{1,200}"?$/;

/** POST …/complete: every part, with the ETag its PUT was answered with. */
export const completeResumableSchema = z.object({
  parts: z
    .array(
      z.object({
        partNumber: z
          .number({ error: "partNumber must be a whole number" })
          .int("partNumber must be a whole number")
          .min(1)
          .max(10_000),
        etag: z
          .string({ error: "etag must be the ETag the part was answered with" })
          .regex(ETAG, "etag must be the ETag the part was answered with"),
      }),
    )
    .min(1, "parts must list every part with its ETag")
    .max(10_000),
});

/** POST …/complete's answer: the address to register with PUT /api/admin/gallery-images. */
export type ResumableCompleted = { imageURL: string };

/** How many parts a file of `size` bytes takes. */
export function partCountFor(size: number, partBytes: number): number {
  return Math.max(1, Math.ceil(size / partBytes));
}

/** The size of part `partNumber` (1-based): `partBytes`, but the last holds what is left. */
export function partSizeOf(size: number, partBytes: number, partNumber: number): number {
  return Math.max(0, Math.min(partBytes, size - (partNumber - 1) * partBytes));
}
