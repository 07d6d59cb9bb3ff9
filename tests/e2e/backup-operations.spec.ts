// @desktop-only: server behaviour, the same at any screen size
import { spawn } from "node:child_process";
import { createHash } from "node:crypto";
import fs from "node:fs/promises";
import os from "node:os";
import path from "node:path";
import { expect, test } from "@playwright/test";
import { SECTIONS } from "~/content/sections";
import { GALLERY_TYPES } from "~/galleries/gallery";
import { seedDataDir } from "../support/seed";
import { TEST_ADMIN, startTestServer, type TestServer } from "../support/test-server";

/**
 * Backups through the real server and the real npm scripts (desktop project only: the file name
 * ends in operations.spec.ts). The module-level cases (tampering, schema, deletion during a
 * backup, free space) are in tests/api/backup-*.test.ts.
 */

type Run = { status: number | null; stdout: string; stderr: string };

/** `npm run backup|restore -- …` against DATA_DIR, as an operator runs it. */
function npmRun(script: "backup" | "restore", args: string[], dataDir: string): Promise<Run> {
  return new Promise((resolve) => {
    const child = spawn("npm", ["run", "-s", script, "--", ...args], {
      env: { ...process.env, DATA_DIR: dataDir, LOG_LEVEL: "warn" },
      stdio: ["ignore", "pipe", "pipe"],
    });
    let stdout = "";
    let stderr = "";
    child.stdout.on("data", (chunk) => (stdout += chunk));
    child.stderr.on("data", (chunk) => (stderr += chunk));
    child.once("exit", (status) => resolve({ status, stdout, stderr }));
  });
}

const sha256 = (bytes: ArrayBuffer) => createHash("sha256").update(Buffer.from(bytes)).digest("hex");

async function signIn(server: TestServer): Promise<string> {
  const res = await fetch(`${server.url}/api/login`, {
    method: "POST",
    headers: { "Content-Type": "application/json" },
    body: JSON.stringify(TEST_ADMIN),
  });
  expect(res.status).toBe(200);
  return res.headers.get("set-cookie")!.split(";")[0]!;
}

async function api(server: TestServer, cookie: string, method: string, url: string, body?: unknown) {
  const res = await fetch(`${server.url}${url}`, {
    method,
    headers: { Cookie: cookie, ...(body === undefined ? {} : { "Content-Type": "application/json" }) },
    body: body === undefined ? undefined : JSON.stringify(body),
  });
  expect(res.status, `${method} ${url}`).toBeLessThan(300);
  return res.status === 204 ? null : res.json();
}

type Enquiry = { name: string; email: string; phone: string; message: string };
let visitor = 0;
/** One enquiry from its own address (the limit is 5 per address). */
async function sendEnquiry(server: TestServer, label: string): Promise<{ id: string; sent: Enquiry }> {
  visitor += 1;
  const sent = {
    name: `${label} ${visitor}`,
    email: `visitor${visitor}@example.co.nz`,
    phone: `06 759 ${String(visitor).padStart(4, "0")}`,
    message: `Enquiry ${visitor} (${label}): please quote for a retaining wall.`,
  };
  const res = await fetch(`${server.url}/api/contact`, {
    method: "POST",
    headers: {
      "Content-Type": "application/json",
      "X-Forwarded-For": `10.77.${Math.floor(visitor / 250)}.${(visitor % 250) + 1}`,
    },
    body: JSON.stringify(sent),
  });
  expect(res.status).toBe(201);
  return { id: ((await res.json()) as { id: string }).id, sent };
}

