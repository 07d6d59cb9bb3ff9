import { createHash, createHmac } from "node:crypto";
import { mkdtemp, rm, truncate, writeFile } from "node:fs/promises";
import os from "node:os";
import path from "node:path";
import { Readable } from "node:stream";
import { HeadObjectCommand } from "@aws-sdk/client-s3";
import { afterEach, beforeEach, describe, expect, inject, it } from "vitest";
import { S3_TEST_CREDENTIALS, createTestBucket, s3ConfigFor, type TestBucket } from "../../tests/support/backends";
import { createCuttingLink } from "../../tests/support/cutting-link";
import { createS3Storage } from "./s3-storage.server";
import { StorageCheckError } from "./storage-errors.server";
import type { ObjectStorage } from "./storage.server";

// Against the run's S3 server (s3rver behind the verifying front, started by tests/support/vitest-backends.ts).
const endpoint = inject("backends").s3Endpoint;
const SITE = "http://127.0.0.1:3000";

let bucket: TestBucket;
let storage: ObjectStorage;
beforeEach(async () => {
  bucket = await createTestBucket(endpoint, { siteOrigins: [SITE] });
  storage = await createS3Storage(s3ConfigFor(endpoint, bucket.name));
});
afterEach(async () => {
  await storage.close();
  await bucket.remove();
});

async function readAll(stream: Readable): Promise<Buffer> {
  const chunks: Buffer[] = [];
  for await (const chunk of stream) chunks.push(chunk as Buffer);
  return Buffer.concat(chunks);
}

// ---------------------------------------------------------------------------------------------
// s3rver checks no signatures. The tests' S3 endpoint is the verifying front
// (tests/support/s3-verifying-front.ts, the SDK's own signer); the presigned URLs are also checked
// here, by an independent AWS Signature V4 verifier (the algorithm as AWS documents it for
// query-string auth).

