import { Router } from "express";
import { BUCKET_PUBLIC_MESSAGE } from "~/storage/bucket-privacy";
import type { AppServices } from "~/services.server";

/** What the dashboard needs to know about where photos and backups are kept (under /api/admin). */
export function storageRoutes(services: AppServices): Router {
  const router = Router();

  /** GET /api/admin/storage/privacy: the start-up privacy check's finding, with the notice's text when public. */
  router.get("/storage/privacy", (_req, res) => {
    const privacy = services.bucketPrivacy;
    res.json(privacy.status === "public" ? { ...privacy, message: BUCKET_PUBLIC_MESSAGE } : privacy);
  });

  return router;
}
