// @desktop-only: server behaviour, the same at any screen size
import { spawn } from "node:child_process";
import { expect, test } from "@playwright/test";
import pg from "pg";
import { parseEnv } from "~/env.server";
import { createLogger } from "~/lib/logger.server";
import { pruneStaleUploads } from "~/uploads/uploads.server";
import { openServices } from "../../server/bootstrap";
import { makeImage } from "../fixtures/images";
import { startScaledBackends, type ScaledBackends } from "../support/backends";
import { TEST_ADMIN, freePort, startTestServer, type TestServer } from "../support/test-server";

/**
 * Two production servers on two ports sharing one PostgreSQL database and one
 * bucket, as two instances behind a proxy would. No browser needed: desktop
 * project only (playwright.config.ts).
 */

let backends: ScaledBackends;
test.beforeAll(async () => {
  backends = await startScaledBackends();
});
test.afterAll(async () => {
  await backends?.stop();
});

type Instances = {
  a: TestServer;
  b: TestServer;
  env: Record<string, string>;
  databaseUrl: string;
  cookie: string;
  stop(): Promise<void>;
};

async function startTwoInstances(): Promise<Instances> {
  const ports = [await freePort(), await freePort()];
  const provisioned = await backends.provision(ports.map((port) => `http://127.0.0.1:${port}`));
  // At the same moment, on a fresh database: exactly one administrator is created (decision 0044).
  const started = await Promise.allSettled(ports.map((port) => startTestServer({ port, env: provisioned.env })));
  const servers = started.flatMap((result) => (result.status === "fulfilled" ? [result.value] : []));
  const failed = started.find((result) => result.status === "rejected");
  if (failed) {
    for (const server of servers) await server.stop();
    await provisioned.remove();
    throw failed.reason;
  }
  const [a, b] = servers as [TestServer, TestServer];
  expect(await query(provisioned.database.url, "select username from users")).toEqual([
    { username: TEST_ADMIN.username },
  ]);
  const login = await fetch(`${a.url}/api/login`, {
    method: "POST",
    headers: { "Content-Type": "application/json" },
    body: JSON.stringify(TEST_ADMIN),
  });
  expect(login.status).toBe(200);
  return {
    a,
    b,
    env: provisioned.env,
    databaseUrl: provisioned.database.url,
    // Sessions live in the database: the cookie from A signs in on B too.
    cookie: login.headers.get("set-cookie")!.split(";")[0]!,
    async stop() {
      await a.stop();
      await b.stop();
      await provisioned.remove();
    },
  };
}

async function query<T>(databaseUrl: string, text: string): Promise<T[]> {
  const client = new pg.Client({ connectionString: databaseUrl });
  await client.connect();
  try {
    return (await client.query(text)).rows as T[];
  } finally {
    await client.end();
  }
}

async function putToBucket(site: TestServer, cookie: string, photo: Buffer): Promise<string> {
  const res = await fetch(`${site.url}/api/objects/upload`, { method: "POST", headers: { Cookie: cookie } });
  const { uploadURL } = (await res.json()) as { uploadURL: string };
  const put = await fetch(uploadURL, {
    method: "PUT",
    headers: { "Content-Type": "image/jpeg" },
    body: new Uint8Array(photo),
  });
  expect(put.status).toBe(200);
  return uploadURL;
}

function register(site: TestServer, cookie: string, imageURL: string, signal?: AbortSignal) {
  return fetch(`${site.url}/api/admin/gallery-images`, {
    method: "PUT",
    headers: { "Content-Type": "application/json", Cookie: cookie },
    body: JSON.stringify({ imageURL, galleryType: "traditional", caption: "" }),
    signal,
  });
}

