/**
 * Backup and restore on the demo site (`npm run bench -- --only=backup`): the demo galleries with
 * 4 MB originals and 500 enquiries; one backup to a file, timed, with its size next to the data it
 * holds; the same archive's tar compressed with other gzip settings (why GZIP_OPTIONS); one restore into an
 * empty DATA_DIR, timed. In-process, as `npm run backup` and `npm run restore` run.
 */
import { randomBytes, randomUUID } from "node:crypto";
import fs from "node:fs/promises";
import os from "node:os";
import path from "node:path";
import { performance } from "node:perf_hooks";
import { Readable } from "node:stream";
import { promisify } from "node:util";
import zlib from "node:zlib";
import { GZIP_OPTIONS } from "~/backups/backup-format.server";
import { backupsDirOf } from "~/backups/backup-files.server";
import { createBackup } from "~/backups/backup.server";
import { restoreBackup } from "~/backups/restore.server";
import { parseEnv } from "~/env.server";
import { systemClock } from "~/lib/clock";
import { createLogger } from "~/lib/logger.server";
import { openServices } from "../server/bootstrap";
import { seedDemoData } from "./lib/production-server";

const ORIGINAL_BYTES = 4 * 1024 * 1024;
const gzip = promisify(zlib.gzip);
const gunzip = promisify(zlib.gunzip);

async function folderBytes(dir: string): Promise<number> {
  let total = 0;
  for (const entry of await fs.readdir(dir, { withFileTypes: true, recursive: true })) {
    if (entry.isFile()) total += (await fs.stat(path.join(entry.parentPath, entry.name))).size;
  }
  return total;
}

const mb = (bytes: number) => Math.round((bytes / 1024 / 1024) * 100) / 100;
const seconds = (ms: number) => Math.round(ms) / 1000;

export async function benchBackup() {
  const work = await fs.mkdtemp(path.join(os.tmpdir(), "cornerstone-bench-backup-"));
  try {
    const dataDir = path.join(work, "data");
    await seedDemoData(dataDir);
    const env = parseEnv({ DATA_DIR: dataDir, LOG_LEVEL: "silent" });
    const services = await openServices(env, createLogger({ level: "silent" }));
    const enquiries = 500;
    for (let i = 0; i < enquiries; i++) {
      await services.db
        .insertInto("contact_submissions")
        .values({
          id: randomUUID(),
          name: `Visitor ${i}`,
          email: `v${i}@example.co.nz`,
          phone: null,
          message: "Could you quote for a dry-stone garden wall of about twelve metres, please? ".repeat(3),
          submitted_at: new Date().toISOString(),
        })
        .execute();
    }
    // Camera-sized originals: the demo photos are drawn and compress unusually well, so each
    // original is replaced by 4 MB of random bytes (as incompressible as a real JPEG).
    for (const image of await services.db.selectFrom("gallery_images").select("original_key").execute()) {
      if (image.original_key)
        await services.storage.write(image.original_key, Readable.from([randomBytes(ORIGINAL_BYTES)]));
    }
    const uploadsBytes = await folderBytes(path.join(dataDir, "uploads"));
    const archive = path.join(work, "bench.tar.gz");

    const started = performance.now();
    const result = await createBackup(
      { ...services, clock: systemClock },
      { purpose: "manual", workDir: backupsDirOf(dataDir), destination: { kind: "file", path: archive } },
    );
    const backupMs = performance.now() - started;
    await services.close();
    if (result.status !== "succeeded") throw new Error(`backup ${result.status}`);

    // The same tar with other gzip settings: CPU time and size (why GZIP_OPTIONS).
    const tar = await gunzip(await fs.readFile(archive));
    const levels = [];
    const settings: [string, zlib.ZlibOptions][] = [
      ["level 1", { level: 1 }],
      ["level 6 (zlib default)", { level: 6 }],
      ["level 6, run-length only (used)", GZIP_OPTIONS],
      ["level 0 (stored)", { level: 0 }],
    ];
    for (const [label, options] of settings) {
      const t = performance.now();
      const out = await gzip(tar, options);
      levels.push({ gzip: label, seconds: seconds(performance.now() - t), archiveMB: mb(out.length) });
    }

    const restoreStarted = performance.now();
    const restored = await restoreBackup({ dataDir: path.join(work, "restored"), file: archive });
    const restoreMs = performance.now() - restoreStarted;

    const figures = {
      images: result.manifest.tables.gallery_images?.rows ?? 0,
      objects: result.manifest.objects.count,
      enquiries,
      uploadsMB: mb(uploadsBytes),
      archiveMB: mb(result.bytes),
      backupSeconds: seconds(backupMs),
      backupMBPerSecond: Math.round(mb(result.bytes) / (backupMs / 1000)),
      restoreSeconds: seconds(restoreMs),
      restoredObjects: restored.objects,
      gzipLevels: levels,
    };
    console.log("\n== Backup and restore (demo galleries with 4 MB originals, 500 enquiries)");
    console.log(JSON.stringify(figures, null, 2));
    return figures;
  } finally {
    await fs.rm(work, { recursive: true, force: true });
  }
}
