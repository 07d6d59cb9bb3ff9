import { createHash, randomUUID } from "node:crypto";
import fs from "node:fs/promises";
import os from "node:os";
import path from "node:path";
import type { Kysely } from "kysely";
import pino from "pino";
import { createSession, ensureAdministrator } from "~/auth/auth.server";
import { BACKUP_TABLES } from "~/backups/backup-tables.server";
import { saveContent } from "~/content/content.server";
import { REVIEWS } from "~/content/lists";
import { addItem } from "~/content/lists.server";
import { listTables } from "~/db/snapshot.server";
import { parseEnv } from "~/env.server";
import { seedDemoGallery } from "~/galleries/demo-images.server";
import { storageKeysOf } from "~/galleries/galleries.server";
import type { GalleryType } from "~/galleries/gallery";
import { createLogger, type Logger } from "~/lib/logger.server";
import type { AppServices } from "~/services.server";
import { openServices } from "../../server/bootstrap";

/** A small real site on disk for backup tests: texts, three galleries, enquiries, an administrator with a session. */
export const SITE_TEXTS = {
  "hero.title": "Stone that outlasts us all",
  "services.description": "Walls, steps and paving — built by hand in Taranaki.",
  "stonework.intro": "Dry-stacked and mortared walls.",
} as const;

export async function openSite(
  dataDir: string,
  logger: Logger = createLogger({ level: "silent" }),
): Promise<AppServices> {
  const env = parseEnv({ DATA_DIR: dataDir, LOG_LEVEL: "silent", NODE_ENV: "test" });
  return openServices(env, logger);
}

export async function createSite(
  options: { galleries?: Partial<Record<GalleryType, number>>; enquiries?: number } = {},
): Promise<{ dataDir: string; services: AppServices }> {
  const dataDir = await fs.mkdtemp(path.join(os.tmpdir(), "cornerstone-backup-"));
  const services = await openSite(dataDir);
  await ensureAdministrator(services, { username: "owner", password: "the password at backup time" });
  const user = await services.db.selectFrom("users").select("id").executeTakeFirstOrThrow();
  await createSession(services, user.id);
  for (const [galleryType, count] of Object.entries(
    options.galleries ?? { traditional: 2, veneer: 1, landscaping: 1 },
  )) {
    await seedDemoGallery(services, galleryType as GalleryType, count, { width: 480, height: 320 });
  }
  for (const [key, content] of Object.entries(SITE_TEXTS))
    await saveContent(services, key as keyof typeof SITE_TEXTS, content);
  for (let i = 0; i < (options.enquiries ?? 20); i++) await insertEnquiry(services, i);
  // Customer reviews (list_items): compared row for row by dumpSite, as every backed-up table.
  for (const name of ["Sarah K.", "Tom R."]) await addItem(services, REVIEWS, { quote: `Good work, ${name}`, name });
  return { dataDir, services };
}

export async function insertEnquiry(services: Pick<AppServices, "db">, n: number): Promise<string> {
  const id = randomUUID();
  await services.db
    .insertInto("contact_submissions")
    .values({
      id,
      name: `Visitor ${n}`,
      email: `visitor${n}@example.co.nz`,
      phone: n % 2 ? `06 75${String(n).padStart(5, "0")}` : null,
      message: `Enquiry number ${n}: could you quote for a stone wall?`,
      submitted_at: new Date(Date.UTC(2026, 0, 1, 0, 0, n)).toISOString(),
    })
    .execute();
  return id;
}

export type SiteDump = { tables: Record<string, Record<string, unknown>[]>; objects: Record<string, string> };

/** Every row of every included table (in a stable order) and the SHA-256 of every object the rows refer to. */
export async function dumpSite(services: Pick<AppServices, "db" | "storage">): Promise<SiteDump> {
  const db = services.db as unknown as Kysely<Record<string, Record<string, unknown>>>;
  const present = new Set(await listTables(services.db));
  const tables: SiteDump["tables"] = {};
  for (const { name } of BACKUP_TABLES) {
    if (!present.has(name)) continue;
    let rows = await db.selectFrom(name).selectAll().execute();
    // A restore adds one record of itself to the security log: the rest is compared.
    if (name === "activity_log") rows = rows.filter((row) => row.kind !== "backup.restored");
    tables[name] = rows.sort((a, b) => JSON.stringify(a).localeCompare(JSON.stringify(b)));
  }
  const objects: SiteDump["objects"] = {};
  const images = await services.db.selectFrom("gallery_images").selectAll().execute();
  for (const key of images.flatMap(storageKeysOf).sort()) {
    const object = await services.storage.read(key);
    if (!object) throw new Error(`missing object ${key}`);
    const hash = createHash("sha256");
    for await (const chunk of object.stream) hash.update(chunk as Buffer);
    objects[key] = hash.digest("hex");
  }
  return { tables, objects };
}

/** A logger that keeps every line, for "logged at error level" checks. */
export function capturingLogger(): { logger: Logger; lines: { level: number; msg: string }[] } {
  const lines: { level: number; msg: string }[] = [];
  const logger = pino(
    { level: "info", base: undefined },
    { write: (line: string) => void lines.push(JSON.parse(line)) },
  );
  return { logger, lines };
}

export const ERROR_LEVEL = 50;
