import { DeleteObjectCommand, GetObjectCommand, ListObjectsV2Command, PutObjectCommand } from "@aws-sdk/client-s3";
import type { Env } from "~/env.server";
import { createS3Client, type S3StorageConfig } from "~/storage/s3-storage.server";
import {
  describeS3Error,
  offsiteConfigFor,
  OFFSITE_PREFIX,
  putFileInBucket,
  withRetries,
} from "./offsite-target.server";

/**
 * The off-site store of the content-addressed copies (decision 0060): raw
 * keys under `cornerstone-backups/repository/` in the BACKUP_S3_* bucket,
 * beside the full archives of decision 0052 (which it never touches). Every
 * byte written here is already encrypted; the store only moves bytes.
 */
export const REPOSITORY_PREFIX = `${OFFSITE_PREFIX}repository/`;

export type StoredObject = { key: string; bytes: number; modifiedAt: Date };

export type OffsiteStore = {
  /** For people: "the bucket cornerstone-backups (https://s3.eu-central-003.backblazeb2.com)". */
  description: string;
  /** Writes `body` (bytes in memory, or a local file streamed up) at `key`; returns the bytes sent. */
  put(key: string, body: { bytes: Uint8Array } | { file: string }, options?: { signal?: AbortSignal }): Promise<number>;
  /** The whole object (the store's small objects: keys files, manifests, lists), or null when missing. */
  get(key: string): Promise<Buffer | null>;
  /** The object as a stream (large objects), or null when missing. */
  read(key: string): Promise<{ stream: NodeJS.ReadableStream; bytes: number } | null>;
  /** Every object whose key starts with `prefix`, sorted by key. */
  list(prefix: string): Promise<StoredObject[]>;
  remove(key: string): Promise<void>;
  close(): void;
};

/** Thrown for a store that refuses or cannot be reached; the message names the bucket. */
export class OffsiteStoreError extends Error {
  override name = "OffsiteStoreError";
}

/** The store BACKUP_S3_BUCKET names, or null when it is not set. */
export function openOffsiteStore(env: Env): OffsiteStore | null {
  const config = offsiteConfigFor(env);
  return config ? createS3OffsiteStore(config) : null;
}

export function createS3OffsiteStore(config: S3StorageConfig): OffsiteStore {
  const client = createS3Client(config);
  const Bucket = config.bucket;
  const Key = (key: string) => `${REPOSITORY_PREFIX}${key}`;
  const fail = (action: string, error: unknown): never => {
    throw new OffsiteStoreError(`Could not ${action} the off-site bucket ${Bucket}: ${describeS3Error(error)}`);
  };
  const isMissing = (error: unknown) => {
    const e = error as { name?: string; $metadata?: { httpStatusCode?: number } };
    return e?.name === "NoSuchKey" || (e?.$metadata?.httpStatusCode === 404 && e?.name !== "NoSuchBucket");
  };

  return {
    description: `the bucket ${Bucket}${config.endpoint ? ` (${config.endpoint})` : ""}`,
    async put(key, body, options = {}) {
      try {
        if ("file" in body) return await putFileInBucket(client, Bucket, Key(key), body.file, options.signal);
        await withRetries(options.signal, () =>
          client.send(
            new PutObjectCommand({ Bucket, Key: Key(key), ContentLength: body.bytes.length, Body: body.bytes }),
            {
              abortSignal: options.signal,
            },
          ),
        );
        return body.bytes.length;
      } catch (error) {
        if (options.signal?.aborted) throw error;
        return fail("write to", error);
      }
    },
    async get(key) {
      try {
        const object = await client.send(new GetObjectCommand({ Bucket, Key: Key(key) }));
        return Buffer.from(await object.Body!.transformToByteArray());
      } catch (error) {
        if (isMissing(error)) return null;
        return fail(`read ${key} from`, error);
      }
    },
    async read(key) {
      try {
        const object = await client.send(new GetObjectCommand({ Bucket, Key: Key(key) }));
        return { stream: object.Body as NodeJS.ReadableStream, bytes: Number(object.ContentLength ?? 0) };
      } catch (error) {
        if (isMissing(error)) return null;
        return fail(`read ${key} from`, error);
      }
    },
    async list(prefix) {
      const found: StoredObject[] = [];
      let ContinuationToken: string | undefined;
      try {
        do {
          const page = await client.send(new ListObjectsV2Command({ Bucket, Prefix: Key(prefix), ContinuationToken }));
          for (const object of page.Contents ?? []) {
            found.push({
              key: object.Key!.slice(REPOSITORY_PREFIX.length),
              bytes: object.Size ?? 0,
              modifiedAt: object.LastModified ?? new Date(0),
            });
          }
          ContinuationToken = page.NextContinuationToken;
        } while (ContinuationToken);
      } catch (error) {
        fail("list", error);
      }
      return found.sort((a, b) => (a.key < b.key ? -1 : a.key > b.key ? 1 : 0));
    },
    async remove(key) {
      try {
        await client.send(new DeleteObjectCommand({ Bucket, Key: Key(key) }));
      } catch (error) {
        fail(`delete ${key} from`, error);
      }
    },
    close() {
      client.destroy();
    },
  };
}
