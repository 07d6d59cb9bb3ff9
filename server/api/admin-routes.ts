import { Router } from "express";
import { saveContent } from "~/content/content.server";
import { contentUpdateSchema } from "~/content/content-schema";
import { isSectionKey } from "~/content/sections";
import {
  GalleryOrderMismatchError,
  deleteGalleryImage,
  reorderGallery,
  updateGalleryImageCaption,
} from "~/galleries/galleries.server";
import { captionUpdateSchema, reorderGallerySchema } from "~/galleries/gallery-schemas";
import type { AppServices } from "~/services.server";
import { HttpError, notFound } from "../http-error";
import { activityRoutes } from "./activity-routes";
import { backupRoutes } from "./backup-routes";
import { submissionRoutes } from "./submission-routes";
import { analyticsRoutes } from "./analytics-routes";
import { contentHistoryRoutes } from "./content-history-routes";
import { addUploadedImage } from "./uploads";
import { parseJsonBody } from "./validation";

/** Everything under /api/admin; the router mounting it requires a signed-in administrator. */
export function adminRoutes(services: AppServices): Router {
  const router = Router();

  router.put("/content/:sectionKey", async (req, res) => {
    const key = req.params.sectionKey;
    if (!isSectionKey(key)) throw notFound(`Unknown content section: ${key}`);
    const { content } = parseJsonBody(req, contentUpdateSchema);
    res.json(await saveContent(services, key, content, { savedBy: res.locals.user?.username ?? null }));
  });
  router.use(contentHistoryRoutes(services));
  router.use(analyticsRoutes(services));
  router.use(activityRoutes(services));

  router.use(submissionRoutes(services));

  router.put("/gallery-images", async (req, res) => {
    res.status(201).json(await addUploadedImage(services, req));
  });

  // Registered before "/gallery-images/:id" routes; different methods anyway.
  router.put("/gallery-images/reorder", async (req, res) => {
    const { galleryType, imageIds } = parseJsonBody(req, reorderGallerySchema);
    try {
      res.json(await reorderGallery(services, galleryType, imageIds));
    } catch (error) {
      if (error instanceof GalleryOrderMismatchError) throw new HttpError(400, error.message);
      throw error;
    }
  });

  router.patch("/gallery-images/:id", async (req, res) => {
    const { caption } = parseJsonBody(req, captionUpdateSchema);
    const image = await updateGalleryImageCaption(services, req.params.id, caption);
    if (!image) throw notFound("No such image");
    res.json(image);
  });

  router.delete("/gallery-images/:id", async (req, res) => {
    if (!(await deleteGalleryImage(services, req.params.id))) throw notFound("No such image");
    res.status(204).end();
  });

  router.use("/backups", backupRoutes(services));

  return router;
}
