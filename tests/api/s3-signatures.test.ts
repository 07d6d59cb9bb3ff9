// @same-on-every-backend: it picks its own database and storage, or runs scripts on a data directory
/**
 * The verifying front (tests/support/s3-verifying-front.ts) must refuse what
 * S3 refuses, or the S3 tests behind it prove nothing about signatures. Each
 * refusal here comes with the request that differs from it only in the
 * point under test, and that request is accepted.
 */
import { GetObjectCommand, PutObjectCommand, S3Client } from "@aws-sdk/client-s3";
import { getSignedUrl } from "@aws-sdk/s3-request-presigner";
import { Readable } from "node:stream";
import { afterAll, beforeAll, describe, expect, inject, it } from "vitest";
import { createS3Storage } from "~/storage/s3-storage.server";
import type { ObjectStorage } from "~/storage/storage.server";
import {
  S3_TEST_CREDENTIALS,
  S3_TEST_REGION,
  createTestBucket,
  s3ConfigFor,
  type TestBucket,
} from "../support/backends";
import { startVerifyingS3Front, type VerifyingS3Front } from "../support/s3-verifying-front";

const FIFTEEN_MINUTES_MS = 15 * 60 * 1000;

let clock = new Date();
let front: VerifyingS3Front;
let bucket: TestBucket;
let storage: ObjectStorage;

beforeAll(async () => {
  front = await startVerifyingS3Front({
    upstream: inject("backends").s3rverEndpoint,
    credentials: S3_TEST_CREDENTIALS,
    region: S3_TEST_REGION,
    now: () => clock,
  });
  bucket = await createTestBucket(front.endpoint, { siteOrigins: [] });
  storage = await createS3Storage(s3ConfigFor(front.endpoint, bucket.name));
});

afterAll(async () => {
  await storage?.close();
  await bucket?.remove();
  await front?.stop();
});

function clientWith(credentials: { accessKeyId: string; secretAccessKey: string }): S3Client {
  // One attempt: the SDK would otherwise correct its clock from a skew refusal and try again.
  return new S3Client({
    ...s3ConfigFor(front.endpoint, bucket.name),
    credentials,
    requestChecksumCalculation: "WHEN_REQUIRED",
    maxAttempts: 1,
  });
}

const jpegBytes = (size: number) => Buffer.concat([Buffer.from([0xff, 0xd8, 0xff, 0xe0]), Buffer.alloc(size - 4, 7)]);

async function put(url: string, body: Buffer, contentType: string, method = "PUT") {
  const res = await fetch(url, { method, headers: { "Content-Type": contentType }, body: new Uint8Array(body) });
  const text = await res.text();
  return { status: res.status, code: /<Code>([^<]+)<\/Code>/.exec(text)?.[1] ?? null };
}

async function presignedUpload(id: string, declared = { bytes: 1000, contentType: "image/jpeg" }) {
  clock = new Date();
  return (await storage.createUploadTarget(id, new Date(clock.getTime() + FIFTEEN_MINUTES_MS), declared)).uploadURL;
}

describe("the verifying S3 front: presigned URLs", () => {
  it("accepts the URL as signed: the declared size and type, by PUT, in time", async () => {
    const url = await presignedUpload("as-signed");
    expect(new URL(url).searchParams.get("X-Amz-SignedHeaders")).toBe("content-length;content-type;host");
    expect(await put(url, jpegBytes(1000), "image/jpeg")).toEqual({ status: 200, code: null });
    expect(await bucket.keys("incoming/")).toContain("incoming/as-signed");
  });

  it("refuses another Content-Length than the one signed", async () => {
    const url = await presignedUpload("other-length");
    expect(await put(url, jpegBytes(1001), "image/jpeg")).toEqual({ status: 403, code: "SignatureDoesNotMatch" });
    expect(await put(url, jpegBytes(999), "image/jpeg")).toEqual({ status: 403, code: "SignatureDoesNotMatch" });
    expect(await bucket.keys("incoming/other-length")).toEqual([]);
  });

  it("refuses another Content-Type than the one signed", async () => {
    const url = await presignedUpload("other-type");
    expect(await put(url, jpegBytes(1000), "text/html")).toEqual({ status: 403, code: "SignatureDoesNotMatch" });
    expect(await bucket.keys("incoming/other-type")).toEqual([]);
  });

  it("refuses another method than the one signed", async () => {
    const url = await presignedUpload("other-method");
    expect(await put(url, jpegBytes(1000), "image/jpeg", "POST")).toEqual({
      status: 403,
      code: "SignatureDoesNotMatch",
    });
    await storage.write("incoming/other-method", Readable.from([Buffer.from("kept")]));
    const deleted = await fetch(url, { method: "DELETE" });
    expect(deleted.status).toBe(403);
    expect(await bucket.keys("incoming/other-method")).toEqual(["incoming/other-method"]);
  });

  it("refuses the signature on another object key", async () => {
    const url = new URL(await presignedUpload("signed-key"));
    url.pathname = url.pathname.replace("signed-key", "another-key");
    expect(await put(url.toString(), jpegBytes(1000), "image/jpeg")).toEqual({
      status: 403,
      code: "SignatureDoesNotMatch",
    });
    expect(await bucket.keys("incoming/another-key")).toEqual([]);
  });

  it("refuses a URL signed with another secret key, and one with an unknown key id", async () => {
    const command = new PutObjectCommand({
      Bucket: bucket.name,
      Key: "incoming/other-secret",
      ContentLength: 1000,
      ContentType: "image/jpeg",
    });
    const options = { expiresIn: 900, signableHeaders: new Set(["content-length", "content-type"]) };
    clock = new Date();
    const wrongSecret = await getSignedUrl(
      clientWith({ ...S3_TEST_CREDENTIALS, secretAccessKey: "not-the-secret" }),
      command,
      options,
    );
    expect(await put(wrongSecret, jpegBytes(1000), "image/jpeg")).toEqual({
      status: 403,
      code: "SignatureDoesNotMatch",
    });
    const unknownKey = await getSignedUrl(
      clientWith({ accessKeyId: "SOMEONE", secretAccessKey: "S3RVER" }),
      command,
      options,
    );
    expect(await put(unknownKey, jpegBytes(1000), "image/jpeg")).toEqual({ status: 403, code: "InvalidAccessKeyId" });
    const right = await getSignedUrl(clientWith(S3_TEST_CREDENTIALS), command, options);
    expect(await put(right, jpegBytes(1000), "image/jpeg")).toEqual({ status: 200, code: null });
  });

  it("refuses a URL after it expires, and accepts it up to then", async () => {
    const url = await presignedUpload("expiring");
    const issued = clock;
    clock = new Date(issued.getTime() + FIFTEEN_MINUTES_MS - 1000);
    expect(await put(url, jpegBytes(1000), "image/jpeg")).toEqual({ status: 200, code: null });
    clock = new Date(issued.getTime() + FIFTEEN_MINUTES_MS + 1000);
    expect(await put(url, jpegBytes(1000), "image/jpeg")).toEqual({ status: 403, code: "AccessDenied" });
    expect(front.refusals.at(-1)).toMatchObject({ code: "AccessDenied", method: "PUT" });
  });

  it("refuses a changed expiry: the signature covers it", async () => {
    const url = new URL(await presignedUpload("longer"));
    url.searchParams.set("X-Amz-Expires", "604800");
    expect(await put(url.toString(), jpegBytes(1000), "image/jpeg")).toEqual({
      status: 403,
      code: "SignatureDoesNotMatch",
    });
  });
});

