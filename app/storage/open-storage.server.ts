import path from "node:path";
import type { Env } from "~/env.server";
import { createS3Storage, type S3StorageConfig } from "./s3-storage.server";
import { createLocalStorage } from "./local-storage.server";
import type { ObjectStorage } from "./storage.server";

export type LocalStorageConfig = { kind: "local"; rootDir: string; signingSecret: string };

/** Which storage to open, as a plain object: an image worker opens its own from it. */
export type StorageConfig = LocalStorageConfig | S3StorageConfig;

/** `S3_BUCKET` switches to the bucket; otherwise `DATA_DIR/uploads` on the local disk. */
export function storageConfigFor(env: Env, signingSecret: string): StorageConfig {
  if (env.S3_BUCKET) {
    return s3ConfigOf({
      bucket: env.S3_BUCKET,
      region: env.S3_REGION,
      endpoint: env.S3_ENDPOINT,
      forcePathStyle: env.S3_FORCE_PATH_STYLE,
      accessKeyId: env.S3_ACCESS_KEY_ID,
      secretAccessKey: env.S3_SECRET_ACCESS_KEY,
    });
  }
  return { kind: "local", rootDir: path.join(env.DATA_DIR, "uploads"), signingSecret };
}

/** A bucket's settings as the environment gives them (the photo bucket's S3_*, the off-site BACKUP_S3_*). */
export function s3ConfigOf(settings: {
  bucket: string;
  region?: string;
  endpoint?: string;
  forcePathStyle: boolean;
  accessKeyId?: string;
  secretAccessKey?: string;
}): S3StorageConfig {
  const { accessKeyId, secretAccessKey } = settings;
  return {
    kind: "s3",
    bucket: settings.bucket,
    region: settings.region ?? "us-east-1",
    endpoint: settings.endpoint,
    forcePathStyle: settings.forcePathStyle,
    // Both or neither (env.server.ts); neither: the provider's default chain.
    credentials: accessKeyId && secretAccessKey ? { accessKeyId, secretAccessKey } : undefined,
  };
}

export async function openObjectStorage(config: StorageConfig): Promise<ObjectStorage> {
  return config.kind === "s3" ? createS3Storage(config) : createLocalStorage(config);
}
