/**
 * Shared by `npm run lighthouse` and `npm run bench`: makes sure a production
 * build exists, seeds a temporary DATA_DIR with demo photos, and runs
 * build/server/index.js on a free 127.0.0.1 port exactly as in production.
 */
import { spawnSync } from "node:child_process";
import { existsSync } from "node:fs";
import fs from "node:fs/promises";
import path from "node:path";
import { fileURLToPath } from "node:url";
import { parseEnv } from "~/env.server";
import { seedDemoGallery } from "~/galleries/demo-images.server";
import { seedPhotoLikeGallery } from "./photo-like-gallery";
import type { GalleryType } from "~/galleries/gallery";
import { createLogger } from "~/lib/logger.server";
import { openServices } from "../../server/bootstrap";
import { REVIEWS_AND_TOWNS, seedDataDir } from "../../tests/support/seed";
import { freePort, startTestServer, type TestServer } from "../../tests/support/test-server";

export const PROJECT_ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), "../..");
const SERVER_ENTRY = path.join(PROJECT_ROOT, "build/server/index.js");

/** The demo galleries of `npm run seed:demo`: what a freshly set-up site shows. */
const DEMO_GALLERIES: Record<GalleryType, number> = { homepage: 3, traditional: 4, veneer: 4, landscaping: 4 };

/** The malloc tuning `npm run serve` uses in production. */
export const PRODUCTION_MALLOC_ENV = { MALLOC_ARENA_MAX: "2", MALLOC_MMAP_THRESHOLD_: "131072" } as const;

/** Runs `npm run build` when there is no production build yet (it never rebuilds an existing one). */
export function ensureBuild(): void {
  if (existsSync(SERVER_ENTRY)) return;
  console.error("build/server/index.js is missing: running `npm run build` first…");
  const result = spawnSync("npm", ["run", "build"], { cwd: PROJECT_ROOT, stdio: "inherit" });
  if (result.status !== 0) throw new Error("npm run build failed");
}

export { freePort };

export type SeededOriginals = Record<GalleryType, { count: number; bytes: number }>;

async function originalsOnDisk(dataDir: string): Promise<Map<string, number>> {
  const dir = path.join(dataDir, "uploads", "originals");
  const sizes = new Map<string, number>();
  if (!existsSync(dir)) return sizes;
  for (const name of await fs.readdir(dir)) sizes.set(name, (await fs.stat(path.join(dir, name))).size);
  return sizes;
}

/**
 * Fills the demo galleries at the default camera-like size (1800×1200), as
 * `npm run seed:demo` does, and returns the originals' bytes per gallery.
 */
export async function seedDemoData(dataDir: string, options: { photoLike?: boolean } = {}): Promise<SeededOriginals> {
  const env = parseEnv({ DATA_DIR: dataDir, LOG_LEVEL: "silent" });
  const services = await openServices(env, createLogger({ level: "silent" }));
  const originals = {} as SeededOriginals;
  try {
    for (const [galleryType, count] of Object.entries(DEMO_GALLERIES) as [GalleryType, number][]) {
      const before = await originalsOnDisk(dataDir);
      if (options.photoLike) await seedPhotoLikeGallery(services, galleryType, count);
      else await seedDemoGallery(services, galleryType, count);
      const added = [...(await originalsOnDisk(dataDir))].filter(([name]) => !before.has(name));
      originals[galleryType] = { count: added.length, bytes: added.reduce((sum, [, bytes]) => sum + bytes, 0) };
    }
  } finally {
    await services.close();
  }
  return originals;
}

export type ProductionServer = TestServer & { originals: SeededOriginals };

/** Seeds a fresh temporary DATA_DIR, then starts the production server on it (as the browser tests do). */
export async function startProductionServer(
  options: {
    env?: Record<string, string>;
    /** Photo-like images at a phone camera's size (scripts/lib/photo-like-gallery.ts). */ photoLike?: boolean;
  } = {},
): Promise<ProductionServer> {
  ensureBuild();
  let originals!: SeededOriginals;
  const server = await startTestServer({
    env: options.env,
    async prepare(dataDir) {
      const started = Date.now();
      originals = await seedDemoData(dataDir, { photoLike: options.photoLike });
      // Reviews on / and /contact and the towns served, as on a site the owner has filled in.
      await seedDataDir(dataDir, REVIEWS_AND_TOWNS);
      console.error(`seeded demo galleries in ${((Date.now() - started) / 1000).toFixed(1)} s`);
    },
  });
  return { ...server, originals };
}

/** Stops `server` on Ctrl-C too, so no temporary server or data directory is left behind. */
export function stopOnInterrupt(stop: () => Promise<unknown>): void {
  for (const signal of ["SIGINT", "SIGTERM"] as const) {
    process.once(signal, () => {
      void stop().finally(() => process.exit(130));
    });
  }
}
