/** What the bucket privacy check found, as the server and the dashboard both know it. */

/** The dashboard's red notice, word for word (decision 0048). */
export const BUCKET_PUBLIC_MESSAGE =
  "Anyone on the internet can download your backups and original photos. Make the bucket private.";

/**
 * The start-up privacy check's finding (GET /api/admin/storage/privacy):
 * "public" (a probe was read without a key, at `readableAt`), "private",
 * "off" (S3_PRIVACY_CHECK=off), or "no-bucket" (the local disk, which serves
 * nothing but image variants).
 */
export type BucketPrivacy = { status: "public"; readableAt: string[] } | { status: "private" | "off" | "no-bucket" };
