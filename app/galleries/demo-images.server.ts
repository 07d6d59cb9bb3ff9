import { randomUUID } from "node:crypto";
import { Readable } from "node:stream";
import sharp from "sharp";
import { processImage } from "~/images/image-pipeline.server";
import type { AppServices } from "~/services.server";
import { createGalleryImage, listGalleryImages } from "./galleries.server";
import type { GalleryImage, GalleryType } from "./gallery";

/** Demo photos drawn locally (no downloads) for `npm run seed:demo`; tests use them too. */

/** A small deterministic random generator, so demo images are the same every run. */
function random(seed: number) {
  let state = seed >>> 0 || 1;
  return () => {
    state ^= state << 13;
    state ^= state >>> 17;
    state ^= state << 5;
    return ((state >>> 0) % 10_000) / 10_000;
  };
}

const STONE_TONES = {
  traditional: ["#8d8479", "#a39a8f", "#776e64", "#b3a99b", "#6b625a", "#9a8f80"],
  veneer: ["#c2b49f", "#a8977f", "#d1c5b3", "#8f7f6b", "#b9a68b", "#e0d6c6"],
  landscaping: ["#7a6a55", "#8d7b63", "#66594a", "#a0906f", "#5c5042", "#857256"],
  homepage: ["#6f675f", "#8a8076", "#9d9286", "#5f574f", "#7d7369", "#b0a597"],
} as const satisfies Record<GalleryType, readonly string[]>;

/** An SVG picture of stonework: coursed stones with mortar joints under a sky band. */
function demoSvg(galleryType: GalleryType, seed: number, width: number, height: number): string {
  const rand = random(seed * 7919 + galleryType.length);
  const tones = STONE_TONES[galleryType];
  const skyHeight = galleryType === "homepage" || galleryType === "landscaping" ? Math.round(height * 0.35) : 0;
  const courseHeight = galleryType === "veneer" ? height / 16 : height / 9;
  const shapes: string[] = [];
  for (let y = skyHeight; y < height; y += courseHeight) {
    let x = -rand() * 80;
    while (x < width) {
      const w = courseHeight * (galleryType === "veneer" ? 2.5 + rand() * 4 : 1.2 + rand() * 1.8);
      const tone = tones[Math.floor(rand() * tones.length)];
      const inset = 4 + rand() * 4;
      shapes.push(
        `<rect x="${x + inset}" y="${y + inset}" width="${w - inset * 2}" height="${courseHeight - inset * 2}" rx="${6 + rand() * 10}" fill="${tone}"/>`,
      );
      x += w;
    }
  }
  const sky = skyHeight
    ? `<rect width="${width}" height="${skyHeight}" fill="url(#sky)"/><rect y="${skyHeight - 24}" width="${width}" height="24" fill="#4d6b3c"/>`
    : "";
  return `<svg xmlns="http://www.w3.org/2000/svg" width="${width}" height="${height}">
  <defs>
    <linearGradient id="sky" x1="0" y1="0" x2="0" y2="1"><stop offset="0" stop-color="#7fa7c9"/><stop offset="1" stop-color="#d9e6ee"/></linearGradient>
    <linearGradient id="light" x1="0" y1="0" x2="1" y2="1"><stop offset="0" stop-color="#fff" stop-opacity="0.18"/><stop offset="1" stop-color="#000" stop-opacity="0.25"/></linearGradient>
  </defs>
  <rect width="${width}" height="${height}" fill="#cfc7bb"/>
  ${sky}
  ${shapes.join("\n  ")}
  <rect width="${width}" height="${height}" fill="url(#light)"/>
</svg>`;
}

/** A demo photo as a JPEG, like one from a phone camera (without the GPS). */
export async function renderDemoPhoto(
  galleryType: GalleryType,
  seed: number,
  size: { width: number; height: number } = { width: 1800, height: 1200 },
): Promise<Buffer> {
  return sharp(Buffer.from(demoSvg(galleryType, seed, size.width, size.height)))
    .jpeg({ quality: 88 })
    .toBuffer();
}

export const DEMO_CAPTIONS: Record<GalleryType, string[]> = {
  traditional: [
    "Dry-stacked basalt garden wall, Ōakura",
    "Lime-pointed heritage wall repair",
    "Stone entrance pillars, Inglewood",
    "",
  ],
  veneer: ["Schist veneer feature wall", "Stacked-stone fireplace surround", "", "Veneer house foundation, Fitzroy"],
  landscaping: [
    "Timber retaining wall and steps",
    "Composite deck with stone edging",
    "",
    "Raised garden beds, Bell Block",
  ],
  homepage: ["", "", "", ""],
};

/** Adds `count` demo images to a gallery, after any already there. */
export async function seedDemoGallery(
  services: Pick<AppServices, "db" | "storage" | "publicContentChanged">,
  galleryType: GalleryType,
  count: number,
  size?: { width: number; height: number },
): Promise<GalleryImage[]> {
  const existing = (await listGalleryImages(services, galleryType)).length;
  const created: GalleryImage[] = [];
  for (let i = 0; i < count; i++) {
    const landscape = galleryType === "homepage" || i % 3 !== 1;
    const base = size ?? { width: 1800, height: 1200 };
    const dimensions = landscape ? base : { width: base.height, height: base.width };
    const photo = await renderDemoPhoto(galleryType, existing + i + 1, dimensions);
    const originalKey = `originals/demo-${randomUUID()}`;
    await services.storage.write(originalKey, Readable.from(photo));
    const processed = await processImage(services.storage, originalKey);
    created.push(
      await createGalleryImage(services, {
        galleryType,
        caption: DEMO_CAPTIONS[galleryType][(existing + i) % 4] ?? "",
        processed,
        originalKey,
      }),
    );
  }
  return created;
}
