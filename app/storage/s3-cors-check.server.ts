import { StorageCheckError } from "./storage-errors.server";

/** The CORS rule the admin page's PUTs need; ETag exposed for resumable uploads (decision 0062). */
export function requiredCorsRule(siteOrigin: string) {
  return {
    AllowedOrigins: [siteOrigin],
    AllowedMethods: ["PUT"],
    AllowedHeaders: ["content-type"],
    ExposeHeaders: ["ETag"],
    MaxAgeSeconds: 3600,
  };
}

/** Why photos cannot resume on this bucket, in the owner's words (the upload window shows it). */
export const ETAG_HIDDEN_REASON =
  "The photo bucket's CORS rule does not let this page read the ETag header of each part, which resuming needs. " +
  'Whoever set up the bucket can add "ExposeHeaders": ["ETag"] to that rule (see "The bucket\'s CORS rule" in the README).';

/**
 * Null when a page of `siteOrigin` may read a PUT's ETag, else why not: a real PUT (S3 states exposed headers only
 * in actual answers, never a preflight's) of a probe the caller deletes.
 */
export async function etagExposureProblem(options: {
  presignedPutUrl: string;
  siteOrigin: string;
}): Promise<string | null> {
  try {
    const answer = await fetch(options.presignedPutUrl, {
      method: "PUT",
      headers: { Origin: options.siteOrigin },
      body: "ok",
      signal: AbortSignal.timeout(10_000),
    });
    await answer.arrayBuffer().catch(() => {});
    if (!answer.ok)
      return `A test upload to the photo bucket from ${options.siteOrigin} was refused (HTTP ${answer.status}).`;
    const exposed = (answer.headers.get("access-control-expose-headers") ?? "")
      .split(",")
      .map((name) => name.trim().toLowerCase());
    return exposed.includes("etag") || exposed.includes("*") ? null : ETAG_HIDDEN_REASON;
  } catch (error) {
    return `A test upload to the photo bucket failed: ${error instanceof Error ? error.message : String(error)}.`;
  }
}

/**
 * Asks the bucket what it would answer the admin page's preflight; rejects with what to fix. The advice only names
 * SITE_URL's origin: a rule for the stand-in would work here and fail from the real site.
 */
export async function checkBucketCors(options: {
  /** A presigned PUT URL of the bucket (any incoming/ key): the preflight goes to it. */
  presignedPutUrl: string;
  siteOrigin: string;
  siteUrlGiven: boolean;
  /** "the S3 bucket "photos" at https://…", for the message. */
  where: string;
  bucket: string;
}): Promise<void> {
  const { siteOrigin, where, bucket } = options;
  let problem: string | null = null;
  try {
    const preflight = await fetch(options.presignedPutUrl, {
      method: "OPTIONS",
      headers: {
        Origin: siteOrigin,
        "Access-Control-Request-Method": "PUT",
        "Access-Control-Request-Headers": "content-type",
      },
      signal: AbortSignal.timeout(10_000),
    });
    await preflight.arrayBuffer().catch(() => {});
    const allowedOrigin = preflight.headers.get("access-control-allow-origin");
    const allowedMethods = (preflight.headers.get("access-control-allow-methods") ?? "").toUpperCase();
    if (!preflight.ok) problem = `the bucket refused the browser's CORS preflight (HTTP ${preflight.status})`;
    else if (allowedOrigin !== siteOrigin && allowedOrigin !== "*")
      problem = `the CORS rule does not allow the origin ${siteOrigin}`;
    else if (!/\bPUT\b/.test(allowedMethods)) problem = "the CORS rule does not allow PUT";
  } catch (error) {
    problem = `the CORS preflight failed: ${error instanceof Error ? error.message : String(error)}`;
  }
  if (!problem) return;
  if (!options.siteUrlGiven) {
    throw new StorageCheckError(
      `Browsers cannot upload to ${where}: ${problem}.\n` +
        `SITE_URL is not set, so this check stood in ${siteOrigin} for the site's address; a CORS rule for that would break uploads from the real site.\n` +
        "Set SITE_URL to the address visitors use (such as https://www.example.co.nz) and start again: this message then gives the exact CORS rule the bucket needs.",
    );
  }
  const rule = JSON.stringify([requiredCorsRule(siteOrigin)]);
  throw new StorageCheckError(
    `Browsers cannot upload to ${where}: ${problem}.\n` +
      `Give the bucket this CORS rule (SITE_URL's origin, PUT, the Content-Type header, the ETag header exposed): ${rule}\n` +
      `For example: aws s3api put-bucket-cors --bucket ${bucket} --cors-configuration '{"CORSRules":${rule}}'`,
  );
}
