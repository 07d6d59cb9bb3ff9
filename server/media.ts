import { Router } from "express";
import { pipeline } from "node:stream/promises";
import { ENQUIRY_PHOTO_PREFIX } from "~/storage/storage-keys.server";
import { variantKeyFromPublicPath } from "~/images/processed-image";
import type { AppServices } from "~/services.server";

const CONTENT_TYPES: Record<string, string> = { avif: "image/avif", webp: "image/webp", jpg: "image/jpeg" };

/** The `variants/` key a /media name stands for, or null: visitors' photos and originals never are. */
export function publicMediaKey(file: string): string | null {
  const key = variantKeyFromPublicPath(`/media/${file}`);
  if (!key || !key.startsWith("variants/") || key.includes(ENQUIRY_PHOTO_PREFIX)) return null;
  return key;
}

/** Serves image variants at /media/<content hash>.<ext>; originals are never served. */
export function mediaRouter(services: AppServices): Router {
  const router = Router();
  router.get("/:file", async (req, res) => {
    const key = publicMediaKey(req.params.file);
    const object = key ? await services.storage.read(key) : null;
    if (!key || !object) {
      res.status(404).set("Cache-Control", "no-store").type("text/plain").send("Not found");
      return;
    }
    const extension = key.slice(key.lastIndexOf(".") + 1);
    res.set({
      "Content-Type": CONTENT_TYPES[extension] ?? "application/octet-stream",
      "Content-Length": String(object.bytes),
      // Content-addressed names never change meaning: cache for a year.
      "Cache-Control": "public, max-age=31536000, immutable",
      "Cross-Origin-Resource-Policy": "same-origin",
    });
    if (req.method === "HEAD") {
      object.stream.destroy();
      res.end();
      return;
    }
    try {
      await pipeline(object.stream, res);
    } catch (error) {
      // A visitor who leaves mid-image is no server error; a failing disk or bucket is.
      if (res.destroyed && !res.writableFinished && req.destroyed) return;
      throw error;
    }
  });
  return router;
}
