import { randomBytes } from "node:crypto";
import { createReadStream, readFileSync } from "node:fs";
import { stat } from "node:fs/promises";
import { Agent } from "node:https";
import { rootCertificates } from "node:tls";
import type { Readable } from "node:stream";
import {
  CopyObjectCommand,
  DeleteObjectCommand,
  GetObjectCommand,
  HeadObjectCommand,
  ListObjectsV2Command,
  PutObjectCommand,
  S3Client,
} from "@aws-sdk/client-s3";
import { getSignedUrl } from "@aws-sdk/s3-request-presigner";
import { checkBucketCors } from "./s3-cors-check.server";
import { createS3PartUploads } from "./s3-part-uploads.server";
import { InvalidStorageKeyError, StorageCheckError } from "./storage-errors.server";
import { INCOMING_PREFIX, assertValidKey, isValidObjectId } from "./storage-keys.server";
import type { DeclaredUpload, ObjectStorage } from "./storage.server";
import { HEAD_BYTES, collectStream } from "./stream-limits.server";

/** A plain, serialisable description of a bucket (it can be handed to a worker process). */
export type S3StorageConfig = {
  kind: "s3";
  bucket: string;
  region: string;
  /** For R2, MinIO and other S3-compatible stores; AWS when unset. */
  endpoint?: string;
  forcePathStyle: boolean;
  /** The provider's default chain (environment, instance role, …) when unset. */
  credentials?: { accessKeyId: string; secretAccessKey: string };
};

const CONTENT_TYPES: Record<string, string> = { avif: "image/avif", webp: "image/webp", jpg: "image/jpeg" };
/** Variant names are content hashes, so a stored variant never changes (as /media/ tells browsers). */
const IMMUTABLE = "public, max-age=31536000, immutable";

export function createS3Client(config: S3StorageConfig): S3Client {
  // The SDK warns once per process that its releases after early January 2027 need Node 22; our
  // versions are pinned (decision 0036). This is the SDK's documented switch; an explicit value wins.
  process.env.AWS_SDK_JS_NODE_VERSION_SUPPORT_WARNING_DISABLED ??= "true";
  return new S3Client({
    region: config.region,
    endpoint: config.endpoint,
    forcePathStyle: config.forcePathStyle,
    credentials: config.credentials,
    // Since early 2025 the SDK adds CRC checksums to uploads and presigned PUTs by default;
    // R2 and other S3-compatible stores refuse them. Only where an operation requires one.
    requestChecksumCalculation: "WHEN_REQUIRED",
    responseChecksumValidation: "WHEN_REQUIRED",
    requestHandler: { connectionTimeout: 5_000, requestTimeout: 30_000, httpsAgent: privateAuthority() },
  });
}

/** A store behind a private certificate authority: SSL_CERT_FILE (restic's too) read when a script loads it late. */
const privateAuthority = (file = process.env.SSL_CERT_FILE) =>
  file ? new Agent({ keepAlive: true, ca: [...rootCertificates, readFileSync(file, "utf8")] }) : undefined;

type AwsError = { name?: string; Code?: string; $metadata?: { httpStatusCode?: number } };

/** A missing object (not a missing bucket, which is a configuration error). */
function isMissingObject(error: unknown): boolean {
  const e = error as AwsError;
  if (e?.name === "NoSuchBucket" || e?.Code === "NoSuchBucket") return false;
  return e?.name === "NoSuchKey" || e?.name === "NotFound" || e?.$metadata?.httpStatusCode === 404;
}

function describe(error: unknown): string {
  const e = error as AwsError & { message?: string };
  const status = e?.$metadata?.httpStatusCode;
  return [e?.name, e?.message, status ? `(HTTP ${status})` : ""].filter(Boolean).join(": ").trim();
}