/** What the visitors and the owner see: every text, every gallery (order, captions, variants), every variant's bytes. */
async function siteAsSeen(server: TestServer) {
  const texts: Record<string, string> = {};
  for (const { key } of SECTIONS)
    texts[key] = ((await (await fetch(`${server.url}/api/content/${key}`)).json()) as { content: string }).content;
  const galleries: Record<string, unknown[]> = {};
  const variantBytes: Record<string, string> = {};
  for (const type of GALLERY_TYPES) {
    const images = (await (await fetch(`${server.url}/api/galleries/${type}`)).json()) as {
      variants: { avif: { path: string }[]; webp: { path: string }[]; jpeg: { path: string } };
    }[];
    galleries[type] = images;
    for (const image of images) {
      for (const variant of [...image.variants.avif, ...image.variants.webp, image.variants.jpeg]) {
        const res = await fetch(`${server.url}${variant.path}`);
        expect(res.status, variant.path).toBe(200);
        variantBytes[variant.path] = sha256(await res.arrayBuffer());
      }
    }
  }
  return { texts, galleries, variantBytes };
}

test.describe("backups of a running site", () => {
  test.setTimeout(240_000);

  test("backup under load → wipe DATA_DIR → restore → start: everything acknowledged before the backup is back, byte for byte", async () => {
    const work = await fs.mkdtemp(path.join(os.tmpdir(), "cornerstone-backup-e2e-"));
    const archive = path.join(work, "site-backup.tar.gz");
    let server = await startTestServer({
      prepare: (dataDir) => seedDataDir(dataDir, { galleries: { traditional: 3, veneer: 2, landscaping: 2 } }),
    });
    const dataDir = server.dataDir;
    try {
      // The owner's work: texts, captions, an order of their choosing; and 20 enquiries.
      const cookie = await signIn(server);
      await api(server, cookie, "PUT", "/api/admin/content/hero.title", {
        content: "Stonework that lasts generations",
      });
      await api(server, cookie, "PUT", "/api/admin/content/stonework.intro", {
        content: "Every wall is built by hand, stone by stone.",
      });
      const traditional = (await api(server, cookie, "GET", "/api/galleries/traditional")) as { id: string }[];
      await api(server, cookie, "PATCH", `/api/admin/gallery-images/${traditional[1]!.id}`, {
        caption: "Basalt wall, Ōakura — after the rain",
      });
      const reordered = [traditional[2]!.id, traditional[0]!.id, traditional[1]!.id];
      await api(server, cookie, "PUT", "/api/admin/gallery-images/reorder", {
        galleryType: "traditional",
        imageIds: reordered,
      });
      const acknowledgedBefore: { id: string; sent: Enquiry }[] = [];
      for (let i = 0; i < 20; i++) acknowledgedBefore.push(await sendEnquiry(server, "Before"));
      const expected = await siteAsSeen(server);
      expect((expected.galleries.traditional as { id: string }[]).map((image) => image.id)).toEqual(reordered);

      // Load: page and API reads, and enquiries arriving, while `npm run backup` runs beside the server.
      let loading = true;
      const acknowledgedDuring: { id: string; sent: Enquiry }[] = [];
      let reads = 0;
      const readers = Array.from({ length: 3 }, (_, n) =>
        (async () => {
          const urls = ["/", "/api/galleries/traditional", "/stonework"];
          while (loading) {
            const res = await fetch(`${server.url}${urls[n]}`);
            expect(res.status).toBe(200);
            await res.arrayBuffer();
            reads += 1;
          }
        })(),
      );
      const writers = Array.from({ length: 2 }, () =>
        (async () => {
          while (loading) acknowledgedDuring.push(await sendEnquiry(server, "During"));
        })(),
      );
      const backup = await npmRun("backup", ["--out", archive], dataDir);
      // The writes really overlapped the backup; a little more load after it, then stop.
      const duringAtEnd = acknowledgedDuring.length;
      expect(duringAtEnd).toBeGreaterThan(0);
      await expect.poll(() => acknowledgedDuring.length).toBeGreaterThan(duringAtEnd);
      loading = false;
      await Promise.all([...readers, ...writers]);
      expect(backup.status, backup.stderr).toBe(0);
      expect(backup.stdout).toMatch(/Backup written: .*site-backup\.tar\.gz/);
      expect(reads).toBeGreaterThan(0);

      // Lose everything.
      await server.stop();
      await expect(fs.access(dataDir)).rejects.toThrow();

      const restore = await npmRun("restore", [archive], dataDir);
      expect(restore.status, restore.stderr).toBe(0);
      expect(restore.stdout).toMatch(/Sessions are never restored: everyone signs in again/);
      expect(restore.stdout).toMatch(/The administrator's password is now the one it was when the backup was made/);

      server = await startTestServer({ dataDir });
      expect(await siteAsSeen(server)).toEqual(expected);

      // Every enquiry acknowledged before the backup started, exactly; nothing that was never sent.
      const newCookie = await signIn(server);
      // The inbox comes in pages (newest first); read every page.
      const restored: ({ id: string; cursor: string } & Enquiry)[] = [];
      for (let before = ""; ;) {
        const page = (await api(
          server,
          newCookie,
          "GET",
          `/api/admin/contact-submissions?limit=200${before && `&before=${before}`}`,
        )) as typeof restored;
        restored.push(...page);
        if (page.length < 200) break;
        before = page.at(-1)!.cursor;
      }
      const byId = new Map(restored.map((row) => [row.id, row]));
      for (const { id, sent } of acknowledgedBefore) expect(byId.get(id), id).toMatchObject(sent);
      const everySent = new Map([...acknowledgedBefore, ...acknowledgedDuring].map((e) => [e.id, e.sent]));
      for (const row of restored) expect(row).toMatchObject(everySent.get(row.id)!);
      expect(restored.length).toBeLessThan(everySent.size);

      // The old session is gone.
      const oldSession = await fetch(`${server.url}/api/auth/user`, { headers: { Cookie: cookie } });
      expect(oldSession.status).toBe(401);
    } finally {
      await server.stop();
      await fs.rm(work, { recursive: true, force: true });
    }
  });

  test("restore refuses while the server runs on DATA_DIR, changing nothing; after the server is killed (SIGKILL) it runs", async () => {
    const work = await fs.mkdtemp(path.join(os.tmpdir(), "cornerstone-backup-lock-"));
    const archive = path.join(work, "b.tar.gz");
    const server = await startTestServer();
    try {
      expect((await npmRun("backup", ["--out", archive], server.dataDir)).status).toBe(0);
      const before = await fs.readFile(path.join(server.dataDir, "site.db"));

      const refused = await npmRun("restore", [archive], server.dataDir);
      expect(refused.status).toBe(1);
      expect(refused.stderr).toMatch(
        /A Cornerstone server \(or npm run backup\) is running on .+Stop it first .*Nothing was changed\./s,
      );
      expect((await fs.readFile(path.join(server.dataDir, "site.db"))).equals(before)).toBe(true);
      expect((await fs.readdir(server.dataDir)).some((name) => name.startsWith(".restore-"))).toBe(false);

      // A crash leaves no stale lock behind.
      server.signal("SIGKILL");
      await server.exited;
      const restored = await npmRun("restore", [archive], server.dataDir);
      expect(restored.status, restored.stderr).toBe(0);
    } finally {
      await server.stop();
      await fs.rm(work, { recursive: true, force: true });
    }
  });

  test("a server does not start while a restore holds DATA_DIR", async () => {
    const dataDir = await fs.mkdtemp(path.join(os.tmpdir(), "cornerstone-restore-held-"));
    const holder = spawn(
      process.execPath,
      [
        "--import",
        "tsx",
        "-e",
        `import("./app/lib/data-dir-lock.server.ts").then((m) => { m.lockDataDir(${JSON.stringify(dataDir)}, "exclusive"); console.log("locked"); setInterval(() => {}, 1000); })`,
      ],
      { stdio: ["ignore", "pipe", "inherit"] },
    );
    try {
      await new Promise<void>((resolve) =>
        holder.stdout!.on("data", (chunk: Buffer) => chunk.toString().includes("locked") && resolve()),
      );
      const error = await startTestServer({ dataDir }).catch((e: unknown) => e as Error);
      expect(error).toBeInstanceOf(Error);
      expect((error as Error).message).toMatch(
        /A restore is running on .+: wait for it to finish, then start the server again/,
      );
    } finally {
      holder.kill("SIGKILL");
      await fs.rm(dataDir, { recursive: true, force: true });
    }
  });
});
