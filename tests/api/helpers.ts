import fs from "node:fs/promises";
import os from "node:os";
import path from "node:path";
import supertest from "supertest";
import { inject } from "vitest";
import { parseEnv } from "~/env.server";
import type { Clock } from "~/lib/clock";
import { createLogger, type Logger } from "~/lib/logger.server";
import { createApp, createRequestListener } from "../../server/app";
import { createPageCache } from "../../server/page-cache";
import { openServices } from "../../server/bootstrap";
import { imageWorkerFromSource } from "../../server/child-process-sources";
import { createDatabaseReuse, createTestBucket, s3Env, type TestBucket } from "../support/backends";

export type DatabaseKind = "sqlite" | "postgres";
export type StorageKind = "disk" | "s3";

/** This test process's PostgreSQL databases, emptied and reused from one test context to the next. */
let databases: ReturnType<typeof createDatabaseReuse> | undefined;

/** What this run's API tests use by default: TEST_BACKEND (tests/support/vitest-backends.ts). */
export function defaultBackend(): { database: DatabaseKind; storage: StorageKind } {
  return inject("backends").testBackend === "postgres-s3"
    ? { database: "postgres", storage: "s3" }
    : { database: "sqlite", storage: "disk" };
}

export async function keysUnder(root: string, prefix: string): Promise<string[]> {
  const dir = path.join(root, prefix);
  const entries = await fs.readdir(dir, { recursive: true, withFileTypes: true }).catch(() => []);
  return entries
    .filter((entry) => entry.isFile() && !entry.name.startsWith("."))
    .map((entry) => path.relative(root, path.join(entry.parentPath, entry.name)).split(path.sep).join("/"))
    .sort();
}

/**
 * A database and a bucket of this run's test back ends (or those `options`
 * pick): the settings that point a server at them, and how to give them back.
 * SQLite and the disk need no settings: they live in DATA_DIR.
 */
export async function acquireBackend(
  base: Record<string, string>,
  options: { database?: DatabaseKind; storage?: StorageKind; s3Endpoint?: string } = {},
): Promise<{
  env: Record<string, string>;
  bucket: TestBucket | null;
  database: DatabaseKind;
  storage: StorageKind;
  release(): Promise<void>;
}> {
  const backends = inject("backends");
  const database = options.database ?? defaultBackend().database;
  const storage = options.storage ?? defaultBackend().storage;
  const releases: (() => Promise<void>)[] = [];
  const release = async () => {
    for (const fn of releases.reverse()) await fn().catch(() => {});
  };
  try {
    const env: Record<string, string> = {};
    if (database === "postgres") {
      databases ??= createDatabaseReuse(backends.postgresUrl, backends.postgresTemplate);
      const db = await databases.acquire();
      releases.push(db.release);
      env.DATABASE_URL = db.url;
    }
    let bucket: TestBucket | null = null;
    if (storage === "s3") {
      const created = await createTestBucket(backends.s3Endpoint, {
        siteOrigins: [new URL(parseEnv(base).SITE_URL).origin],
      });
      bucket = created;
      releases.push(async () => void created.remove().catch(() => {}));
      Object.assign(env, s3Env(options.s3Endpoint ?? backends.s3Endpoint, created.name));
    }
    return { env, bucket, database, storage, release };
  } catch (error) {
    await release();
    throw error;
  }
}

/**
 * The real Express app (API only: no React Router build needed) over this
 * run's back end: a SQLite file and the local disk in a fresh temporary
 * directory, or (TEST_BACKEND=postgres-s3) a fresh PostgreSQL database and a
 * fresh bucket. `options` picks one explicitly (a protocol test of one storage).
 */
