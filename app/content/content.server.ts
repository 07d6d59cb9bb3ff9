import { nowIso } from "~/db/database.server";
import type { AppServices } from "~/services.server";
import { defaultContentFor, defaultContentMap, type ContentMap, type SectionKey } from "./sections";

export type ContentEntry = {
  key: SectionKey;
  content: string;
  /** null while the built-in default is in use. */
  updatedAt: string | null;
  isDefault: boolean;
};

/** Blank stored text falls back to the default, so a cleared field never leaves a hole. */
function hasText(content: string | null | undefined): content is string {
  return typeof content === "string" && content.trim() !== "";
}

/**
 * The content for these keys: stored text where there is some, the built-in
 * fallback otherwise. A failed read is logged and falls back silently, and
 * `onFallback` hears of it (pages pass `context.markDegraded`, so such a
 * render is never cached).
 */
export async function readContent<K extends SectionKey>(
  { db, logger }: Pick<AppServices, "db" | "logger">,
  keys: readonly K[],
  options: { onFallback?: () => void } = {},
): Promise<ContentMap<K>> {
  const content = defaultContentMap(keys);
  if (keys.length === 0) return content;
  try {
    const rows = await db
      .selectFrom("content_entries")
      .select(["key", "content"])
      .where("key", "in", [...keys])
      .execute();
    for (const row of rows) {
      if (hasText(row.content)) content[row.key as K] = row.content;
    }
  } catch (error) {
    logger.error({ err: error, keys }, "reading content failed; showing the built-in text");
    options.onFallback?.();
  }
  return content;
}

export async function getContentEntry(
  { db }: Pick<AppServices, "db">,
  key: SectionKey,
): Promise<ContentEntry> {
  const row = await db
    .selectFrom("content_entries")
    .select(["content", "updated_at"])
    .where("key", "=", key)
    .executeTakeFirst();
  if (row && hasText(row.content)) {
    return { key, content: row.content, updatedAt: row.updated_at, isDefault: false };
  }
  return { key, content: defaultContentFor(key), updatedAt: null, isDefault: true };
}

export async function saveContent(
  services: Pick<AppServices, "db" | "publicContentChanged">,
  key: SectionKey,
  content: string,
): Promise<ContentEntry> {
  const updatedAt = nowIso();
  await services.db
    .insertInto("content_entries")
    .values({ key, content, updated_at: updatedAt })
    .onConflict((oc) => oc.column("key").doUpdateSet({ content, updated_at: updatedAt }))
    .execute();
  services.publicContentChanged();
  return hasText(content)
    ? { key, content, updatedAt, isDefault: false }
    : { key, content: defaultContentFor(key), updatedAt, isDefault: true };
}
