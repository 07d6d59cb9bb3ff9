import { PassThrough } from "node:stream";
import { finished } from "node:stream/promises";
import { Router } from "express";
import { backupsDirOf, listForeignBackups } from "~/backups/backup-files.server";
import { loadBackupNaming } from "~/backups/backup-names.server";
import { readBackupStatus, readOffsiteStatus } from "~/backups/backup-state.server";
import { ENCRYPTED_SUFFIX } from "~/backups/backup-encryption.server";
import { createBackup } from "~/backups/backup.server";
import { systemClock, type Clock } from "~/lib/clock";
import type { AppServices } from "~/services.server";
import { HttpError } from "../http-error";
import { recordRequestActivity } from "./activity-routes";

/** /api/admin/backups: the dashboard's backup status and the Download backup button. */
export function backupRoutes(services: AppServices, options: { clock?: Clock } = {}): Router {
  // The services' clock: injected in tests, the system's otherwise.
  const clock = options.clock ?? services.clock ?? systemClock;
  const router = Router();

  router.get("/status", async (_req, res) => {
    const { env } = services;
    const status = await readBackupStatus(
      { db: services.db, clock },
      { intervalHours: env.BACKUP_INTERVAL_HOURS, keep: env.BACKUP_KEEP },
    );
    const naming = await loadBackupNaming({ dataDir: env.DATA_DIR, sharedDb: env.DATABASE_URL ? services.db : null });
    const bucket = env.S3_BUCKET ? services.storage : null;
    const foreignBackups = await listForeignBackups(backupsDirOf(env.DATA_DIR), bucket, naming);
    const offsite = await readOffsiteStatus({ db: services.db, clock }, env);
    res.json({ ...status, foreignBackups, offsite });
  });

  // A fresh backup streamed to the owner's device, so that a copy lives off the server.
  router.get("/download", async (req, res) => {
    // A GET, so the cross-site check of state-changing requests does not cover it: another
    // site must not be able to make the owner's browser start backups.
    const fetchSite = req.get("sec-fetch-site");
    if (fetchSite === "cross-site" || fetchSite === "same-site")
      throw new HttpError(403, "Cross-site requests are not allowed");

    const cancelled = new AbortController();
    res.on("close", () => {
      if (!res.writableFinished) cancelled.abort(new Error("The download was cancelled"));
    });
    // The archive goes through `body`; the response ends only once createBackup has returned,
    // its lease released and its outcome recorded, so the dashboard asked next sees it finished.
    let body: PassThrough | null = null;
    res.on("close", () => body?.destroy());
    try {
      await createBackup(
        { ...services, clock },
        {
          purpose: "download",
          workDir: backupsDirOf(services.env.DATA_DIR),
          signal: cancelled.signal,
          passphrase: services.env.BACKUP_PASSPHRASE,
          destination: {
            kind: "stream",
            open: ({ fileName }) => {
              res.status(200).set({
                "Content-Type": fileName.endsWith(ENCRYPTED_SUFFIX) ? "application/octet-stream" : "application/gzip",
                "Content-Disposition": `attachment; filename="${fileName}"`,
                "Cache-Control": "no-store",
              });
              body = new PassThrough();
              body.pipe(res, { end: false });
              return body;
            },
          },
        },
      );
      // createBackup returns once it has written its last byte into `body`; the response may end
      // only when the pipe has handed all of them on, or the owner gets a truncated archive.
      if (body) await finished(body as PassThrough, { writable: false });
      await recordRequestActivity({ ...services, clock }, req, { kind: "backup.downloaded", outcome: "success" });
      res.end();
    } catch (error) {
      if (!res.headersSent) {
        if (cancelled.signal.aborted) return;
        throw new HttpError(
          500,
          "The backup could not be made. Please try again; if it keeps failing, check the server's log.",
        );
      }
      // Part of the archive is out: cut the connection, so the browser reports a failed download
      // rather than saving a truncated file as if it were whole.
      services.logger.warn({ err: error }, "backup download ended early");
      res.destroy();
    }
  });

  return router;
}
