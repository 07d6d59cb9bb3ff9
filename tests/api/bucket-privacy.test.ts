/**
 * At start-up the site probes each private prefix of its
 * bucket without a key, through the bucket's endpoint and MEDIA_BASE_URL's
 * addresses; what answers is logged as an error and shown on the dashboard.
 * A private bucket is the verifying front (tests/support/s3-verifying-front.ts,
 * private but for variants/); a public one is s3rver itself, which serves
 * everything to anyone.
 */
import { createServer, request as forward, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import { afterEach, describe, expect, inject, it } from "vitest";
import { checkBucketPrivacy, mediaAddresses, PRIVATE_PREFIXES } from "~/storage/bucket-privacy.server";
import { createS3Storage } from "~/storage/s3-storage.server";
import { StorageCheckError } from "~/storage/storage-errors.server";
import { ERROR_LEVEL, capturingLogger } from "../support/backup-site";
import { createTestBucket, s3ConfigFor, s3Env, type TestBucket } from "../support/backends";
import { ADMIN, createTestContext, signedInAgent, type TestContext } from "./helpers";

const NOTICE = "Anyone on the internet can download your backups and original photos. Make the bucket private.";
/** Where the test contexts' sites are (SITE_URL unset): the bucket's CORS rule names it. */
const SITE_ORIGIN = "http://localhost:3000";

const cleanups: (() => Promise<unknown>)[] = [];
afterEach(async () => {
  for (const cleanup of cleanups.splice(0).reverse()) await cleanup().catch(() => {});
});

async function site(env: Record<string, string>, options: { storage?: "disk" | "s3" } = {}) {
  const captured = capturingLogger();
  const ctx: TestContext = await createTestContext(
    { ADMIN_USERNAME: ADMIN.username, ADMIN_PASSWORD: ADMIN.password, ...env },
    { storage: options.storage ?? "disk", logger: captured.logger },
  );
  cleanups.push(() => ctx.close());
  const { ensureAdministrator } = await import("~/auth/auth.server");
  await ensureAdministrator(ctx.services, ADMIN);
  const admin = await signedInAgent(ctx);
  const privacy = async () =>
    (await admin.get("/api/admin/storage/privacy").expect(200)).body as Record<string, unknown>;
  const errors = () => captured.lines.filter((line) => line.level >= ERROR_LEVEL);
  return { ctx, privacy, errors };
}

/** A bucket on s3rver itself: anyone can read every object in it. */
async function publicBucket(): Promise<{ env: Record<string, string>; bucket: TestBucket; endpoint: string }> {
  const endpoint = inject("backends").s3rverEndpoint;
  const bucket = await createTestBucket(endpoint, { siteOrigins: [SITE_ORIGIN] });
  cleanups.push(() => bucket.remove());
  return { env: s3Env(endpoint, bucket.name), bucket, endpoint };
}

/** A CDN in front of the bucket: it fetches every path from s3rver (which needs no key) and serves it to anyone. */
async function openCdn(): Promise<string> {
  const upstream = new URL(inject("backends").s3rverEndpoint);
  const server: Server = createServer((req, res) => {
    const upstreamReq = forward(
      { host: upstream.hostname, port: upstream.port, path: req.url, method: req.method },
      (upstreamRes) => {
        res.writeHead(upstreamRes.statusCode ?? 502, upstreamRes.headers);
        upstreamRes.pipe(res);
      },
    );
    upstreamReq.on("error", () => res.writeHead(502).end());
    upstreamReq.end();
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  cleanups.push(() => new Promise((resolve) => server.close(resolve)));
  return `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
}

describe("the start-up bucket privacy check", () => {
  it("covers uploads waiting to be checked, originals, backups and visitors' photos", () => {
    expect(PRIVATE_PREFIXES).toEqual(["incoming/", "originals/", "backups/", "enquiry-photos/"]);
  });

  it("finds a public bucket: logs an error, and the dashboard's API gives the notice and the addresses that answered", async () => {
    const { env, bucket, endpoint } = await publicBucket();
    const { privacy, errors } = await site(env);
    const probes = ["incoming/", "originals/", "backups/", "enquiry-photos/"].map(
      (prefix) => `${endpoint}/${bucket.name}/${prefix}privacy-probe`,
    );
    expect(await privacy()).toEqual({ status: "public", readableAt: probes, message: NOTICE });
    expect(errors()).toHaveLength(1);
    expect(errors()[0]!.msg).toContain(NOTICE);
    expect(errors()[0]).toMatchObject({ readableAt: probes });
    // The probes are gone again.
    expect(await bucket.keys()).toEqual([]);
  });

  it("finds a private bucket private: nothing logged, no notice, no probe left behind", async () => {
    const { ctx, privacy, errors } = await site({}, { storage: "s3" });
    expect(await privacy()).toEqual({ status: "private" });
    expect(errors()).toEqual([]);
    expect(await ctx.storedKeys("")).toEqual([]);
  });

  it("finds originals served by a CDN at MEDIA_BASE_URL's origin, though the bucket itself is private", async () => {
    const cdn = await openCdn();
    const front = inject("backends").s3Endpoint;
    const bucket = await createTestBucket(front, { siteOrigins: [SITE_ORIGIN] });
    cleanups.push(() => bucket.remove());
    const bucketName = bucket.name;
    // The CDN publishes the bucket's variants/ at MEDIA_BASE_URL (and, wrongly, everything else).
    const { privacy, errors } = await site({
      ...s3Env(front, bucketName),
      MEDIA_BASE_URL: `${cdn}/${bucketName}/variants`,
    });
    const answered = ["incoming/", "originals/", "backups/", "enquiry-photos/"].map(
      (prefix) => `${cdn}/${bucketName}/${prefix}privacy-probe`,
    );
    expect(await privacy()).toEqual({ status: "public", readableAt: answered, message: NOTICE });
    expect(errors()).toHaveLength(1);
  });

  it("S3_PRIVACY_CHECK=off skips it, for a store whose privacy is enforced elsewhere", async () => {
    const { env } = await publicBucket();
    const { privacy, errors } = await site({ ...env, S3_PRIVACY_CHECK: "off" });
    expect(await privacy()).toEqual({ status: "off" });
    expect(errors()).toEqual([]);
  });

  it("has nothing to check on the local disk, which serves nothing but variants", async () => {
    const { privacy } = await site({}, { storage: "disk" });
    expect(await privacy()).toEqual({ status: "no-bucket" });
  });

  it("stops the start with what to fix when the probe cannot be written", async () => {
    const missing = await createS3Storage(s3ConfigFor(inject("backends").s3Endpoint, "no-such-bucket"));
    cleanups.push(() => missing.close());
    const { logger } = capturingLogger();
    const error = await checkBucketPrivacy({ targets: [{ storage: missing }], enabled: true, logger }).catch(
      (e: unknown) => e,
    );
    expect(error).toBeInstanceOf(StorageCheckError);
    expect((error as Error).message).toMatch(
      /^Cannot check that the bucket is private: writing a probe under incoming\/, originals\/, backups\/, enquiry-photos\/ failed/,
    );
    expect((error as Error).message).toContain("S3_PRIVACY_CHECK=off");
  });

  it("refuses a wrong S3_PRIVACY_CHECK with a message that says what to set", async () => {
    await expect(site({ S3_PRIVACY_CHECK: "no" })).rejects.toThrow(/S3_PRIVACY_CHECK must be on or off/);
  });
});

describe("mediaAddresses", () => {
  it("gives MEDIA_BASE_URL's origin and the folder above variants/, once each", () => {
    expect(mediaAddresses(undefined)).toEqual([]);
    expect(mediaAddresses("https://media.example.co.nz/variants")).toEqual(["https://media.example.co.nz"]);
    expect(mediaAddresses("https://cdn.example.net/photos/variants")).toEqual([
      "https://cdn.example.net",
      "https://cdn.example.net/photos",
    ]);
    expect(mediaAddresses("https://cdn.example.net/images")).toEqual([
      "https://cdn.example.net",
      "https://cdn.example.net/images",
    ]);
  });
});
