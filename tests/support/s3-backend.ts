/**
 * The throwaway S3 server of the tests: s3rver in a temp directory, by default behind the
 * signature-verifying front; each test context makes its own bucket.
 */
import { execFileSync } from "node:child_process";
import { createHash, randomBytes } from "node:crypto";
import fs from "node:fs/promises";
import os from "node:os";
import path from "node:path";
import type { Readable } from "node:stream";
import {
  CreateBucketCommand,
  DeleteBucketCommand,
  DeleteObjectCommand,
  ListObjectsV2Command,
  PutBucketCorsCommand,
  type S3Client,
} from "@aws-sdk/client-s3";
import S3rver from "s3rver";
import { requiredCorsRule } from "~/storage/s3-cors-check.server";
import { createS3Client, type S3StorageConfig } from "~/storage/s3-storage.server";
import { OWNER_FILE, S3_PREFIX, onInterrupt } from "./backend-dirs";
import { startVerifyingS3Front } from "./s3-verifying-front";

/** The key pair the tests present; the verifying front checks every signature against it (s3rver itself checks none). */
export const S3_TEST_CREDENTIALS = { accessKeyId: "S3RVER", secretAccessKey: "S3RVER" } as const;
export const S3_TEST_REGION = "us-east-1";

export type S3Server = {
  /** Where clients go: the signature-verifying front (tests/support/s3-verifying-front.ts), or s3rver itself. */
  endpoint: string;
  /** s3rver itself, which serves everything to anyone: a public bucket. */
  s3rverEndpoint: string;
  stop(): Promise<void>;
};

/**
 * s3rver in a temp directory. By default behind the verifying front, which
 * checks every signature as S3 does and keeps buckets private but for
 * `variants/`; with
 * `verifySignatures: false`, clients talk to s3rver directly.
 */
export async function startS3Server(options: { verifySignatures?: boolean } = {}): Promise<S3Server> {
  const dir = await fs.mkdtemp(path.join(os.tmpdir(), S3_PREFIX));
  await fs.writeFile(path.join(dir, OWNER_FILE), String(process.pid));
  const server = new S3rver({ port: 0, address: "127.0.0.1", silent: true, directory: path.join(dir, "buckets") });
  writeBeforeAnswering((server as unknown as { store: FilesystemStore }).store);
  const forget = onInterrupt(() => execFileSync("rm", ["-rf", dir]));
  const { port } = await server.run();
  const s3rverEndpoint = `http://127.0.0.1:${port}`;
  const front =
    options.verifySignatures === false
      ? null
      : await startVerifyingS3Front({
          upstream: s3rverEndpoint,
          credentials: S3_TEST_CREDENTIALS,
          region: S3_TEST_REGION,
          // As the README asks: only variants/ public (for MEDIA_BASE_URL), everything else private.
          publicPrefixes: ["variants/"],
        });
  return {
    endpoint: front?.endpoint ?? s3rverEndpoint,
    s3rverEndpoint,
    async stop() {
      forget();
      await front?.stop();
      await server.close();
      await fs.rm(dir, { recursive: true, force: true });
    },
  };
}

type S3rverObject = { bucket: string; key: string; content: Buffer | Readable; metadata: Record<string, string> };
type FilesystemStore = {
  getResourcePath(bucket: string, key: string, resource: string): string;
  putMetadata(bucket: string, key: string, metadata: Record<string, string>, md5: string): Promise<void>;
  putObject(object: S3rverObject): Promise<{ size: number; md5: string }>;
};

/**
 * s3rver's putObject answers before its file is open (it resolves on `end()`
 * of a write stream with no error listener), and a DELETE removes `incoming/`
 * once it looks empty: a probe deleted by one server while another's was
 * still opening crashed the test process with ENOENT. This putObject writes
 * the whole file first, and makes the folder again if a delete just took it.
 */