describe("the verifying S3 front: signed requests and none", () => {
  it("refuses a request with no signature at all, but lets a browser's CORS preflight through", async () => {
    await storage.write("originals/unsigned", Readable.from([Buffer.from("private")]));
    const read = await fetch(`${front.endpoint}/${bucket.name}/originals/unsigned`);
    expect(read.status).toBe(403);
    expect(await read.text()).toContain("<Code>AccessDenied</Code>");
    const write = await fetch(`${front.endpoint}/${bucket.name}/incoming/unsigned`, { method: "PUT", body: "x" });
    expect(write.status).toBe(403);
    const preflight = await fetch(`${front.endpoint}/${bucket.name}/incoming/x`, {
      method: "OPTIONS",
      headers: { Origin: "http://127.0.0.1:3000", "Access-Control-Request-Method": "PUT" },
    });
    // s3rver answers it (this bucket has no CORS rule: 403 from s3rver, not the front's refusal).
    expect(front.refusals.filter((r) => r.method === "OPTIONS")).toEqual([]);
    await preflight.arrayBuffer();
  });

  it("accepts the SDK's header-signed requests with the right key and refuses them with another", async () => {
    clock = new Date();
    const right = clientWith(S3_TEST_CREDENTIALS);
    await right.send(
      new PutObjectCommand({ Bucket: bucket.name, Key: "backups/signed", Body: Buffer.from("archive") }),
    );
    const got = await right.send(new GetObjectCommand({ Bucket: bucket.name, Key: "backups/signed" }));
    expect(await got.Body!.transformToString()).toBe("archive");
    const wrong = clientWith({ ...S3_TEST_CREDENTIALS, secretAccessKey: "not-the-secret" });
    await expect(
      wrong.send(new GetObjectCommand({ Bucket: bucket.name, Key: "backups/signed" })),
    ).rejects.toMatchObject({
      name: "SignatureDoesNotMatch",
    });
    right.destroy();
    wrong.destroy();
  });

  it("refuses a header-signed body that is not the one whose hash was signed", async () => {
    clock = new Date();
    const client = clientWith(S3_TEST_CREDENTIALS);
    // After signing, the body is swapped for another of the same length.
    type Middleware = Parameters<typeof client.middlewareStack.addRelativeTo>[0];
    const tamper =
      (next: (args: { request: { body: unknown } }) => Promise<unknown>) =>
      async (args: { request: { body: unknown } }) => {
        args.request.body = Buffer.from("tampered");
        return next(args);
      };
    client.middlewareStack.addRelativeTo(tamper as unknown as Middleware, {
      relation: "after",
      toMiddleware: "awsAuthMiddleware",
      name: "tamperAfterSigning",
    });
    await expect(
      client.send(
        new PutObjectCommand({ Bucket: bucket.name, Key: "backups/tampered", Body: Buffer.from("original") }),
      ),
    ).rejects.toMatchObject({
      name: "XAmzContentSHA256Mismatch",
    });
    expect(await bucket.keys("backups/tampered")).toEqual([]);
    client.destroy();
  });

  it("refuses a header-signed request whose clock is more than 15 minutes off", async () => {
    const client = clientWith(S3_TEST_CREDENTIALS);
    clock = new Date(Date.now() + 60 * 60 * 1000);
    try {
      await expect(
        client.send(new GetObjectCommand({ Bucket: bucket.name, Key: "backups/signed" })),
      ).rejects.toMatchObject({
        $metadata: { httpStatusCode: 403 },
      });
      expect(front.refusals.at(-1)?.code).toBe("RequestTimeTooSkewed");
    } finally {
      clock = new Date();
      client.destroy();
    }
  });
});
