/**
 * The tests' S3 server must survive what two servers starting at once do to
 * it: each PUTs a small probe to incoming/ and deletes it at once (the
 * start-up ETag check). s3rver alone answered such a PUT before writing it,
 * and crashed the test process with ENOENT (tests/support/s3-backend.ts).
 */
import { DeleteObjectCommand, PutObjectCommand } from "@aws-sdk/client-s3";
import { afterAll, beforeAll, expect, it } from "vitest";
import { createS3Client } from "~/storage/s3-storage.server";
import { s3ConfigFor, startS3Server, type S3Server } from "../support/s3-backend";
import { createTestBucket, type TestBucket } from "../support/backends";
import { until } from "../support/until";

let s3: S3Server;
let bucket: TestBucket;

beforeAll(async () => {
  s3 = await startS3Server({ verifySignatures: false });
  bucket = await createTestBucket(s3.endpoint, { siteOrigins: [] });
});

afterAll(async () => {
  await bucket?.remove();
  await s3?.stop();
});

it("answers probes put and deleted at once by two servers, 200 times each", async () => {
  const client = createS3Client(s3ConfigFor(s3.endpoint, bucket.name));
  const failures: unknown[] = [];
  const crashed: unknown[] = [];
  const onCrash = (error: unknown) => crashed.push(error);
  process.on("uncaughtException", onCrash);
  try {
    await Promise.all(
      ["a", "b"].map(async (server) => {
        for (let round = 0; round < 200; round++) {
          const Key = `incoming/etag-probe-${server}-${round}`;
          try {
            await client.send(new PutObjectCommand({ Bucket: bucket.name, Key, Body: "ok" }));
            await client.send(new DeleteObjectCommand({ Bucket: bucket.name, Key }));
          } catch (error) {
            failures.push(error);
          }
        }
      }),
    );
    // s3rver answers a PUT while its file may still be opening: wait until no file request of this
    // process is pending, so whatever one of them throws has been thrown.
    await until(() => !process.getActiveResourcesInfo().includes("FSReqCallback"));
    await new Promise((resolve) => setImmediate(resolve));
  } finally {
    process.off("uncaughtException", onCrash);
    client.destroy();
  }
  expect(crashed.map(String)).toEqual([]);
  expect(failures.map(String)).toEqual([]);
});
