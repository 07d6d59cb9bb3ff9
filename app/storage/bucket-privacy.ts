/** What the bucket privacy check found, as the server and the dashboard both know it. */

/** The dashboard's red notice, word for word (decision 0048). */
export const BUCKET_PUBLIC_MESSAGE =
  "Anyone on the internet can download your backups and original photos. Make the bucket private.";

/** GET /api/admin/storage/privacy; "no-bucket": the local disk, which serves image variants only. */
export type BucketPrivacy = { status: "public"; readableAt: string[] } | { status: "private" | "off" | "no-bucket" };
