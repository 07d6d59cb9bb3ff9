import { randomBytes } from "node:crypto";
import fs from "node:fs/promises";
import http from "node:http";
import os from "node:os";
import path from "node:path";
import { Readable } from "node:stream";
import express from "express";
import supertest from "supertest";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { verifyArchive } from "~/backups/restore.server";
import { seedDemoGallery } from "~/galleries/demo-images.server";
import { createApp } from "../../server/app";
import { ADMIN, createAdminContext, type AdminContext } from "./helpers";

// The download's response must end only after the last byte of the archive went out.
// A reader slower than the backup leaves the tail of the archive in the server's pipe when the
// backup returns; a response ended then would cut it off (without `await finished(body)` in
// server/api/backup-routes.ts this test fails: "The backup file is truncated").

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
    // The download's response reports backpressure after every chunk, as the socket of a reader
    // that takes one chunk at a time does, and drains 50 ms later: whatever the
    // archive's stream holds when the backup returns is still waiting for that drain.
    const app = express();
    app.use((req, res, next) => {
      if (req.path.endsWith("/backups/download")) {
        const write = res.write.bind(res) as (...args: unknown[]) => boolean;
        res.write = ((...args: unknown[]) => {
          if (write(...args)) setTimeout(() => res.emit("drain"), 50);
          return false;
        }) as typeof res.write;
      }
      next();
    });
    app.use(createApp(ctx.services));
    // Over a real socket (a Unix one).
    const socketPath = path.join(socketDir, "http.sock");
    const server = app.listen(socketPath);
    await new Promise((resolve) => server.once("listening", resolve));
    try {
      const login = await supertest(app).post("/api/login").send(ADMIN).expect(200);
      const cookie = ([] as string[]).concat(login.headers["set-cookie"] ?? [])[0]!.split(";")[0]!;
      const response = await new Promise<http.IncomingMessage>((resolve, reject) => {
        http
          .get({ socketPath, path: "/api/admin/backups/download", headers: { Cookie: cookie } }, resolve)
          .on("error", reject);
      });
      expect(response.statusCode).toBe(200);
      // And the reader is slow too: one chunk, then a pause.
      const chunks: Buffer[] = [];
      await new Promise<void>((resolve, reject) => {
        response.on("data", (chunk: Buffer) => {
          chunks.push(chunk);
          response.pause();
          setTimeout(() => response.resume(), 5);
        });
        response.on("end", resolve);
        response.on("error", reject);
      });
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