export async function createS3Storage(config: S3StorageConfig): Promise<ObjectStorage> {
  const client = createS3Client(config);
  const { bucket } = config;

  // With a declaration, Content-Length and Content-Type are signed too (the presigner leaves the
  // type out unless asked): the bucket then refuses a PUT of any other size or type.
  const presignPut = (key: string, expiresInSeconds: number, declared?: DeclaredUpload) =>
    getSignedUrl(
      client,
      new PutObjectCommand({
        Bucket: bucket,
        Key: key,
        ContentLength: declared?.bytes,
        ContentType: declared?.contentType,
      }),
      {
        expiresIn: expiresInSeconds,
        signableHeaders: declared ? new Set(["content-length", "content-type"]) : undefined,
      },
    );

  // Where this bucket's objects live, as the presigner writes it (path or virtual-host style).
  let probeUrl: URL;
  try {
    probeUrl = new URL(await presignPut(`${INCOMING_PREFIX}x`, 60));
  } catch (error) {
    throw new StorageCheckError(
      `Cannot sign requests for the S3 bucket "${bucket}": ${describe(error)}\n` +
        "Set S3_ACCESS_KEY_ID and S3_SECRET_ACCESS_KEY, or give this machine credentials the AWS SDK finds (environment, instance role).",
    );
  }
  const incomingBase = `${probeUrl.origin}${probeUrl.pathname.slice(0, -1)}`;
  // The bucket's own address (path or virtual-host style), where an unsigned GET of a key would go.
  const bucketBase = incomingBase.slice(0, -INCOMING_PREFIX.length);
  const bucketOrigin = probeUrl.origin;

  async function head(key: string) {
    assertValidKey(key);
    try {
      return await client.send(new HeadObjectCommand({ Bucket: bucket, Key: key }));
    } catch (error) {
      if (isMissingObject(error)) return null;
      throw error;
    }
  }

  async function get(key: string, range?: string) {
    assertValidKey(key);
    try {
      return await client.send(new GetObjectCommand({ Bucket: bucket, Key: key, Range: range }));
    } catch (error) {
      if (isMissingObject(error)) return null;
      // An empty object has no first byte to range over.
      if ((error as AwsError)?.$metadata?.httpStatusCode === 416) return "empty" as const;
      throw error;
    }
  }

  const storage: ObjectStorage = {
    uploadMode: "direct",
    uploadOrigins: [bucketOrigin],

    async write(key, body, options = {}) {
      assertValidKey(key);
      // Only variants and probes are written from here (a few MB at most), so the body is buffered:
      // PutObject needs the length up front. Browser uploads never pass through this server.
      const { data, head: first } = await collectStream(body, options.maxBytes);
      const extension = key.slice(key.lastIndexOf(".") + 1);
      await client.send(
        new PutObjectCommand({
          Bucket: bucket,
          Key: key,
          Body: data,
          ContentLength: data.length,
          ContentType: CONTENT_TYPES[extension] ?? "application/octet-stream",
          CacheControl: key.startsWith("variants/") ? IMMUTABLE : undefined,
        }),
      );
      return { bytes: data.length, head: first.subarray(0, HEAD_BYTES) };
    },

    async writeFile(key, file, options = {}) {
      assertValidKey(key);
      options.signal?.throwIfAborted();
      const { size } = await stat(file);
      try {
        await client.send(
          new PutObjectCommand({
            Bucket: bucket,
            Key: key,
            Body: createReadStream(file),
            ContentLength: size,
            ContentType: "application/octet-stream",
          }),
          { abortSignal: options.signal },
        );
      } catch (error) {
        // S3 keeps nothing of a cut-off PUT, but some compatible stores keep the part they got.
        await client.send(new DeleteObjectCommand({ Bucket: bucket, Key: key })).catch(() => undefined);
        throw error;
      }
      return { bytes: size };
    },

    async list(prefix) {
      const found: { key: string; bytes: number }[] = [];
      let token: string | undefined;
      do {
        const page = await client.send(
          new ListObjectsV2Command({ Bucket: bucket, Prefix: prefix, ContinuationToken: token }),
        );
        for (const object of page.Contents ?? [])
          if (object.Key) found.push({ key: object.Key, bytes: Number(object.Size ?? 0) });
        token = page.IsTruncated ? page.NextContinuationToken : undefined;
      } while (token);
      return found.sort((a, b) => (a.key < b.key ? -1 : a.key > b.key ? 1 : 0));
    },

    async read(key) {
      // Without a Range an empty object answers 200, so "empty" only comes from readHead.
      const object = await get(key);
      if (!object || object === "empty") return null;
      return { stream: object.Body as Readable, bytes: Number(object.ContentLength ?? 0) };
    },

    exists: async (key) => (await head(key)) !== null,

    async stat(key) {
      const object = await head(key);
      return object ? { bytes: Number(object.ContentLength ?? 0) } : null;
    },

    async readHead(key, length) {
      const object = await get(key, `bytes=0-${length - 1}`);
      if (object === "empty") return Buffer.alloc(0);
      if (!object) return null;
      const bytes = await object.Body!.transformToByteArray();
      return Buffer.from(bytes.buffer, bytes.byteOffset, Math.min(bytes.byteLength, length));
    },

    async move(from, to, options = {}) {
      assertValidKey(from);
      assertValidKey(to);
      const { contentType } = options;
      // A copy keeps the source's metadata unless told to replace it: the type the uploader sent.
      const retype = contentType ? { MetadataDirective: "REPLACE" as const, ContentType: contentType } : {};
      await client.send(new CopyObjectCommand({ Bucket: bucket, Key: to, CopySource: `${bucket}/${from}`, ...retype }));
      await client.send(new DeleteObjectCommand({ Bucket: bucket, Key: from }));
    },

    async delete(key) {
      assertValidKey(key);
      await client.send(new DeleteObjectCommand({ Bucket: bucket, Key: key }));
    },

    async createUploadTarget(objectId, expiresAt, declared) {
      if (!isValidObjectId(objectId)) {
        throw new InvalidStorageKeyError(`Invalid object id: ${JSON.stringify(objectId)}`);
      }
      const key = `${INCOMING_PREFIX}${objectId}`;
      const expiresIn = Math.max(1, Math.round((expiresAt.getTime() - Date.now()) / 1000));
      return { uploadURL: await presignPut(key, expiresIn, declared), key };
    },

    objectIdFromUploadUrl(url) {
      const address = `${url.origin}${url.pathname}`;
      if (!address.startsWith(incomingBase)) return null;
      const objectId = address.slice(incomingBase.length);
      return /^[a-z0-9-]{1,128}$/.test(objectId) ? objectId : null;
    },

    // This server never receives uploads itself with a bucket: only presigned URLs exist.
    verifyUploadTarget: () => "invalid",

    anonymousUrl(key) {
      assertValidKey(key);
      return `${bucketBase}${key}`;
    },

    async check({ siteOrigin, siteUrlGiven = true }) {
      const where = `the S3 bucket "${bucket}"${config.endpoint ? ` at ${config.endpoint}` : ""}`;
      const probe = `healthcheck/${randomBytes(8).toString("hex")}`;
      try {
        await client.send(new PutObjectCommand({ Bucket: bucket, Key: probe, Body: "ok", ContentLength: 2 }));
        const back = await storage.readHead(probe, 2);
        if (back?.toString() !== "ok") throw new Error("the probe object read back differently");
      } catch (error) {
        throw new StorageCheckError(
          `Cannot write and read ${where}: ${describe(error)}\n` +
            "Check S3_BUCKET, S3_REGION, S3_ENDPOINT and S3_FORCE_PATH_STYLE, and that the access key may put, get and delete objects.",
        );
      } finally {
        await client.send(new DeleteObjectCommand({ Bucket: bucket, Key: probe })).catch(() => {});
      }

      // The scripts take no uploads: only the server checks the CORS rule (decision 0050).
      if (siteOrigin === null) return;
      const presignedPutUrl = await presignPut(`${INCOMING_PREFIX}cors-check`, 60);
      await checkBucketCors({ presignedPutUrl, siteOrigin, siteUrlGiven, where, bucket });
    },

    parts: createS3PartUploads({ client, bucket, incomingBase, presignPut }),

    async close() {
      client.destroy();
    },
  };
  return storage;
}
