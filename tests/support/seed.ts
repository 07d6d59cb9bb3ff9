import { saveContent } from "~/content/content.server";
import type { SectionKey } from "~/content/sections";
import { parseEnv } from "~/env.server";
import { seedDemoGallery } from "~/galleries/demo-images.server";
import type { GalleryType } from "~/galleries/gallery";
import { createLogger } from "~/lib/logger.server";
import { openServices } from "../../server/bootstrap";

export type SeedSpec = {
  /** Demo images per gallery (small, quick to process). */
  galleries?: Partial<Record<GalleryType, number>>;
  /** The demo images' size (default 1200 × 800: quick to process; phone-camera photos are wider). */
  gallerySize?: { width: number; height: number };
  /** Stored text per content key. */
  content?: Partial<Record<SectionKey, string>>;
};

/** Fills a data directory before its server starts. */
export async function seedDataDir(dataDir: string, spec: SeedSpec): Promise<void> {
  const env = parseEnv({ DATA_DIR: dataDir, LOG_LEVEL: "silent" });
  const services = await openServices(env, createLogger({ level: "silent" }));
  try {
    for (const [galleryType, count] of Object.entries(spec.galleries ?? {})) {
      if (count) await seedDemoGallery(services, galleryType as GalleryType, count, spec.gallerySize ?? { width: 1200, height: 800 });
    }
    for (const [key, content] of Object.entries(spec.content ?? {})) {
      await saveContent(services, key as SectionKey, content);
    }
  } finally {
    await services.close();
  }
}
