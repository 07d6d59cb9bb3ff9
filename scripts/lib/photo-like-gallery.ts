import { randomUUID } from "node:crypto";
import { Readable } from "node:stream";
import { createGalleryImage } from "~/galleries/galleries.server";
import type { GalleryType } from "~/galleries/gallery";
import { processImage } from "~/images/image-pipeline.server";
import type { AppServices } from "~/services.server";
import { photoLikeJpeg } from "./photo-like-jpeg";

/** The grain of scripts/lib/photo-like-jpeg.ts that gives an 800 px AVIF of about 46 KB, as noisy camera photos have. */
const PHOTO_TEXTURE = 30;

/** A phone camera's photo size (12 MP, 4:3). */
const PHONE_CAMERA_SIZE = { width: 4032, height: 3024 } as const;

/**
 * Adds `count` photo-like images (scripts/lib/photo-like-jpeg.ts) at a phone camera's size, so the
 * pages' largest photos have realistic bytes (flat demo drawings compress far better).
 */
let seeded = 0;

export async function seedPhotoLikeGallery(
  services: Pick<AppServices, "db" | "storage" | "publicContentChanged">,
  galleryType: GalleryType,
  count: number,
): Promise<void> {
  for (let i = 0; i < count; i++) {
    // A different noise level each, so no two photos are the same file (variants are stored by content).
    // The grain keeps the small variants as heavy as a real photo's: the 800 px AVIF weighs 44–47 KB.
    const original = await photoLikeJpeg({
      ...PHONE_CAMERA_SIZE,
      quality: 92,
      noise: 30 + (seeded++ % 40),
      texture: PHOTO_TEXTURE,
    });
    const originalKey = `originals/photo-like-${randomUUID()}`;
    await services.storage.write(originalKey, Readable.from(original));
    const processed = await processImage(services.storage, originalKey);
    await createGalleryImage(services, {
      galleryType,
      caption: `${galleryType} photo ${i + 1}`,
      processed,
      originalKey,
    });
  }
}
