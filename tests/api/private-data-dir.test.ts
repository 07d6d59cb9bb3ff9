import syncFs from "node:fs";
import fs from "node:fs/promises";
import os from "node:os";
import path from "node:path";
import { afterEach, describe, expect, it, vi } from "vitest";
import { parseEnv } from "~/env.server";
import { createLogger } from "~/lib/logger.server";
import { makeDataDirPrivate } from "~/lib/private-data-dir.server";
import { openServices } from "../../server/bootstrap";
import { makeImage } from "../fixtures/images";
import { newUploadUrl } from "../support/gallery-api";
import { createAdminContext, type AdminContext } from "./helpers";

const modeOf = async (file: string) => (await fs.stat(file)).mode & 0o777;

let ctx: AdminContext | undefined;
const dirs: string[] = [];
afterEach(async () => {
  await ctx?.close();
  ctx = undefined;
  for (const dir of dirs.splice(0)) await fs.rm(dir, { recursive: true, force: true });
});

async function openAt(dataDir: string) {
  const env = parseEnv({ DATA_DIR: dataDir, LOG_LEVEL: "silent", NODE_ENV: "test" });
  return openServices(env, createLogger({ level: "silent" }));
}

describe("the data directory is private to the service's user", () => {
  it("passes over a temp file the running server renames away during the walk (a script such as the backup beside it)", async () => {
    const dataDir = await fs.mkdtemp(path.join(os.tmpdir(), "cornerstone-private-"));
    dirs.push(dataDir);
    const photos = path.join(dataDir, "uploads", "enquiry-photos");
    await fs.mkdir(photos, { recursive: true });
    const temp = path.join(photos, ".wall-thumb.jpg.f1a230fd0265baea.tmp");
    const kept = path.join(photos, "wall.jpg");
    for (const file of [temp, kept]) await fs.writeFile(file, "jpeg bytes", { mode: 0o644 });
    const list = syncFs.readdirSync;
    const renamedAway = vi.spyOn(syncFs, "readdirSync").mockImplementation(((dir: string, options: never) => {
      const entries = list(dir, options);
      if (dir === photos) syncFs.rmSync(temp);
      return entries;
    }) as never);
    try {
      makeDataDirPrivate(dataDir);
    } finally {
      renamedAway.mockRestore();
    }
    expect(await modeOf(kept)).toBe(0o600);
  });

  it("at every start: DATA_DIR 0700, every folder in it 0700, every file 0600", async () => {
    const dataDir = await fs.mkdtemp(path.join(os.tmpdir(), "cornerstone-private-"));
    dirs.push(dataDir);
    await fs.mkdir(path.join(dataDir, "uploads", "originals"), { recursive: true });
    await fs.writeFile(path.join(dataDir, "uploads", "originals", "photo-with-gps"), "jpeg bytes");
    await fs.writeFile(path.join(dataDir, "notes.txt"), "left by hand");
    const loose = [dataDir, path.join(dataDir, "uploads"), path.join(dataDir, "uploads", "originals")];
    for (const dir of loose) await fs.chmod(dir, 0o755);
    await fs.chmod(path.join(dataDir, "uploads", "originals", "photo-with-gps"), 0o644);
    await fs.chmod(path.join(dataDir, "notes.txt"), 0o666);

    for (let start = 0; start < 2; start++) {
      const services = await openAt(dataDir);
      await services.db.destroy();
      for (const dir of [...loose, path.join(dataDir, "secrets")]) expect(await modeOf(dir), dir).toBe(0o700);
      for (const file of ["uploads/originals/photo-with-gps", "notes.txt", "site.db", "secrets/upload-signing.key"]) {
        expect(await modeOf(path.join(dataDir, file)), file).toBe(0o600);
      }
      // Loosened again between starts (a restore, a hand edit): the next start tightens it again.
      await fs.chmod(path.join(dataDir, "notes.txt"), 0o644);
      await fs.chmod(path.join(dataDir, "uploads"), 0o755);
    }
    expect(process.umask()).toBe(0o077);
  });

  it("files written later are private too: an uploaded original (which may carry GPS) and its variants", async () => {
    // Files on this machine's disk: SQLite and the local storage (PostgreSQL and a bucket keep their own permissions).
    ctx = await createAdminContext({}, { database: "sqlite", storage: "disk" });
    const uploadURL = await newUploadUrl(ctx);
    await ctx.admin
      .put(uploadURL)
      .set("Content-Type", "image/jpeg")
      .send(await makeImage("jpeg"))
      .expect(200);
    const added = await ctx.admin
      .put("/api/admin/gallery-images")
      .send({ imageURL: uploadURL, galleryType: "traditional" })
      .expect(201);
    const originals = path.join(ctx.dataDir, "uploads", "originals");
    const [original] = await fs.readdir(originals);
    expect(await modeOf(path.join(originals, original!))).toBe(0o600);
    const variant = (added.body as { imagePath: string }).imagePath.replace("/media/", "");
    expect(await modeOf(path.join(ctx.dataDir, "uploads", "variants", variant))).toBe(0o600);
    expect(await modeOf(path.join(ctx.dataDir, "uploads", "variants"))).toBe(0o700);
    for (const file of ["site.db", "site.db-wal"]) expect(await modeOf(path.join(ctx.dataDir, file)), file).toBe(0o600);
  });
});
