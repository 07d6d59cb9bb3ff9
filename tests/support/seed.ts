import { createHash, randomUUID } from "node:crypto";
import fs from "node:fs/promises";
import path from "node:path";
import { saveContent } from "~/content/content.server";
import { REVIEWS } from "~/content/lists";
import { addItem } from "~/content/lists.server";
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
  /** Customer reviews, in order (app/content/lists.ts REVIEWS). */
  reviews?: Partial<Record<keyof typeof REVIEWS.fields, string>>[];
};

/** Reviews and a towns text, showing on / and /contact: for the page-wide checks of what the owner adds. */
export const REVIEWS_AND_TOWNS = {
  reviews: [
    {
      quote: "Mark rebuilt our old basalt wall and it looks like it has always been there.",
      name: "Sarah K.",
      town: "Waitara",
      service: "Traditional Stonework",
      month: "2025-03",
      link: "https://g.page/r/cornerstone/review",
    },
    { quote: "Tidy, on time, and the deck is solid.", name: "Tom R.", town: "Inglewood", service: "Deck Construction" },
    {
      quote: "A retaining wall that finally holds the bank.",
      name: "Aroha P.",
      link: "https://www.builderscrack.co.nz/reviews/1",
    },
  ],
  content: { "contact.areas": "New Plymouth\nWaitara\nInglewood\nStratford" },
} satisfies SeedSpec;

/**
 * A folder where a test run keeps each seed it has made (the browser tests' global set-up sets it):
 * the same seed is then copied, not made again. Seeding runs the real image pipeline, about a
 * second or two a photo, and many specs seed the same galleries in both projects.
 */
export const SEED_CACHE_ENV = "CORNERSTONE_SEED_CACHE";

/** Fills a data directory before its server starts. */
export async function seedDataDir(dataDir: string, spec: SeedSpec): Promise<void> {
  const cache = process.env[SEED_CACHE_ENV];
  if (!cache) return seedInto(dataDir, spec);
  const seeded = path.join(cache, createHash("sha256").update(JSON.stringify(spec)).digest("hex").slice(0, 16));
  if (!(await fs.stat(seeded).catch(() => null))) {
    // Two workers may make the same seed at once: each makes its own, and the first rename wins.
    const making = `${seeded}.${randomUUID()}`;
    await fs.mkdir(making);
    await seedInto(making, spec);
    await fs.rename(making, seeded).catch(() => fs.rm(making, { recursive: true, force: true }));
  }
  await fs.cp(seeded, dataDir, { recursive: true });
}

async function seedInto(dataDir: string, spec: SeedSpec): Promise<void> {
  const env = parseEnv({ DATA_DIR: dataDir, LOG_LEVEL: "silent" });
  const services = await openServices(env, createLogger({ level: "silent" }));
  try {
    for (const [galleryType, count] of Object.entries(spec.galleries ?? {})) {
      if (count)
        await seedDemoGallery(
          services,
          galleryType as GalleryType,
          count,
          spec.gallerySize ?? { width: 1200, height: 800 },
        );
    }
    for (const [key, content] of Object.entries(spec.content ?? {})) {
      await saveContent(services, key as SectionKey, content);
    }
    for (const review of spec.reviews ?? []) await addItem(services, REVIEWS, review);
  } finally {
    await services.close();
  }
}
