import { InvalidStorageKeyError } from "./storage-errors.server";

/** Where the browser's bytes land before they are checked; nothing else is presigned. */
export const INCOMING_PREFIX = "incoming/";

/** Where backups go in a bucket: private, and no backup holds objects under it. */
export const BUCKET_BACKUPS_PREFIX = "backups/";

/** Where visitors' photos of the job go. Private: never served by /media or MEDIA_BASE_URL, covered by the bucket privacy probe. */
export const ENQUIRY_PHOTO_PREFIX = "enquiry-photos/";

// No segment starts with ".": keys never name temp files (".<name>.<random>.tmp") or dotfiles.
const SEGMENT = /^[a-z0-9_-][a-z0-9._-]*$/;
const MAX_KEY_LENGTH = 512;

/** Throws InvalidStorageKeyError unless key is a safe relative object key. */
export function assertValidKey(key: string): void {
  if (
    typeof key !== "string" ||
    key.length === 0 ||
    key.length > MAX_KEY_LENGTH ||
    key.includes("..") ||
    !key.split("/").every((segment) => SEGMENT.test(segment))
  ) {
    throw new InvalidStorageKeyError(`Invalid storage key: ${JSON.stringify(key)}`);
  }
}

/** An object id is one key segment (it becomes `originals/<id>`). */
export function isValidObjectId(objectId: string): boolean {
  return typeof objectId === "string" && objectId.length <= 128 && !objectId.includes("..") && SEGMENT.test(objectId);
}