function writeBeforeAnswering(store: FilesystemStore) {
  store.putObject = async (object) => {
    const content = Buffer.isBuffer(object.content) ? object.content : Buffer.concat(await object.content.toArray());
    const objectPath = store.getResourcePath(object.bucket, object.key, "object");
    for (let attempt = 1; ; attempt++) {
      try {
        await fs.mkdir(path.dirname(objectPath), { recursive: true });
        await fs.writeFile(objectPath, content);
        break;
      } catch (error) {
        if ((error as NodeJS.ErrnoException).code !== "ENOENT" || attempt === 5) throw error;
      }
    }
    const md5 = createHash("md5").update(content).digest("hex");
    await store.putMetadata(object.bucket, object.key, object.metadata, md5);
    return { size: content.length, md5 };
  };
}

export function s3ConfigFor(endpoint: string, bucket: string): S3StorageConfig {
  return {
    kind: "s3",
    bucket,
    region: S3_TEST_REGION,
    endpoint,
    forcePathStyle: true,
    credentials: { ...S3_TEST_CREDENTIALS },
  };
}

/** The settings that point the server at a bucket of the test S3 server. */
export function s3Env(endpoint: string, bucket: string): Record<string, string> {
  return {
    S3_BUCKET: bucket,
    S3_REGION: S3_TEST_REGION,
    S3_ENDPOINT: endpoint,
    S3_FORCE_PATH_STYLE: "true",
    S3_ACCESS_KEY_ID: S3_TEST_CREDENTIALS.accessKeyId,
    S3_SECRET_ACCESS_KEY: S3_TEST_CREDENTIALS.secretAccessKey,
  };
}

/** The off-site bucket's settings (BACKUP_S3_*) for a bucket on this test server. */
export function offsiteS3Env(endpoint: string, bucket: string): Record<string, string> {
  return {
    BACKUP_S3_BUCKET: bucket,
    BACKUP_S3_ENDPOINT: endpoint,
    BACKUP_S3_REGION: S3_TEST_REGION,
    BACKUP_S3_FORCE_PATH_STYLE: "true",
    BACKUP_S3_ACCESS_KEY_ID: S3_TEST_CREDENTIALS.accessKeyId,
    BACKUP_S3_SECRET_ACCESS_KEY: S3_TEST_CREDENTIALS.secretAccessKey,
  };
}

export type TestBucket = {
  name: string;
  client: S3Client;
  /** Every key in the bucket (under `prefix`), sorted. */
  keys(prefix?: string): Promise<string[]>;
  remove(): Promise<void>;
};

/**
 * A fresh bucket whose CORS rule lets `siteOrigins` PUT (the rule the README
 * asks for); pass `[]` for a bucket without CORS.
 */
export async function createTestBucket(endpoint: string, options: { siteOrigins: string[] }): Promise<TestBucket> {
  const name = `t-${randomBytes(8).toString("hex")}`;
  const client = createS3Client(s3ConfigFor(endpoint, name));
  await client.send(new CreateBucketCommand({ Bucket: name }));
  if (options.siteOrigins.length) {
    const rules = options.siteOrigins.map((origin) => requiredCorsRule(origin));
    await client.send(new PutBucketCorsCommand({ Bucket: name, CORSConfiguration: { CORSRules: rules } }));
  }
  const keys = async (prefix?: string) => {
    const found: string[] = [];
    let token: string | undefined;
    do {
      const page = await client.send(
        new ListObjectsV2Command({ Bucket: name, Prefix: prefix, ContinuationToken: token }),
      );
      found.push(...(page.Contents ?? []).map((object) => object.Key!));
      token = page.NextContinuationToken;
    } while (token);
    return found.sort();
  };
  return {
    name,
    client,
    keys,
    async remove() {
      try {
        for (const key of await keys()) await client.send(new DeleteObjectCommand({ Bucket: name, Key: key }));
        await client.send(new DeleteBucketCommand({ Bucket: name }));
      } finally {
        client.destroy();
      }
    },
  };
}
