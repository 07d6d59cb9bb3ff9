import { once } from "node:events";
import fs from "node:fs/promises";
import { createServer, type RequestListener } from "node:http";
import type { AddressInfo } from "node:net";
import os from "node:os";
import path from "node:path";
import { afterEach, describe, expect, inject, it } from "vitest";
import { DatabaseUnreachableError } from "~/db/database.server";
import { parseEnv } from "~/env.server";
import { seedDemoGallery } from "~/galleries/demo-images.server";
import { createLogger } from "~/lib/logger.server";
import { createOutbox } from "~/notifications/outbox.server";
import { StorageCheckError } from "~/storage/storage-errors.server";
import { openServices } from "../../server/bootstrap";
import { createTestBucket, s3Env } from "../support/backends";
import { startSmtpServer } from "../support/smtp";
import { ADMIN, createAdminContext, createTestContext, signedInAgent, type TestContext } from "./helpers";

/**
 * Instances that share one PostgreSQL database (and one bucket) agree, and a
 * server refuses to start on a back end it cannot use. These tests pick
 * PostgreSQL and S3 explicitly, so they run in both runs.
 */

const silent = createLogger({ level: "silent" });
let ctx: TestContext | undefined;
/** Servers, workers and mail servers a test started, stopped before its context closes. */
let stops: (() => Promise<unknown>)[] = [];
afterEach(async () => {
  for (const stop of stops.reverse()) await stop();
  stops = [];
  await ctx?.close();
  ctx = undefined;
});

