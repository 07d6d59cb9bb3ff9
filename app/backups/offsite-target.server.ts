import { createReadStream, createWriteStream } from "node:fs";
import fs from "node:fs/promises";
import type { Readable } from "node:stream";
import { pipeline } from "node:stream/promises";
import {
  AbortMultipartUploadCommand,
  CompleteMultipartUploadCommand,
  CreateMultipartUploadCommand,
  DeleteObjectCommand,
  GetObjectCommand,
  ListObjectsV2Command,
  PutObjectCommand,
  type S3Client,
  UploadPartCommand,
} from "@aws-sdk/client-s3";
import type { Env } from "~/env.server";
import { s3ConfigOf } from "~/storage/open-storage.server";
import { createS3Client, type S3StorageConfig } from "~/storage/s3-storage.server";

/**
 * The off-site bucket (BACKUP_S3_*: Backblaze B2, Cloudflare R2, Wasabi, AWS),
 * independent of where photos live. This adapter reads the full archives
 * decision 0052 copied there (`cornerstone-backups/<name>`), which still restore
 * by name; the copies of decision 0060 go through offsite-store.server.ts, which
 * shares the upload below (putFileInBucket).
 */
export type OffsiteCopy = { name: string; bytes: number; modifiedAt: Date };

export type OffsiteTarget = {
  /** For people: "the bucket cornerstone-backups (https://s3.eu-central-003.backblazeb2.com)". */
  description: string;
  list(): Promise<OffsiteCopy[]>;
  /** Into a new file (never over an existing one). */
  download(name: string, file: string): Promise<void>;
  /** The first `bytes` bytes of a copy (all of it when it is smaller): enough to tell what it is. */
  readStart(name: string, bytes: number): Promise<Buffer>;
  remove(name: string): Promise<void>;
  close(): void;
};

/** Every copy sits under this prefix, so the bucket may hold other things beside it. */
export const OFFSITE_PREFIX = "cornerstone-backups/";
/** Parts of this size (S3's minimum is 5 MiB): a 100 GB archive stays under S3's 10,000 parts. */
export const OFFSITE_PART_BYTES = 16 * 1024 * 1024;

export function offsiteConfigFor(env: Env): S3StorageConfig | null {
  if (!env.BACKUP_S3_BUCKET) return null;
  return s3ConfigOf({
    bucket: env.BACKUP_S3_BUCKET,
    region: env.BACKUP_S3_REGION,
    endpoint: env.BACKUP_S3_ENDPOINT,
    forcePathStyle: env.BACKUP_S3_FORCE_PATH_STYLE,
    accessKeyId: env.BACKUP_S3_ACCESS_KEY_ID,
    secretAccessKey: env.BACKUP_S3_SECRET_ACCESS_KEY,
  });
}

/** The off-site target BACKUP_S3_BUCKET names, or null when it is not set. */
export function openOffsiteTarget(env: Env): OffsiteTarget | null {
  const config = offsiteConfigFor(env);
  return config ? createS3OffsiteTarget(config) : null;
}

/** "NoSuchBucket: The specified bucket does not exist (HTTP 404)": for the log and the dashboard's details. */
export function describeS3Error(error: unknown): string {
  const e = error as { name?: string; message?: string; $metadata?: { httpStatusCode?: number } };
  const status = e?.$metadata?.httpStatusCode;
  return [e?.name, e?.message, status ? `(HTTP ${status})` : ""].filter(Boolean).join(": ").trim() || String(error);
}

/**
 * The SDK never retries a request whose body is a stream (it cannot rewind it); each attempt here
 * opens the file again, so a dropped connection costs one part, not the whole upload.
 */
export async function withRetries<T>(
  signal: AbortSignal | undefined,
  attempt: () => Promise<T>,
  attempts = 3,
): Promise<T> {
  for (let n = 1; ; n++) {
    try {
      return await attempt();
    } catch (error) {
      const status = (error as { $metadata?: { httpStatusCode?: number } }).$metadata?.httpStatusCode ?? 0;
      // A refusal (a missing bucket, a wrong key) will not change on a second try.
      if (n >= attempts || signal?.aborted || (status >= 400 && status < 500)) throw error;
    }
  }
}

/**
 * Streams a local file into `Key`: one PutObject up to OFFSITE_PART_BYTES, a multipart upload of
 * such parts above it (aborted on failure, so no parts are left to be billed). Returns its size.
 */