test.describe("two instances, one PostgreSQL database, one bucket", () => {
  test("a text saved on A shows on B within 1 second", async () => {
    const { a, b, cookie, stop } = await startTwoInstances();
    try {
      const page = async () => (await fetch(`${b.url}/`)).text();
      // B renders / once and then answers from its page cache.
      expect(await page()).not.toContain("Walls that outlast us");
      const save = await fetch(`${a.url}/api/admin/content/hero.title`, {
        method: "PUT",
        headers: { "Content-Type": "application/json", Cookie: cookie },
        body: JSON.stringify({ content: "Walls that outlast us" }),
      });
      expect(save.status).toBe(200);
      const savedAt = performance.now();
      let shownAfter = Number.POSITIVE_INFINITY;
      while (performance.now() - savedAt < 1_000) {
        if ((await page()).includes("Walls that outlast us")) {
          shownAfter = performance.now() - savedAt;
          break;
        }
      }
      expect(shownAfter, "ms from A's answer until B's / showed the text").toBeLessThan(1_000);
    } finally {
      await stop();
    }
  });

  test("an image uploaded through A is served by B", async () => {
    const { a, b, cookie, stop } = await startTwoInstances();
    try {
      const imageURL = await putToBucket(a, cookie, await makeImage("jpeg", { width: 1200, height: 800 }));
      const res = await register(a, cookie, imageURL);
      expect(res.status).toBe(201);
      const image = (await res.json()) as { id: string; imagePath: string; variants: { avif: { path: string }[] } };
      const listed = (await (await fetch(`${b.url}/api/galleries/traditional`)).json()) as { id: string }[];
      expect(listed.map((i) => i.id)).toEqual([image.id]);
      for (const path of [image.imagePath, ...image.variants.avif.map((v) => v.path)]) {
        const [fromA, fromB] = await Promise.all([fetch(`${a.url}${path}`), fetch(`${b.url}${path}`)]);
        expect(fromB.status).toBe(200);
        expect(fromB.headers.get("cache-control")).toBe("public, max-age=31536000, immutable");
        expect(Buffer.from(await fromB.arrayBuffer()).equals(Buffer.from(await fromA.arrayBuffer()))).toBe(true);
      }
      expect(await (await fetch(`${b.url}/stonework`)).text()).toContain(image.imagePath);
      // The AWS SDK's Node-version notice is switched off (decision 0036): the logs stay about the site.
      expect(a.output() + b.output()).not.toContain("NodeVersionSupportWarning");
    } finally {
      await stop();
    }
  });

  test("killing A in the middle of an upload leaves no half-registered image", async () => {
    const { a, b, env, databaseUrl, cookie, stop } = await startTwoInstances();
    try {
      // A camera-sized photo: its processing takes long enough to be caught in the middle.
      const imageURL = await putToBucket(a, cookie, await makeImage("jpeg", { width: 4000, height: 3000 }));
      const aborted = new AbortController();
      const registering = register(a, cookie, imageURL, aborted.signal).catch((error: unknown) => error);
      await expect
        .poll(async () => (await query<{ status: string }>(databaseUrl, "select status from uploads"))[0]?.status, {
          timeout: 10_000,
          intervals: [20],
        })
        .toBe("registering");
      a.signal("SIGKILL");
      await a.exited;
      expect(await registering).toBeInstanceOf(Error);

      // Nothing half-registered: no image, on B or in the database; B serves on.
      expect(await query(databaseUrl, "select id from gallery_images")).toEqual([]);
      expect(await (await fetch(`${b.url}/api/galleries/traditional`)).json()).toEqual([]);

      // The ticket stays claimed (it cannot be registered twice)…
      const again = await register(b, cookie, imageURL);
      expect(again.status).toBe(400);
      // …and a new upload through B takes the first place, with no gap.
      const next = await register(
        b,
        cookie,
        await putToBucket(b, cookie, await makeImage("jpeg", { width: 800, height: 600 })),
      );
      expect(next.status).toBe(201);
      expect(((await next.json()) as { sortOrder: number }).sortOrder).toBe(0);

      // A day later housekeeping removes what A left in the bucket.
      const services = await openServices(
        parseEnv({ ...env, DATA_DIR: b.dataDir, SITE_URL: b.url }),
        createLogger({ level: "silent" }),
      );
      try {
        const id = new URL(imageURL).pathname.split("/").pop()!;
        // A was killed before, during or after it moved the photo to its private key (a bucket's move is a
        // copy, then a delete): the photo is in one place, or in both when the kill fell between the two.
        const keys = [`incoming/${id}`, `originals/${id}`];
        const stored = async () =>
          (await Promise.all(keys.map((key) => services.storage.exists(key)))).filter(Boolean).length;
        expect(await stored()).toBeGreaterThanOrEqual(1);
        await pruneStaleUploads(services, { now: () => new Date(Date.now() + 25 * 60 * 60 * 1000) });
        expect(await stored()).toBe(0);
        expect(await query(databaseUrl, "select id from uploads where status <> 'used'")).toEqual([]);
      } finally {
        await services.close();
      }
    } finally {
      await stop();
    }
  });
});

