import { randomBytes, randomUUID } from "node:crypto";
import fs from "node:fs/promises";
import path from "node:path";
import { Readable } from "node:stream";
import type { StoredObject, OffsiteStore } from "~/backups/offsite-store.server";
import { saveContent } from "~/content/content.server";
import type { SectionKey } from "~/content/sections";
import type { ImageVariants } from "~/images/processed-image";
import type { Clock } from "~/lib/clock";
import type { AppServices } from "~/services.server";

/**
 * The simulated site of `npm run bench -- --only=offsite` (decision 0060): photos as the owner
 * uploads them (a photo-like original of about 4 MB, and three display versions as the image
 * pipeline leaves them), text edits, deletions. Photo-like: random bytes behind a JPEG's first
 * ones, as incompressible as a real photo; generating real JPEGs of that size takes minutes each.
 */
export const ORIGINAL_BYTES = 4 * 1024 * 1024;
/** What the pipeline writes per photo, roughly (AVIF, WebP, JPEG at display sizes). */
const VARIANT_BYTES = { avif: 60_000, webp: 90_000, jpg: 160_000 } as const;
const EDITED_SECTIONS: SectionKey[] = [
  "hero.subtitle",
  "services.description",
  "about.snippet.content",
  "stonework.intro",
  "landscaping.intro",
  "about.bio",
];

type SiteServices = AppServices & { clock: Clock };

function photoBytes(bytes: number): Buffer {
  return Buffer.concat([Buffer.from([0xff, 0xd8, 0xff, 0xe0]), randomBytes(bytes - 4)]);
}

/** One photo in the "traditional" gallery: its original, its three versions and its row. Returns its bytes on disk. */
export async function addPhoto(services: SiteServices, n: number): Promise<number> {
  const originalKey = `originals/${randomUUID()}`;
  await services.storage.write(originalKey, Readable.from([photoBytes(ORIGINAL_BYTES + (n % 7) * 65_536)]));
  const variants: ImageVariants = { avif: [], webp: [], jpeg: { width: 1600, height: 1200, path: "", bytes: 0 } };
  let bytes = ORIGINAL_BYTES + (n % 7) * 65_536;
  for (const [ext, size] of Object.entries(VARIANT_BYTES)) {
    const name = `${randomBytes(10).toString("hex")}.${ext}`;
    await services.storage.write(`variants/${name}`, Readable.from([photoBytes(size)]));
    const variant = { width: 1600, height: 1200, path: `/media/${name}`, bytes: size };
    if (ext === "avif") variants.avif.push(variant);
    else if (ext === "webp") variants.webp.push(variant);
    else variants.jpeg = variant;
    bytes += size;
  }
  const now = services.clock.now().toISOString();
  await services.db
    .insertInto("gallery_images")
    .values({
      id: randomUUID(),
      gallery_type: "traditional",
      caption: `Dry-stone wall number ${n}, Taranaki`,
      sort_order: n,
      image_path: variants.jpeg.path,
      width: 1600,
      height: 1200,
      placeholder: "data:image/webp;base64,UklGRg==",
      variants: JSON.stringify(variants),
      original_key: originalKey,
      created_at: now,
      updated_at: now,
    })
    .execute();
  return bytes;
}

/** Deletes the oldest photo (its row, then its files: no backup runs between copies here). */
export async function deleteOldestPhoto(services: SiteServices): Promise<void> {
  const row = await services.db
    .selectFrom("gallery_images")
    .selectAll()
    .orderBy("created_at")
    .orderBy("sort_order")
    .limit(1)
    .executeTakeFirst();
  if (!row) return;
  await services.db.deleteFrom("gallery_images").where("id", "=", row.id).execute();
  const variants = JSON.parse(row.variants) as ImageVariants;
  for (const variant of [...variants.avif, ...variants.webp, variants.jpeg])
    await services.storage.delete(`variants/${variant.path.slice("/media/".length)}`);
  if (row.original_key) await services.storage.delete(row.original_key);
}

/** One owner's edit of a text (its earlier text kept as a version, as the editor does). */
export async function editText(services: SiteServices, n: number): Promise<void> {
  const key = EDITED_SECTIONS[n % EDITED_SECTIONS.length]!;
  await saveContent(
    services,
    key,
    `Edit ${n}: walls, steps and paving, built by hand in Taranaki since 1998. `.repeat(1 + (n % 4)),
  );
}

/** A deterministic pseudo-random source, so every run simulates the same history. */
export function seededRandom(seed: number): () => number {
  let state = seed >>> 0 || 1;
  return () => {
    state ^= state << 13;
    state >>>= 0;
    state ^= state >>> 17;
    state ^= state << 5;
    state >>>= 0;
    return state / 2 ** 32;
  };
}

/**
 * The store with its listing kept in memory from the first list on (every put and remove goes
 * through here, so it stays exact): s3rver lists thousands of objects slowly, a real S3 in one
 * request per thousand. Bytes and requests are still the store's own. `check()` compares it with the store.
 */
export function storeWithListingInMemory(store: OffsiteStore): OffsiteStore & { check(): Promise<boolean> } {
  let mirror: Map<string, StoredObject> | null = null;
  const listing = async () => (mirror ??= new Map((await store.list("")).map((object) => [object.key, object])));
  return {
    ...store,
    async put(key, body, options) {
      const bytes = await store.put(key, body, options);
      (await listing()).set(key, { key, bytes, modifiedAt: new Date() });
      return bytes;
    },
    async remove(key) {
      await store.remove(key);
      (await listing()).delete(key);
    },
    async list(prefix) {
      return [...(await listing()).values()]
        .filter((object) => object.key.startsWith(prefix))
        .sort((a, b) => (a.key < b.key ? -1 : 1));
    },
    async check() {
      const real = await store.list("");
      const held = await listing();
      return real.length === held.size && real.every((object) => held.get(object.key)?.bytes === object.bytes);
    },
  };
}

/** Bytes of every file under `dir`. */
export async function folderBytes(dir: string): Promise<number> {
  let total = 0;
  for (const entry of await fs.readdir(dir, { withFileTypes: true, recursive: true }).catch(() => [])) {
    if (entry.isFile()) total += (await fs.stat(path.join(entry.parentPath, entry.name))).size;
  }
  return total;
}
