import { randomBytes } from "node:crypto";
import fs from "node:fs/promises";
import http from "node:http";
import os from "node:os";
import path from "node:path";
import { Readable } from "node:stream";
import supertest from "supertest";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { isBackupRunning } from "~/backups/backup-lease.server";
import { verifyArchive } from "~/backups/restore.server";
import { seedDemoGallery } from "~/galleries/demo-images.server";
import { systemClock } from "~/lib/clock";
import { createLogger } from "~/lib/logger.server";
import { createApp } from "../../server/app";
import { ADMIN, createAdminContext, type AdminContext } from "./helpers";

// Issue 17 §12: the download's response must end only after the last byte of the archive went out.
// A reader slower than the backup leaves the tail of the archive in the server's pipe when the
// backup returns; a response ended then would cut it off.

const ARCHIVE_BYTES = 1024 * 1024;

let ctx: AdminContext;
let socketDir: string;
beforeEach(async () => {
  ctx = await createAdminContext();
  // An original of 1 MB that gzip cannot shrink: far more than a Unix socket and the streams buffer.
  await seedDemoGallery(ctx.services, "traditional", 1, { width: 480, height: 320 });
  const [original] = await ctx.services.storage.list("originals/");
  await ctx.services.storage.write(original!.key, Readable.from([randomBytes(ARCHIVE_BYTES)]));
  socketDir = await fs.mkdtemp(path.join(os.tmpdir(), "cornerstone-download-"));
});
afterEach(async () => {
  await ctx.close();
  await fs.rm(socketDir, { recursive: true, force: true });
});

describe("GET /api/admin/backups/download to a slow reader", () => {
  it("delivers the whole archive, every entry matching its manifest", async () => {
    // The reader stops reading when the backup says it is written (its last step before it
    // returns), until it has returned: the tail of the archive is then still in the server's pipe.
    let stalled: Promise<unknown> | null = null;
    const logger = createLogger({
      level: "info",
      destination: {
        write(line: string) {
          if (line.includes("backup written")) {
            stalled = expect.poll(() => isBackupRunning({ db: ctx.services.db, clock: systemClock })).toBe(false);
          }
        },
      },
    });
    const app = createApp({ ...ctx.services, logger });
    // A real socket, and a Unix one: its buffers are small, so the reader's pace really holds the server back.
    const socketPath = path.join(socketDir, "http.sock");
    const server = app.listen(socketPath);
    await new Promise((resolve) => server.once("listening", resolve));
    try {
      const login = await supertest(app).post("/api/login").send(ADMIN).expect(200);
      const cookie = ([] as string[]).concat(login.headers["set-cookie"] ?? [])[0]!.split(";")[0]!;
      const response = await new Promise<http.IncomingMessage>((resolve, reject) => {
        http.get({ socketPath, path: "/api/admin/backups/download", headers: { Cookie: cookie } }, resolve).on("error", reject);
      });
      expect(response.statusCode).toBe(200);
      // One chunk, then a pause: slower than the backup writes, so every buffer on the way stays full.
      // Slower still over the second half, where the backup finishes, so that the reader rarely reads
      // between the archive's last byte and the log line.
      const chunks: Buffer[] = [];
      let received = 0;
      await new Promise<void>((resolve, reject) => {
        response.on("data", (chunk: Buffer) => {
          chunks.push(chunk);
          received += chunk.length;
          response.pause();
          const pause = received < ARCHIVE_BYTES / 2 ? 20 : 250;
          setTimeout(() => void (stalled ?? Promise.resolve()).then(() => response.resume()), pause);
        });
        response.on("end", resolve);
        response.on("error", reject);
      });
      expect(stalled, "the reader waited while the backup recorded its outcome").not.toBeNull();
      const archive = Buffer.concat(chunks);
      expect(archive.length).toBeGreaterThan(ARCHIVE_BYTES);
      const saved = path.join(socketDir, "downloaded.tar.gz");
      await fs.writeFile(saved, archive);
      const manifest = await verifyArchive(saved);
      expect(manifest.tables.gallery_images!.rows).toBe(1);
      expect(manifest.tables.users!.rows).toBe(1);
    } finally {
      server.closeAllConnections();
      await new Promise((resolve) => server.close(resolve));
    }
  }, 60_000);
});