test.describe("start-up on back ends it cannot use", () => {
  /** Runs the server until it exits (asynchronously: the S3 server it talks to runs in this process). */
  const startServer = async (env: Record<string, string>): Promise<{ status: number | null; stderr: string }> => {
    const child = spawn(process.execPath, ["build/server/index.js"], {
      env: { ...process.env, PORT: String(await freePort()), HOST: "127.0.0.1", LOG_LEVEL: "warn", ...env },
      stdio: ["ignore", "ignore", "pipe"],
      timeout: 30_000,
    });
    let stderr = "";
    child.stderr.on("data", (chunk) => (stderr += chunk));
    return new Promise((resolve) => child.once("close", (status) => resolve({ status, stderr })));
  };

  test("an unreachable database stops the server with a clear message", async () => {
    const result = await startServer({ DATABASE_URL: "postgres://app:hunter2@127.0.0.1:1/site" });
    expect(result.status).toBe(1);
    expect(result.stderr).toContain(
      "Cannot use the PostgreSQL database at postgres://app@127.0.0.1:1/site (DATABASE_URL)",
    );
    expect(result.stderr).not.toContain("hunter2");
    expect(result.stderr).not.toMatch(/\n\s+at /);
  });

  test("a fresh PostgreSQL database without ADMIN_USERNAME and ADMIN_PASSWORD stops the server, saying to set them", async () => {
    const { env, remove } = await backends.provision(["http://127.0.0.1:3000"]);
    try {
      const { ADMIN_USERNAME: _user, ADMIN_PASSWORD: _password, ...inherited } = process.env;
      const child = spawn(process.execPath, ["build/server/index.js"], {
        env: {
          ...inherited,
          PORT: String(await freePort()),
          HOST: "127.0.0.1",
          LOG_LEVEL: "warn",
          SITE_URL: "http://127.0.0.1:3000",
          ...env,
        },
        stdio: ["ignore", "pipe", "pipe"],
        timeout: 30_000,
      });
      let output = "";
      child.stdout.on("data", (chunk) => (output += chunk));
      child.stderr.on("data", (chunk) => (output += chunk));
      const status = await new Promise((resolve) => child.once("close", resolve));
      expect(status).toBe(1);
      expect(output).toContain("Set ADMIN_USERNAME and ADMIN_PASSWORD");
      expect(output).not.toMatch(/\n\s+at /);
      expect(await query(env.DATABASE_URL!, "select id from users")).toEqual([]);
    } finally {
      await remove();
    }
  });

  test("a bucket that cannot be written stops the server with a clear message", async () => {
    const { env, remove } = await backends.provision(["http://127.0.0.1:3000"]);
    try {
      const result = await startServer({ ...env, S3_BUCKET: "no-such-bucket" });
      expect(result.status).toBe(1);
      expect(result.stderr).toContain('Cannot write and read the S3 bucket "no-such-bucket"');
      expect(result.stderr).not.toMatch(/\n\s+at /);
    } finally {
      await remove();
    }
  });
});
