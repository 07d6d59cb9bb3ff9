import { Router } from "express";
import { saveContent } from "~/content/content.server";
import { contentUpdateSchema } from "~/content/content-schema";
import { getSection, isHttpsAddress, isSectionKey } from "~/content/sections";
import {
  GalleryOrderMismatchError,
  deleteGalleryImage,
  reorderGallery,
  updateGalleryImageCaption,
} from "~/galleries/galleries.server";
import { GALLERY_TITLES, isGalleryType } from "~/galleries/gallery";
import { captionUpdateSchema, reorderGallerySchema } from "~/galleries/gallery-schemas";
import type { AppServices } from "~/services.server";
import { HttpError, notFound } from "../http-error";
import { activityRoutes, recordRequestActivity } from "./activity-routes";
import { backupRoutes } from "./backup-routes";
import { storageRoutes } from "./storage-routes";
import { submissionRoutes } from "./submission-routes";
import { analyticsRoutes } from "./analytics-routes";
import { watchContactEmail } from "./contact-email-change";
import { contentHistoryRoutes } from "./content-history-routes";
import { adminListRoutes } from "./list-routes";
import { addUploadedImage } from "./uploads";
import { parseJsonBody } from "./validation";

/** Everything under /api/admin; the router mounting it requires a signed-in administrator. */
export function adminRoutes(services: AppServices): Router {
  const router = Router();

  router.put("/content/:sectionKey", async (req, res) => {
    const key = req.params.sectionKey;
    if (!isSectionKey(key)) throw notFound(`Unknown content section: ${key}`);
    const { content } = parseJsonBody(req, contentUpdateSchema);
    if (getSection(key).format === "https" && content.trim() !== "" && !isHttpsAddress(content.trim())) {
      throw new HttpError(400, "content must be an https:// address", {
        errors: { content: "content must be an https:// address" },
      });
    }
    const saved = await watchContactEmail(services, req, key, () =>
      saveContent(services, key, content, { savedBy: res.locals.user?.username ?? null }),
    );
    await recordRequestActivity(services, req, {
      kind: "text.saved",
      outcome: "success",
      detail: { section: getSection(key).title },
    });
    res.json(saved);
  });
  router.use(contentHistoryRoutes(services));
  router.use(analyticsRoutes(services));
  router.use(activityRoutes(services));

  router.use(submissionRoutes(services));
  router.use(adminListRoutes(services));

  router.put("/gallery-images", async (req, res) => {
    const image = await addUploadedImage(services, req);
    await recordRequestActivity(services, req, {
      kind: "image.uploaded",
      outcome: "success",
      detail: { gallery: GALLERY_TITLES[image.galleryType], count: 1 },
    });
    res.status(201).json(image);
  });

  // Registered before "/gallery-images/:id" routes; different methods anyway.
  router.put("/gallery-images/reorder", async (req, res) => {
    const { galleryType, imageIds } = parseJsonBody(req, reorderGallerySchema);
    try {
      const images = await reorderGallery(services, galleryType, imageIds);
      await recordRequestActivity(services, req, {
        kind: "image.reordered",
        outcome: "success",
        detail: { gallery: GALLERY_TITLES[galleryType] },
      });
      res.json(images);
    } catch (error) {
      if (error instanceof GalleryOrderMismatchError) throw new HttpError(400, error.message);
      throw error;
    }
  });

  router.patch("/gallery-images/:id", async (req, res) => {
    const { caption } = parseJsonBody(req, captionUpdateSchema);
    const image = await updateGalleryImageCaption(services, req.params.id, caption);
    if (!image) throw notFound("No such image");
    await recordRequestActivity(services, req, {
      kind: "image.captioned",
      outcome: "success",
      detail: { gallery: GALLERY_TITLES[image.galleryType] },
    });
    res.json(image);
  });

  router.delete("/gallery-images/:id", async (req, res) => {
    // Which gallery, for the security log's words ("Deleted 1 photo from Hard Landscaping").
    const gallery = await services.db
      .selectFrom("gallery_images")
      .select("gallery_type")
      .where("id", "=", req.params.id)
      .executeTakeFirst();
    if (!(await deleteGalleryImage(services, req.params.id))) throw notFound("No such image");
    const type = gallery?.gallery_type ?? "";
    await recordRequestActivity(services, req, {
      kind: "image.deleted",
      outcome: "success",
      detail: { gallery: isGalleryType(type) ? GALLERY_TITLES[type] : undefined, count: 1 },
    });
    res.status(204).end();
  });

  router.use("/backups", backupRoutes(services));
  router.use(storageRoutes(services));

  return router;
}
