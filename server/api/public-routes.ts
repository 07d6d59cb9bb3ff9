import { Router, type Request, type Response } from "express";
import { submitEnquiry } from "~/contact/submissions.server";
import { getContentEntry } from "~/content/content.server";
import { isSectionKey } from "~/content/sections";
import { listGalleryImages } from "~/galleries/galleries.server";
import { GALLERY_TYPES, isGalleryType } from "~/galleries/gallery";
import type { AppServices } from "~/services.server";
import { storeAndSend } from "../cached-response";
import { HttpError, badRequest, notFound } from "../http-error";
import { cacheKeyFor, type PageCache } from "../page-cache";
import { jsonObjectBody } from "./validation";

/** The public part of the API (spec §7): content, galleries and the contact form. */
export function publicRoutes(services: AppServices, pageCache?: PageCache): Router {
  const router = Router();

  router.get("/content/:key", async (req, res) => {
    const key = req.params.key;
    if (!isSectionKey(key)) throw notFound(`Unknown content key: ${key}`);
    const generation = pageCache?.generation ?? 0;
    sendPublicRead(req, res, await getContentEntry(services, key), pageCache, generation);
  });

  router.get("/galleries/:galleryType", async (req, res) => {
    const galleryType = req.params.galleryType;
    if (!isGalleryType(galleryType)) {
      throw badRequest(`Unknown gallery type "${galleryType}". Use one of: ${GALLERY_TYPES.join(", ")}`);
    }
    const generation = pageCache?.generation ?? 0;
    sendPublicRead(req, res, await listGalleryImages(services, galleryType), pageCache, generation);
  });

  router.post("/contact", async (req, res) => {
    const outcome = await submitEnquiry(services, jsonObjectBody(req), req.ip ?? "unknown");
    switch (outcome.status) {
      case "invalid":
        throw new HttpError(400, Object.values(outcome.errors)[0] ?? "Invalid enquiry", { errors: outcome.errors });
      case "rate-limited":
        throw new HttpError(
          429,
          "Too many messages from this address. Please try again later or call directly.",
          undefined,
          { "Retry-After": String(outcome.retryAfterSeconds) },
        );
      case "trapped":
        // Looks like success to the bot; nothing is stored.
        res.status(201).json({ message: "Message received" });
        return;
      case "stored":
        res.status(201).json({ message: "Message received", id: outcome.submission.id });
        return;
    }
  });

  return router;
}

/**
 * Sends a public read as JSON. With the page cache it is stored too, so the
 * next reads are answered before Express until a content or gallery write.
 */
function sendPublicRead(req: Request, res: Response, value: unknown, cache: PageCache | undefined, generation: number) {
  const key = cache ? cacheKeyFor(req.method, req.originalUrl) : null;
  if (!cache || !key) {
    res.json(value);
    return;
  }
  storeAndSend(req, res, {
    cache,
    key,
    generation,
    routeHeaders: { "Content-Type": "application/json; charset=utf-8" },
    body: Buffer.from(JSON.stringify(value)),
    cacheControl: "no-store",
  });
}