export async function createTestContext(
  envOverrides: Record<string, string> = {},
  options: {
    database?: DatabaseKind;
    storage?: StorageKind;
    logger?: Logger;
    clock?: Clock;
    /** Where the server reaches the bucket: a proxy in front of the test S3 server, say (its presigned URLs name it too). */
    s3Endpoint?: string;
  } = {},
) {
  const dataDir = await fs.mkdtemp(path.join(os.tmpdir(), "cornerstone-api-"));
  const cleanups: (() => Promise<void>)[] = [() => fs.rm(dataDir, { recursive: true, force: true })];
  const cleanUp = async () => {
    for (const cleanup of cleanups.reverse()) await cleanup().catch(() => {});
  };

  try {
    const base = { DATA_DIR: dataDir, LOG_LEVEL: "silent", NODE_ENV: "test", ...envOverrides };
    const acquired = await acquireBackend(base, options);
    cleanups.push(acquired.release);
    const { env: backendEnv, bucket, database, storage } = acquired;
    /** The settings as a process would get them (for child processes: scripts, servers). */
    const envVars = { ...base, ...backendEnv, ...envOverrides };
    const env = parseEnv(envVars);

    /**
     * One instance of the server: its own services (connections, caches) over
     * the shared back end. With `pageCache`, it answers as the server does:
     * cached public reads first, emptied by writes here or on other instances.
     */
    const openInstance = async (instanceOptions: { pageCache?: boolean } = {}) => {
      let publicChanges = 0;
      const pageCache = instanceOptions.pageCache ? createPageCache() : undefined;
      const services = await openServices(env, options.logger ?? createLogger({ level: env.LOG_LEVEL }), {
        onPublicContentChanged: () => {
          publicChanges += 1;
          pageCache?.clear();
        },
        clock: options.clock,
        imageWorker: imageWorkerFromSource(),
      });
      cleanups.push(() => services.close());
      await services.images.start();
      const app = createApp(services);
      const listener = pageCache ? createRequestListener(services, { pageCache }) : app;
      return { app, services, pageCache, api: supertest(listener), publicChanges: () => publicChanges };
    };

    const first = await openInstance();
    return {
      ...first,
      env,
      envVars,
      dataDir,
      backend: { database, storage },
      bucket,
      /** Another instance on the same database and bucket (as a second server process would be). */
      openInstance,
      /** Every stored object key under `prefix` ("originals/", "variants/", …), sorted. */
      storedKeys: (prefix: string): Promise<string[]> =>
        bucket ? bucket.keys(prefix) : keysUnder(path.join(dataDir, "uploads"), prefix),
      close: cleanUp,
    };
  } catch (error) {
    await cleanUp();
    throw error;
  }
}

export type TestContext = Awaited<ReturnType<typeof createTestContext>>;

export const ADMIN = { username: "owner", password: "a long test password" } as const;

/** A signed-in agent (keeps the session cookie) on one instance's app. */
export async function signedInAgent(instance: { app: Parameters<typeof supertest.agent>[0] }) {
  const agent = supertest.agent(instance.app);
  await agent.post("/api/login").send(ADMIN).expect(200);
  return agent;
}

/** A test context with an administrator, plus a signed-in agent (keeps the session cookie). */
export async function createAdminContext(
  envOverrides: Record<string, string> = {},
  options: { database?: DatabaseKind; storage?: StorageKind; clock?: Clock; s3Endpoint?: string } = {},
) {
  const ctx = await createTestContext(
    { ADMIN_USERNAME: ADMIN.username, ADMIN_PASSWORD: ADMIN.password, ...envOverrides },
    options,
  );
  const { ensureAdministrator } = await import("~/auth/auth.server");
  await ensureAdministrator(ctx.services, { username: ADMIN.username, password: ADMIN.password });
  return { ...ctx, admin: await signedInAgent(ctx) };
}

export type AdminContext = Awaited<ReturnType<typeof createAdminContext>>;

/**
 * PUTs a file to an upload URL as the browser does: to this server's own
 * signed URL with the admin's session, or straight to the bucket's presigned
 * URL (absolute) with no cookies at all.
 */
export async function putUpload(
  ctx: Pick<AdminContext, "admin">,
  url: string,
  body: Buffer,
  contentType = "image/jpeg",
): Promise<{ status: number; body: Record<string, unknown> }> {
  if (/^https?:/.test(url)) {
    const res = await fetch(url, {
      method: "PUT",
      headers: { "Content-Type": contentType },
      body: new Uint8Array(body),
    });
    const text = await res.text();
    return {
      status: res.status,
      body: res.headers.get("content-type")?.includes("json") ? (JSON.parse(text) as Record<string, unknown>) : {},
    };
  }
  const res = await ctx.admin.put(url).set("Content-Type", contentType).send(body);
  return { status: res.status, body: res.body as Record<string, unknown> };
}
