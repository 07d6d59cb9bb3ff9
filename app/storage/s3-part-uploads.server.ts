import { randomBytes } from "node:crypto";
import {
  AbortMultipartUploadCommand,
  CompleteMultipartUploadCommand,
  CreateMultipartUploadCommand,
  DeleteObjectCommand,
  UploadPartCommand,
  type S3Client,
} from "@aws-sdk/client-s3";
import { getSignedUrl } from "@aws-sdk/s3-request-presigner";
import { etagExposureProblem } from "./s3-cors-check.server";
import { InvalidPartsError } from "./storage-errors.server";
import { INCOMING_PREFIX, assertValidKey } from "./storage-keys.server";
import type { PartUploads } from "./storage.server";

/** S3's smallest part (all but the last): a 20 MB photo goes up in at most four. */
export const BUCKET_PART_BYTES = 5 * 1024 * 1024;

/** What the bucket answers when the parts listed cannot make the object (not a fault of the store). */
const PART_REFUSALS = new Set(["InvalidPart", "InvalidPartOrder", "NoSuchUpload", "EntityTooSmall", "MalformedXML"]);

/** Multipart uploads to the bucket: the server starts and completes them; the browser sends the parts. */
export function createS3PartUploads(options: {
  client: S3Client;
  bucket: string;
  /** The bucket's address of `incoming/` (path or virtual-host style, as the presigner writes it). */
  incomingBase: string;
  /** A presigned PutObject URL for `key`, valid `seconds` (the probe below). */
  presignPut: (key: string, seconds: number) => Promise<string>;
}): PartUploads {
  const { client, bucket, incomingBase } = options;

  function assertIncoming(key: string) {
    assertValidKey(key);
    if (!key.startsWith(INCOMING_PREFIX))
      throw new Error(`Parts are only ever sent to ${INCOMING_PREFIX}: ${JSON.stringify(key)}`);
  }

  return {
    partBytes: BUCKET_PART_BYTES,

    async check({ siteOrigin }) {
      // A real PUT from the site's origin: S3 states what a page may read only in an actual answer.
      const probe = `${INCOMING_PREFIX}etag-probe-${randomBytes(8).toString("hex")}`;
      try {
        const problem = await etagExposureProblem({ presignedPutUrl: await options.presignPut(probe, 60), siteOrigin });
        return problem ? { available: false, reason: problem } : { available: true };
      } finally {
        await client.send(new DeleteObjectCommand({ Bucket: bucket, Key: probe })).catch(() => {});
      }
    },

    async start(key, { contentType }) {
      assertIncoming(key);
      const created = await client.send(
        new CreateMultipartUploadCommand({ Bucket: bucket, Key: key, ContentType: contentType }),
      );
      if (!created.UploadId) throw new Error("The bucket started a multipart upload without an UploadId");
      return { multipartId: created.UploadId };
    },

    async partUrl(key, multipartId, { partNumber, bytes }, expiresAt) {
      assertIncoming(key);
      if (!multipartId) throw new Error("A bucket part needs its multipart upload id");
      const expiresIn = Math.max(1, Math.round((expiresAt.getTime() - Date.now()) / 1000));
      // Content-Length is signed: the bucket refuses a part of any other size.
      return getSignedUrl(
        client,
        new UploadPartCommand({
          Bucket: bucket,
          Key: key,
          UploadId: multipartId,
          PartNumber: partNumber,
          ContentLength: bytes,
        }),
        { expiresIn, signableHeaders: new Set(["content-length"]) },
      );
    },

    // The object's own address, unsigned: what registration recognises as this bucket's incoming/ (objectIdFromUploadUrl).
    imageUrl: (objectId) => `${incomingBase}${objectId}`,

    write() {
      return Promise.reject(new Error("Parts go from the browser straight to the bucket, never through this server"));
    },

    async complete(key, multipartId, parts) {
      assertIncoming(key);
      try {
        await client.send(
          new CompleteMultipartUploadCommand({
            Bucket: bucket,
            Key: key,
            UploadId: multipartId ?? undefined,
            MultipartUpload: {
              Parts: parts.map(({ partNumber, etag }) => ({
                PartNumber: partNumber,
                ETag: `"${etag.replace(/"/g, "")}"`,
              })),
            },
          }),
        );
      } catch (error) {
        const name = (error as { name?: string; Code?: string })?.name ?? (error as { Code?: string })?.Code ?? "";
        if (PART_REFUSALS.has(name))
          throw new InvalidPartsError(`The bucket could not put the parts together (${name}): send them again`);
        throw error;
      }
    },

    async abort(key, multipartId) {
      assertIncoming(key);
      if (!multipartId) return true;
      try {
        await client.send(new AbortMultipartUploadCommand({ Bucket: bucket, Key: key, UploadId: multipartId }));
        return true;
      } catch {
        // s3rver answers 405; a real bucket's lifecycle rule (AbortIncompleteMultipartUpload) is the backstop.
        return false;
      }
    },
  };
}