/** Serves one instance on its own port, as a server process would; its origin. */
async function listen(instance: { app: RequestListener }): Promise<string> {
  const server = createServer(instance.app).listen(0, "127.0.0.1");
  await once(server, "listening");
  stops.push(() => new Promise((resolve) => server.close(resolve)));
  return `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
}

describe("two instances on one PostgreSQL database", () => {
  it("a text saved on A shows on B within 1 second, though B serves it from its page cache", async () => {
    const admin = { ADMIN_USERNAME: ADMIN.username, ADMIN_PASSWORD: ADMIN.password };
    ctx = await createTestContext(admin, { database: "postgres", storage: "s3" });
    const { ensureAdministrator } = await import("~/auth/auth.server");
    await ensureAdministrator(ctx.services, ADMIN);
    const a = await ctx.openInstance({ pageCache: true });
    const b = await ctx.openInstance({ pageCache: true });
    const adminA = await signedInAgent(a);

    const read = async () => (await b.api.get("/api/content/hero.title").expect(200)).body.content as string;
    const before = await read();
    expect(b.pageCache!.size).toBe(1);
    // B really answers from its cache: a change behind every instance's back stays unseen…
    await ctx.services.db
      .insertInto("content_entries")
      .values({ key: "hero.title", content: "not announced", updated_at: new Date().toISOString() })
      .onConflict((oc) => oc.column("key").doUpdateSet({ content: "not announced" }))
      .execute();
    expect(await read()).toBe(before);

    // …while a save through A reaches B at once.
    await adminA.put("/api/admin/content/hero.title").send({ content: "Saved on A" }).expect(200);
    const savedAt = performance.now();
    let seenAfter = Number.POSITIVE_INFINITY;
    while (performance.now() - savedAt < 1_000) {
      if ((await read()) === "Saved on A") {
        seenAfter = performance.now() - savedAt;
        break;
      }
      await new Promise((r) => setTimeout(r, 10));
    }
    expect(seenAfter, "B showed A's save within 1 s of the save's response").toBeLessThan(1_000);
  });

  it("an image uploaded through A is listed and served by B", async () => {
    const withAdmin = await createAdminContext({}, { database: "postgres", storage: "s3" });
    ctx = withAdmin;
    const b = await ctx.openInstance();
    const { uploadURL } = (await withAdmin.admin.post("/api/objects/upload").expect(200)).body as { uploadURL: string };
    const { makeImage } = await import("../fixtures/images");
    const photo = await makeImage("jpeg", { width: 900, height: 600 });
    expect(
      (
        await fetch(uploadURL, {
          method: "PUT",
          headers: { "Content-Type": "image/jpeg" },
          body: new Uint8Array(photo),
        })
      ).status,
    ).toBe(200);
    const image = (
      await withAdmin.admin
        .put("/api/admin/gallery-images")
        .send({ imageURL: uploadURL, galleryType: "veneer" })
        .expect(201)
    ).body;

    const listed = (await b.api.get("/api/galleries/veneer").expect(200)).body as { id: string }[];
    expect(listed.map((i) => i.id)).toEqual([image.id]);
    for (const variant of [...image.variants.avif, ...image.variants.webp, image.variants.jpeg] as { path: string }[]) {
      const res = await b.api.get(variant.path).expect(200);
      expect(res.headers["cache-control"]).toBe("public, max-age=31536000, immutable");
      expect(Number(res.headers["content-length"])).toBeGreaterThan(0);
    }
  });

  it("5 wrong sign-ins spread over A and B (two ports) make the next one on either answer 429", async () => {
    const admin = { ADMIN_USERNAME: ADMIN.username, ADMIN_PASSWORD: ADMIN.password };
    ctx = await createTestContext(admin, { database: "postgres", storage: "s3" });
    const { ensureAdministrator } = await import("~/auth/auth.server");
    await ensureAdministrator(ctx.services, ADMIN);
    const a = await listen(ctx);
    const b = await listen(await ctx.openInstance());
    const signIn = (origin: string, password: string) =>
      fetch(`${origin}/api/login`, {
        method: "POST",
        headers: { "Content-Type": "application/json" },
        body: JSON.stringify({ username: ADMIN.username, password }),
      });

    for (const origin of [a, b, a, b, a]) expect((await signIn(origin, "a wrong guess")).status).toBe(401);
    for (const origin of [a, b]) {
      const res = await signIn(origin, ADMIN.password);
      expect(res.status).toBe(429);
      expect(Number(res.headers.get("retry-after"))).toBeGreaterThan(0);
      expect(await res.json()).toHaveProperty("message");
    }
  });

  it("one enquiry sends exactly one e-mail while both instances run their outbox workers", async () => {
    const smtp = await startSmtpServer();
    stops.push(() => smtp.stop());
    const mailEnv = {
      SMTP_URL: smtp.url,
      MAIL_FROM: "Cornerstone <website@cornerstone.example.nz>",
      NOTIFY_EMAIL: "owner@example.nz",
    };
    ctx = await createTestContext(mailEnv, { database: "postgres", storage: "s3" });
    const instanceB = await ctx.openInstance();
    const a = await listen(ctx);
    // Each polls often and wakes on its own writes, so both are after every due job.
    const workers = [
      createOutbox(ctx.services, { pollIntervalMs: 20 }),
      createOutbox(instanceB.services, { pollIntervalMs: 20 }),
    ];
    for (const worker of workers) {
      worker.start();
      stops.push(() => worker.stop());
    }

    const res = await fetch(`${a}/api/contact`, {
      method: "POST",
      headers: { "Content-Type": "application/json" },
      body: JSON.stringify({
        name: "Two Instances",
        email: "visitor@example.com",
        message: "Please quote for a stone wall.",
      }),
    });
    expect(res.status).toBe(201);
    await Promise.all(workers.map((worker) => worker.runDue()));
    const [mail] = await smtp.waitForMessages(1);
    expect(mail!.subject).toBe("New enquiry from Two Instances");
    // Many more passes of both workers later: still the one e-mail.
    for (let pass = 0; pass < 10; pass++) await Promise.all(workers.map((worker) => worker.runDue()));
    expect(smtp.messages).toHaveLength(1);
    const jobs = await ctx.services.db.selectFrom("notification_jobs").select(["status", "attempts"]).execute();
    expect(jobs).toEqual([{ status: "sent", attempts: 1 }]);
  });

  it("share the upload-signing secret through the database, not their disks", async () => {
    ctx = await createTestContext({}, { database: "postgres", storage: "disk" });
    const otherDataDir = await fs.mkdtemp(path.join(os.tmpdir(), "cornerstone-other-"));
    const other = await openServices(parseEnv({ ...ctx.envVars, DATA_DIR: otherDataDir }), silent);
    try {
      const { uploadURL } = await ctx.services.storage.createUploadTarget("abc-123", new Date(Date.now() + 60_000));
      const url = new URL(uploadURL, "http://x");
      expect(
        other.storage.verifyUploadTarget("abc-123", {
          expires: url.searchParams.get("expires")!,
          signature: url.searchParams.get("signature")!,
        }),
      ).toBe("ok");
      await expect(fs.access(path.join(ctx.dataDir, "secrets"))).rejects.toThrow();
      await expect(fs.access(path.join(otherDataDir, "secrets"))).rejects.toThrow();
    } finally {
      await other.close();
      await fs.rm(otherDataDir, { recursive: true, force: true });
    }
  });
});

describe("start-up checks", () => {
  it("refuse an unreachable database", async () => {
    const dataDir = await fs.mkdtemp(path.join(os.tmpdir(), "cornerstone-check-"));
    try {
      const env = parseEnv({ DATA_DIR: dataDir, DATABASE_URL: "postgres://app:secret@127.0.0.1:1/site" });
      const error = await openServices(env, silent).catch((e: unknown) => e);
      expect(error).toBeInstanceOf(DatabaseUnreachableError);
      expect((error as Error).message).toMatch(
        /^Cannot use the PostgreSQL database at postgres:\/\/app@127\.0\.0\.1:1\/site \(DATABASE_URL\)/,
      );
    } finally {
      await fs.rm(dataDir, { recursive: true, force: true });
    }
  });

  it("refuse a bucket that cannot be written, and one browsers could not upload to", async () => {
    ctx = await createTestContext();
    const { s3Endpoint } = inject("backends");
    const missing = parseEnv({ ...ctx.envVars, ...s3Env(s3Endpoint, "no-such-bucket") });
    await expect(openServices(missing, silent)).rejects.toThrow(StorageCheckError);

    const elsewhere = await createTestBucket(s3Endpoint, { siteOrigins: ["https://another-site.example"] });
    try {
      const wrongCors = parseEnv({ ...ctx.envVars, ...s3Env(s3Endpoint, elsewhere.name) });
      // SITE_URL is unset here: the message asks for it and advises no origin (a rule for the stand-in would break the real site).
      const unset = (await openServices(wrongCors, silent).catch((error: unknown) => error)) as Error;
      expect(unset).toBeInstanceOf(StorageCheckError);
      expect(unset.message).toMatch(/Browsers cannot upload to the S3 bucket/);
      expect(unset.message).toContain("Set SITE_URL to the address visitors use");
      expect(unset.message).not.toContain("AllowedOrigins");
      // With SITE_URL set, the rule it advises is for exactly SITE_URL's origin.
      const given = parseEnv({
        ...ctx.envVars,
        ...s3Env(s3Endpoint, elsewhere.name),
        SITE_URL: "https://www.stone.example.nz/",
      });
      const advised = ((await openServices(given, silent).catch((error: unknown) => error)) as Error).message;
      expect(advised.match(/"AllowedOrigins":\[[^\]]*\]/g)).toEqual([
        '"AllowedOrigins":["https://www.stone.example.nz"]',
        '"AllowedOrigins":["https://www.stone.example.nz"]',
      ]);
    } finally {
      await elsewhere.remove();
    }
  });
});

describe("what browsers are allowed to reach", () => {
  it("with a bucket, connect-src adds exactly the bucket's origin; img-src stays this site's", async () => {
    ctx = await createTestContext({}, { storage: "s3" });
    const csp = (await ctx.api.get("/healthz").expect(200)).headers["content-security-policy"] as string;
    const directive = (name: string) =>
      csp
        .split(";")
        .map((d) => d.trim())
        .find((d) => d.startsWith(`${name} `));
    expect(directive("connect-src")).toBe(`connect-src 'self' ${new URL(ctx.env.S3_ENDPOINT!).origin}`);
    expect(directive("img-src")).toBe("img-src 'self' data: blob:");
  });

  it("on the local disk, connect-src stays 'self'", async () => {
    ctx = await createTestContext({}, { storage: "disk" });
    const csp = (await ctx.api.get("/healthz").expect(200)).headers["content-security-policy"] as string;
    expect(csp).toContain("connect-src 'self';");
  });

  it("with MEDIA_BASE_URL, images are listed there and img-src adds exactly that origin", async () => {
    // The privacy check would GET media.example.co.nz over the internet: not this test's subject (tests/api/bucket-privacy.test.ts).
    ctx = await createTestContext({ MEDIA_BASE_URL: "https://media.example.co.nz/variants/", S3_PRIVACY_CHECK: "off" });
    const [image] = await seedDemoGallery(ctx.services, "traditional", 1, { width: 500, height: 300 });
    const listed = (await ctx.api.get("/api/galleries/traditional").expect(200)).body[0];
    expect(listed.imagePath).toMatch(/^https:\/\/media\.example\.co\.nz\/variants\/[0-9a-f]{20}\.jpg$/);
    for (const variant of [...listed.variants.avif, ...listed.variants.webp, listed.variants.jpeg]) {
      expect(variant.path).toMatch(/^https:\/\/media\.example\.co\.nz\/variants\/[0-9a-f]{20}\.(avif|webp|jpg)$/);
    }
    // Stored paths stay /media/: the same files are still served here, and deleting still finds them.
    expect(image!.imagePath).toMatch(/^https:\/\/media\.example\.co\.nz\//);
    await ctx.api.get(`/media/${listed.imagePath.split("/").pop()}`).expect(200);
    const csp = (await ctx.api.get("/healthz").expect(200)).headers["content-security-policy"] as string;
    expect(csp).toContain("img-src 'self' data: blob: https://media.example.co.nz;");
  });
});
