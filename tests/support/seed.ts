import { parseEnv } from "~/env.server";
import { seedDemoGallery } from "~/galleries/demo-images.server";
import type { GalleryType } from "~/galleries/gallery";
import { createLogger } from "~/lib/logger.server";
import { openServices } from "../../server/bootstrap";

export type SeedSpec = Partial<Record<GalleryType, number>>;

/** Fills galleries in a data directory before its server starts (small images, quick to process). */
export async function seedGalleries(dataDir: string, spec: SeedSpec): Promise<void> {
  const env = parseEnv({ DATA_DIR: dataDir, LOG_LEVEL: "silent" });
  const services = await openServices(env, createLogger({ level: "silent" }));
  try {
    for (const [galleryType, count] of Object.entries(spec)) {
      if (count) await seedDemoGallery(services, galleryType as GalleryType, count, { width: 1200, height: 800 });
    }
  } finally {
    await services.db.destroy();
  }
}
