import { randomBytes } from "node:crypto";
import { Readable } from "node:stream";
import type { Logger } from "~/lib/logger.server";
import { BUCKET_PUBLIC_MESSAGE, type BucketPrivacy } from "./bucket-privacy";
import { StorageCheckError } from "./storage-errors.server";
import { BUCKET_BACKUPS_PREFIX, ENQUIRY_PHOTO_PREFIX, INCOMING_PREFIX } from "./storage-keys.server";
import type { ObjectStorage } from "./storage.server";

/** Every prefix whose objects must never be readable without a key (backups hold every enquiry). */
export const PRIVATE_PREFIXES = [INCOMING_PREFIX, "originals/", BUCKET_BACKUPS_PREFIX, ENQUIRY_PHOTO_PREFIX] as const;

/** A store to probe, and the other addresses that serve its objects (MEDIA_BASE_URL's). */
export type PrivacyTarget = { storage: ObjectStorage; alsoServedAt?: readonly string[] };

const PROBE_NAME = "privacy-probe";
const PROBE_TIMEOUT_MS = 5_000;

/**
 * Where a bucket whose `variants/` is published at MEDIA_BASE_URL may serve
 * its other keys: the origin's root, and the folder above `variants`.
 */
export function mediaAddresses(mediaBaseUrl: string | undefined): string[] {
  if (!mediaBaseUrl) return [];
  const base = new URL(mediaBaseUrl);
  const parent = base.pathname.replace(/\/+$/, "").replace(/\/variants$/, "");
  return [...new Set([base.origin, `${base.origin}${parent}`])];
}

/** Whether an unsigned GET of `url` hands out exactly the probe's secret content. */
async function readableWithoutKey(url: string, content: string): Promise<boolean> {
  try {
    const res = await fetch(url, {
      credentials: "omit",
      redirect: "follow",
      signal: AbortSignal.timeout(PROBE_TIMEOUT_MS),
    });
    if (!res.ok) {
      await res.body?.cancel();
      return false;
    }
    // The probe is 32 characters: read no more than a little past it.
    const reader = res.body?.getReader();
    let text = "";
    while (reader && text.length <= content.length) {
      const { done, value } = await reader.read();
      if (done) break;
      text += Buffer.from(value).toString("latin1");
    }
    await reader?.cancel();
    return text === content;
  } catch {
    // Unreachable, refused, timed out: nobody read it from there.
    return false;
  }
}

/** Every address (each store's own, and `alsoServedAt`) that hands out a probe written under a private prefix. */
export async function findReadableWithoutKey(targets: readonly PrivacyTarget[]): Promise<string[]> {
  const readable: string[] = [];
  for (const { storage, alsoServedAt = [] } of targets) {
    for (const prefix of PRIVATE_PREFIXES) {
      const key = `${prefix}${PROBE_NAME}`;
      const own = storage.anonymousUrl(key);
      if (!own) continue;
      const content = randomBytes(16).toString("hex");
      await storage.write(key, Readable.from([Buffer.from(content)]));
      try {
        const urls = [own, ...alsoServedAt.map((base) => `${base}/${key}`)];
        const answers = await Promise.all(urls.map((url) => readableWithoutKey(url, content)));
        readable.push(...urls.filter((_, index) => answers[index]));
      } finally {
        await storage.delete(key).catch(() => {});
      }
    }
  }
  return readable;
}

/**
 * The start-up privacy check (unless S3_PRIVACY_CHECK=off): logs every address that handed a probe out; a probe that
 * cannot be written or deleted stops the start (StorageCheckError).
 */
export async function checkBucketPrivacy(options: {
  targets: readonly PrivacyTarget[];
  enabled: boolean;
  logger: Logger;
}): Promise<BucketPrivacy> {
  const { targets, enabled, logger } = options;
  if (!targets.some(({ storage }) => storage.anonymousUrl(`originals/${PROBE_NAME}`))) return { status: "no-bucket" };
  if (!enabled) return { status: "off" };
  let readableAt: string[];
  try {
    readableAt = await findReadableWithoutKey(targets);
  } catch (error) {
    throw new StorageCheckError(
      `Cannot check that the bucket is private: writing a probe under ${PRIVATE_PREFIXES.join(", ")} failed: ` +
        `${error instanceof Error ? error.message : String(error)}\n` +
        "Check that the access key may put and delete objects under those prefixes (the site writes there itself), " +
        "or set S3_PRIVACY_CHECK=off if the bucket's privacy is enforced elsewhere.",
    );
  }
  if (!readableAt.length) return { status: "private" };
  logger.error(
    { readableAt },
    `${BUCKET_PUBLIC_MESSAGE} These addresses answered without a key; docs/DEPLOY.md ("Keeping the bucket private") says what to change.`,
  );
  return { status: "public", readableAt };
}