export async function putFileInBucket(
  client: S3Client,
  Bucket: string,
  Key: string,
  file: string,
  signal?: AbortSignal,
): Promise<number> {
  const { size } = await fs.stat(file);
  if (size <= OFFSITE_PART_BYTES) {
    await withRetries(signal, () =>
      client.send(new PutObjectCommand({ Bucket, Key, ContentLength: size, Body: createReadStream(file) }), {
        abortSignal: signal,
      }),
    );
    return size;
  }
  const { UploadId } = await client.send(new CreateMultipartUploadCommand({ Bucket, Key }), { abortSignal: signal });
  const parts: { ETag: string; PartNumber: number }[] = [];
  try {
    for (let start = 0, PartNumber = 1; start < size; start += OFFSITE_PART_BYTES, PartNumber += 1) {
      const end = Math.min(size, start + OFFSITE_PART_BYTES);
      const part = await withRetries(signal, () =>
        client.send(
          new UploadPartCommand({
            Bucket,
            Key,
            UploadId,
            PartNumber,
            ContentLength: end - start,
            Body: createReadStream(file, { start, end: end - 1 }),
          }),
          { abortSignal: signal },
        ),
      );
      parts.push({ ETag: part.ETag!, PartNumber });
    }
    await client.send(
      new CompleteMultipartUploadCommand({ Bucket, Key, UploadId, MultipartUpload: { Parts: parts } }),
      { abortSignal: signal },
    );
  } catch (error) {
    // Parts left behind would be billed; a failure to abort is only worth the original error.
    await client.send(new AbortMultipartUploadCommand({ Bucket, Key, UploadId })).catch(() => {});
    throw error;
  }
  return size;
}

export function createS3OffsiteTarget(config: S3StorageConfig): OffsiteTarget {
  const client = createS3Client(config);
  const Bucket = config.bucket;
  const keyOf = (name: string) => `${OFFSITE_PREFIX}${name}`;
  const fail = (action: string, error: unknown): never => {
    throw new Error(`Could not ${action} the off-site bucket ${Bucket}: ${describeS3Error(error)}`);
  };

  return {
    description: `the bucket ${Bucket}${config.endpoint ? ` (${config.endpoint})` : ""}`,
    async list() {
      const copies: OffsiteCopy[] = [];
      let ContinuationToken: string | undefined;
      try {
        do {
          const page = await client.send(
            new ListObjectsV2Command({ Bucket, Prefix: OFFSITE_PREFIX, Delimiter: "/", ContinuationToken }),
          );
          for (const object of page.Contents ?? []) {
            const name = object.Key!.slice(OFFSITE_PREFIX.length);
            if (name && !name.includes("/"))
              copies.push({ name, bytes: object.Size ?? 0, modifiedAt: object.LastModified ?? new Date(0) });
          }
          ContinuationToken = page.NextContinuationToken;
        } while (ContinuationToken);
      } catch (error) {
        fail("list", error);
      }
      return copies;
    },
    async download(name, file) {
      let body: Readable;
      try {
        const object = await client.send(new GetObjectCommand({ Bucket, Key: keyOf(name) }));
        body = object.Body as Readable;
      } catch (error) {
        return fail(`read ${name} from`, error);
      }
      try {
        await pipeline(body, createWriteStream(file, { flags: "wx", mode: 0o600 }));
      } catch (error) {
        await fs.rm(file, { force: true });
        fail(`read ${name} from`, error);
      }
    },
    async readStart(name, bytes) {
      try {
        const object = await client.send(
          new GetObjectCommand({ Bucket, Key: keyOf(name), Range: `bytes=0-${bytes - 1}` }),
        );
        const chunks: Buffer[] = [];
        let read = 0;
        for await (const chunk of object.Body as Readable) {
          chunks.push(chunk as Buffer);
          read += (chunk as Buffer).length;
          // A store that ignores Range sends it all: stop at what was asked for.
          if (read >= bytes) {
            (object.Body as Readable).destroy();
            break;
          }
        }
        return Buffer.concat(chunks).subarray(0, bytes);
      } catch (error) {
        // An empty object has no byte 0.
        if ((error as { $metadata?: { httpStatusCode?: number } }).$metadata?.httpStatusCode === 416)
          return Buffer.alloc(0);
        return fail(`read ${name} from`, error);
      }
    },
    async remove(name) {
      try {
        await client.send(new DeleteObjectCommand({ Bucket, Key: keyOf(name) }));
      } catch (error) {
        fail(`delete ${name} from`, error);
      }
    },
    close() {
      client.destroy();
    },
  };
}
