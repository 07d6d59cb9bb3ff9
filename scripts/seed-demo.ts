// npm run seed:demo [-- --force]
// Fills each empty gallery with demo photos drawn locally with sharp (no downloads),
// so a new install shows a populated site. --force adds them even to non-empty galleries.
// Run it while the server is stopped, or restart the server afterwards.
import { parseEnv } from "~/env.server";
import { seedDemoGallery } from "~/galleries/demo-images.server";
import { listGalleryImages } from "~/galleries/galleries.server";
import { GALLERY_TYPES } from "~/galleries/gallery";
import { createLogger } from "~/lib/logger.server";
import { openServices } from "../server/bootstrap";

const COUNTS = { homepage: 3, traditional: 4, veneer: 4, landscaping: 4 } as const;

const force = process.argv.includes("--force");
const env = parseEnv();
const services = await openServices(env, createLogger({ level: "warn" }));
try {
  for (const galleryType of GALLERY_TYPES) {
    const existing = (await listGalleryImages(services, galleryType)).length;
    if (existing > 0 && !force) {
      console.log(`${galleryType}: already has ${existing} image(s), left alone`);
      continue;
    }
    const started = Date.now();
    const added = await seedDemoGallery(services, galleryType, COUNTS[galleryType]);
    console.log(
      `${galleryType}: added ${added.length} demo image(s) in ${((Date.now() - started) / 1000).toFixed(1)} s`,
    );
  }
} finally {
  await services.close();
}
