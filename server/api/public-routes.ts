import { Router, type Request, type Response } from "express";
import { submitEnquiry } from "~/contact/submissions.server";
import { MAX_ENQUIRY_PHOTOS, PHOTO_TOKENS_FIELD, type ContactAccepted } from "~/enquiry-photos/enquiry-photos";
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
    const body = jsonObjectBody(req);
    const photoTokens = photoTokensOf(body);
    const outcome = await submitEnquiry(services, body, req.ip ?? "unknown", { photoTokens });
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
      case "trapped": {
        // Looks like success to the bot; nothing is stored.
        const accepted: ContactAccepted = { message: "Message received" };
        if (photoTokens) accepted.photos = { attached: photoTokens.length, notAttached: 0, notTaken: false };
        res.status(201).json(accepted);
        return;
      }
      case "stored": {
        const accepted: ContactAccepted = { message: "Message received", id: outcome.submission.id };
        if (outcome.photos) accepted.photos = outcome.photos;
        res.status(201).json(accepted);
        return;
      }
    }
  });

  return router;
}

/** `photoTokens`, when sent, must be a list of at most 5 tokens (the spec's JSON without it is unchanged). */
function photoTokensOf(body: Record<string, unknown>): string[] | undefined {
  const value = body[PHOTO_TOKENS_FIELD];
  if (value === undefined) return undefined;
  if (
    !Array.isArray(value) ||
    value.length > MAX_ENQUIRY_PHOTOS ||
    !value.every((token) => typeof token === "string" && token.length > 0 && token.length <= 200)
  ) {
    throw badRequest(`${PHOTO_TOKENS_FIELD} must be a list of at most ${MAX_ENQUIRY_PHOTOS} photo tokens`);
  }
  return value as string[];
}

/** A public read as JSON, stored in the page cache too until a content or gallery write. */
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