const hmac = (key: string | Buffer, data: string) => createHmac("sha256", key).update(data, "utf8").digest();
const sha256Hex = (data: string) => createHash("sha256").update(data, "utf8").digest("hex");
const rfc3986 = (value: string) =>
  encodeURIComponent(value).replace(/[!'()*]/g, (c) => `%${c.charCodeAt(0).toString(16).toUpperCase()}`);

/** Whether an S3 server holding `secret` would accept `method` on `url` at `now`. */
function s3WouldAccept(url: string, method: string, secret: string, now: Date): boolean {
  const parsed = new URL(url);
  const params = [...parsed.searchParams.entries()];
  const get = (name: string) => parsed.searchParams.get(name) ?? "";
  const amzDate = get("X-Amz-Date");
  const [, scopeDate, region, service] = get("X-Amz-Credential").split("/");
  const signedAt = Date.UTC(
    Number(amzDate.slice(0, 4)),
    Number(amzDate.slice(4, 6)) - 1,
    Number(amzDate.slice(6, 8)),
    Number(amzDate.slice(9, 11)),
    Number(amzDate.slice(11, 13)),
    Number(amzDate.slice(13, 15)),
  );
  if (now.getTime() > signedAt + Number(get("X-Amz-Expires")) * 1000) return false;

  const canonicalQuery = params
    .filter(([name]) => name !== "X-Amz-Signature")
    .map(([name, value]) => [rfc3986(name), rfc3986(value)])
    .sort(([a], [b]) => (a! < b! ? -1 : a! > b! ? 1 : 0))
    .map(([name, value]) => `${name}=${value}`)
    .join("&");
  const signedHeaders = get("X-Amz-SignedHeaders");
  const canonicalHeaders = signedHeaders
    .split(";")
    .map((name) => `${name}:${name === "host" ? parsed.host : ""}\n`)
    .join("");
  const canonicalRequest = [
    method,
    parsed.pathname,
    canonicalQuery,
    canonicalHeaders,
    signedHeaders,
    get("X-Amz-Content-Sha256"),
  ].join("\n");
  const scope = `${scopeDate}/${region}/${service}/aws4_request`;
  const stringToSign = ["AWS4-HMAC-SHA256", amzDate, scope, sha256Hex(canonicalRequest)].join("\n");
  const key = hmac(hmac(hmac(hmac(`AWS4${secret}`, scopeDate!), region!), service!), "aws4_request");
  return createHmac("sha256", key).update(stringToSign).digest("hex") === get("X-Amz-Signature");
}

describe("S3 storage: presigned upload URLs", () => {
  const secret = S3_TEST_CREDENTIALS.secretAccessKey;
  const id = "0b5c3d0e-8a51-4bb5-9d7e-1f2a3b4c5d6e";

  it("signs a PUT of exactly one key, under incoming/", async () => {
    const issuedAt = new Date();
    const { uploadURL, key } = await storage.createUploadTarget(id, new Date(issuedAt.getTime() + 15 * 60_000));
    expect(key).toBe(`incoming/${id}`);
    expect(new URL(uploadURL).pathname).toBe(`/${bucket.name}/incoming/${id}`);
    expect(s3WouldAccept(uploadURL, "PUT", secret, issuedAt)).toBe(true);

    // The signature covers the path and the method: the URL is good for nothing else.
    const otherKey = new URL(uploadURL);
    otherKey.pathname = `/${bucket.name}/originals/${id}`;
    expect(s3WouldAccept(otherKey.toString(), "PUT", secret, issuedAt)).toBe(false);
    const otherId = new URL(uploadURL);
    otherId.pathname = `/${bucket.name}/incoming/${id.replace(/e$/, "f")}`;
    expect(s3WouldAccept(otherId.toString(), "PUT", secret, issuedAt)).toBe(false);
    expect(s3WouldAccept(uploadURL, "DELETE", secret, issuedAt)).toBe(false);
    expect(s3WouldAccept(uploadURL, "PUT", "another secret", issuedAt)).toBe(false);
  });

  it("expires 15 minutes after it is issued, and the expiry cannot be stretched", async () => {
    const issuedAt = new Date();
    const { uploadURL } = await storage.createUploadTarget(id, new Date(issuedAt.getTime() + 15 * 60_000));
    const url = new URL(uploadURL);
    expect(url.searchParams.get("X-Amz-Expires")).toBe("900");
    const signedAt = new Date(
      url.searchParams.get("X-Amz-Date")!.replace(/^(\d{4})(\d\d)(\d\d)T(\d\d)(\d\d)(\d\d)Z$/, "$1-$2-$3T$4:$5:$6Z"),
    );
    expect(s3WouldAccept(uploadURL, "PUT", secret, new Date(signedAt.getTime() + 899_000))).toBe(true);
    expect(s3WouldAccept(uploadURL, "PUT", secret, new Date(signedAt.getTime() + 901_000))).toBe(false);
    const stretched = new URL(uploadURL);
    stretched.searchParams.set("X-Amz-Expires", "86400");
    expect(s3WouldAccept(stretched.toString(), "PUT", secret, new Date(signedAt.getTime() + 901_000))).toBe(false);
  });

  it("bakes in no checksum (R2 and others refuse one) and, without a declaration, signs only the host header", async () => {
    const { uploadURL } = await storage.createUploadTarget(id, new Date(Date.now() + 15 * 60_000));
    const url = new URL(uploadURL);
    expect([...url.searchParams.keys()].filter((name) => /checksum/i.test(name))).toEqual([]);
    expect(url.searchParams.get("X-Amz-SignedHeaders")).toBe("host");
    // Any Content-Type the phone sends goes through: the bucket stores it as sent.
    const put = await fetch(uploadURL, { method: "PUT", headers: { "Content-Type": "image/heic" }, body: "x" });
    expect(put.status).toBe(200);
  });

  it("with a declaration, signs Content-Length and Content-Type: only that file is taken", async () => {
    const { uploadURL } = await storage.createUploadTarget(id, new Date(Date.now() + 15 * 60_000), {
      bytes: 5,
      contentType: "image/png",
    });
    expect(new URL(uploadURL).searchParams.get("X-Amz-SignedHeaders")).toBe("content-length;content-type;host");
    expect(
      (await fetch(uploadURL, { method: "PUT", headers: { "Content-Type": "image/png" }, body: "12345678" })).status,
    ).toBe(403);
    expect(
      (await fetch(uploadURL, { method: "PUT", headers: { "Content-Type": "text/html" }, body: "12345" })).status,
    ).toBe(403);
    expect(
      (await fetch(uploadURL, { method: "PUT", headers: { "Content-Type": "image/png" }, body: "12345" })).status,
    ).toBe(200);
  });

  it("recognises only its own upload URLs", async () => {
    const { uploadURL } = await storage.createUploadTarget(id, new Date(Date.now() + 60_000));
    const own = ["http://127.0.0.1:3000"];
    expect(storage.objectIdFromUploadUrl(new URL(uploadURL), own)).toBe(id);
    const otherBucket = new URL(uploadURL);
    otherBucket.pathname = otherBucket.pathname.replace(bucket.name, "another-bucket");
    expect(storage.objectIdFromUploadUrl(otherBucket, own)).toBeNull();
    const otherHost = new URL(uploadURL);
    otherHost.host = "evil.example";
    expect(storage.objectIdFromUploadUrl(otherHost, own)).toBeNull();
    const otherPrefix = new URL(uploadURL);
    otherPrefix.pathname = otherPrefix.pathname.replace("incoming/", "originals/");
    expect(storage.objectIdFromUploadUrl(otherPrefix, own)).toBeNull();
    expect(storage.objectIdFromUploadUrl(new URL(`/api/uploads/${id}`, own[0]), own)).toBeNull();
    expect(storage.verifyUploadTarget(id, { expires: "1", signature: "0".repeat(64) })).toBe("invalid");
  });
});

describe("S3 storage: objects", () => {
  it("writes, reads, sizes, reads the first bytes of, moves and deletes objects", async () => {
    const body = Buffer.from("stonemasonry in Taranaki, more than thirty-two bytes long");
    const written = await storage.write("originals/a-1", Readable.from([body.subarray(0, 10), body.subarray(10)]));
    expect(written.bytes).toBe(body.length);
    expect(written.head.equals(body.subarray(0, 32))).toBe(true);
    expect(await storage.stat("originals/a-1")).toEqual({ bytes: body.length });
    expect(await storage.readHead("originals/a-1", 12)).toEqual(body.subarray(0, 12));
    const read = await storage.read("originals/a-1");
    expect(read?.bytes).toBe(body.length);
    expect(await readAll(read!.stream)).toEqual(body);

    await storage.move("originals/a-1", "originals/b-2", { contentType: "image/png" });
    expect(await storage.exists("originals/a-1")).toBe(false);
    expect(await storage.stat("originals/b-2")).toEqual({ bytes: body.length });
    // Stored as the type it was moved with, whatever it was written as.
    const moved = await bucket.client.send(new HeadObjectCommand({ Bucket: bucket.name, Key: "originals/b-2" }));
    expect(moved.ContentType).toBe("image/png");
    await storage.delete("originals/b-2");
    await storage.delete("originals/b-2");
    expect(await bucket.keys()).toEqual([]);
  });

  // (Not the first bytes of an empty object: s3rver answers that ranged GET with a broken 206,
  // where S3 answers 416. Registration never asks: it sizes the object first.)
  it("answers null for missing objects", async () => {
    expect(await storage.read("originals/none")).toBeNull();
    expect(await storage.stat("originals/none")).toBeNull();
    expect(await storage.readHead("originals/none", 32)).toBeNull();
    await expect(storage.move("originals/none", "originals/other")).rejects.toThrow();
  });

  it("stores variants with their image type and immutable caching (for MEDIA_BASE_URL)", async () => {
    await storage.write("variants/0123456789abcdef0123.avif", Readable.from([Buffer.from("avif")]));
    const res = await fetch(`${endpoint}/${bucket.name}/variants/0123456789abcdef0123.avif`);
    expect(res.headers.get("content-type")).toBe("image/avif");
    expect(res.headers.get("cache-control")).toBe("public, max-age=31536000, immutable");
  });

  it("writeFile streams a local file in (a backup archive); list pages through the keys under a prefix", async () => {
    const dir = await mkdtemp(path.join(os.tmpdir(), "cornerstone-bucket-file-"));
    try {
      const file = path.join(dir, "archive.tar.gz");
      await writeFile(file, Buffer.alloc(300_000, 7));
      expect(await storage.writeFile("backups/cornerstone-20260101-000000.tar.gz", file)).toEqual({ bytes: 300_000 });
    } finally {
      await rm(dir, { recursive: true, force: true });
    }
    expect(await storage.stat("backups/cornerstone-20260101-000000.tar.gz")).toEqual({ bytes: 300_000 });
    await storage.write("variants/0123456789abcdef0123.jpg", Readable.from([Buffer.from("jpg")]));
    expect(await storage.list("backups/")).toEqual([
      { key: "backups/cornerstone-20260101-000000.tar.gz", bytes: 300_000 },
    ]);
    expect((await storage.list("")).map((o) => o.key)).toEqual([
      "backups/cornerstone-20260101-000000.tar.gz",
      "variants/0123456789abcdef0123.jpg",
    ]);
  });

  it("an abort stops writeFile mid-upload and leaves no object (a backup stopped at shutdown)", async () => {
    // The upload goes through a link that holds it after its first megabyte: it is surely mid-way
    // when the abort comes. The hold is then released, so an upload that ignored the abort would finish.
    const link = createCuttingLink();
    const linked = await createS3Storage(s3ConfigFor(await link.proxy(endpoint), bucket.name));
    const dir = await mkdtemp(path.join(os.tmpdir(), "cornerstone-bucket-file-"));
    try {
      const file = path.join(dir, "archive.tar.gz");
      await writeFile(file, "");
      await truncate(file, 32 * 1024 * 1024);
      const midway = link.holdAfterBodyBytes(1024 * 1024);
      const stop = new AbortController();
      const upload = linked.writeFile("backups/cornerstone-20260101-010000.tar.gz", file, { signal: stop.signal });
      await midway;
      stop.abort(new Error("shutting down"));
      link.releaseHold();
      await expect(upload).rejects.toThrow();
    } finally {
      await linked.close();
      await link.stop();
      await rm(dir, { recursive: true, force: true });
    }
    expect(await storage.exists("backups/cornerstone-20260101-010000.tar.gz")).toBe(false);
  });

  it("refuses keys outside the safe alphabet", async () => {
    await expect(storage.stat("../etc/passwd")).rejects.toThrow(/Invalid storage key/);
    await expect(storage.createUploadTarget("a/b", new Date())).rejects.toThrow(/Invalid object id/);
  });
});

describe("S3 storage: the start-up check", () => {
  it("passes when the bucket can be written and read, and its CORS rule lets the site PUT", async () => {
    await expect(storage.check({ siteOrigin: SITE })).resolves.toBeUndefined();
    expect(await bucket.keys()).toEqual([]);
  });

  it("refuses a bucket whose CORS rule does not allow the site, and prints the rule to set", async () => {
    const error = await storage.check({ siteOrigin: "https://stone.example.nz" }).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(StorageCheckError);
    expect((error as Error).message).toContain("Browsers cannot upload");
    expect((error as Error).message).toContain('"AllowedOrigins":["https://stone.example.nz"]');
    expect((error as Error).message).toContain('"AllowedMethods":["PUT"]');
  });

  it("without SITE_URL, advises no CORS origin at all: it asks for SITE_URL", async () => {
    const error = await storage
      .check({ siteOrigin: "http://localhost:3000", siteUrlGiven: false })
      .catch((e: unknown) => e);
    expect(error).toBeInstanceOf(StorageCheckError);
    const { message } = error as Error;
    expect(message).toContain(
      "SITE_URL is not set, so this check stood in http://localhost:3000 for the site's address",
    );
    expect(message).toContain("Set SITE_URL to the address visitors use");
    expect(message).not.toContain("AllowedOrigins");
    expect(message).not.toContain("put-bucket-cors");
  });

  it("refuses a bucket without any CORS rule", async () => {
    const bare = await createTestBucket(endpoint, { siteOrigins: [] });
    const bareStorage = await createS3Storage(s3ConfigFor(endpoint, bare.name));
    try {
      await expect(bareStorage.check({ siteOrigin: SITE })).rejects.toThrow(/refused the browser's CORS preflight/);
    } finally {
      await bareStorage.close();
      await bare.remove();
    }
  });

  it("refuses a bucket that does not exist, saying which settings to check", async () => {
    const missing = await createS3Storage(s3ConfigFor(endpoint, "no-such-bucket"));
    try {
      const error = await missing.check({ siteOrigin: SITE }).catch((e: unknown) => e);
      expect(error).toBeInstanceOf(StorageCheckError);
      expect((error as Error).message).toMatch(
        /Cannot write and read the S3 bucket "no-such-bucket" at http:\/\/127\.0\.0\.1:\d+: NoSuchBucket/,
      );
      expect((error as Error).message).toContain("S3_BUCKET");
    } finally {
      await missing.close();
    }
  });
});
