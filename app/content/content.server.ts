import { randomUUID } from "node:crypto";
import { lockForTransaction } from "~/db/database.server";
import { systemClock, type Clock } from "~/lib/clock";
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

/** A failed read is logged and falls back; `onFallback` hears of it (pages pass `context.markDegraded`: not cached). */
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

export async function getContentEntry({ db }: Pick<AppServices, "db">, key: SectionKey): Promise<ContentEntry> {
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

/** The versions kept per section (decision 0030); older ones are pruned in the save's own transaction. */
export const MAX_VERSIONS_PER_SECTION = 50;
/** Compare-and-set attempts when another save of the same section commits in between (PostgreSQL). */
const MAX_WRITE_ATTEMPTS = 5;

type WriteServices = Pick<AppServices, "db" | "publicContentChanged"> & { clock?: Clock };

/** One earlier text of a section, as GET /api/admin/content/:key/history lists it. */
export type ContentVersion = {
  id: string;
  content: string;
  /** When that text was saved. */
  savedAt: string;
  /** Who saved it: the administrator's username (null for text saved before history was kept). */
  savedBy: string | null;
};

export class ContentWriteConflictError extends Error {
  override name = "ContentWriteConflictError";
}

/** ISO time strictly after every given one (so versions of a section never tie), and not before now. */
function laterThan(now: Date, ...times: (string | undefined)[]): string {
  let at = now.getTime();
  for (const time of times) if (time) at = Math.max(at, Date.parse(time) + 1);
  return new Date(at).toISOString();
}

/** A compare-and-set on `updated_at`: two racing PostgreSQL saves cannot both keep the same previous text. */
async function writeContent(
  services: WriteServices,
  key: SectionKey,
  next: string | null,
  savedBy: string | null,
): Promise<ContentEntry> {
  const clock = services.clock ?? systemClock;
  for (let attempt = 0; attempt < MAX_WRITE_ATTEMPTS; attempt++) {
    const entry = await services.db.transaction().execute(async (trx): Promise<ContentEntry | null> => {
      // PostgreSQL: saves of one section queue here instead of losing the compare-and-set below.
      await lockForTransaction(trx, `content:${key}`);
      const current = await trx
        .selectFrom("content_entries")
        .select(["content", "updated_at", "updated_by"])
        .where("key", "=", key)
        .executeTakeFirst();
      if (next === null && !current) return { key, content: defaultContentFor(key), updatedAt: null, isDefault: true };
      const latest = await trx
        .selectFrom("content_revisions")
        .select("replaced_at")
        .where("key", "=", key)
        .orderBy("replaced_at", "desc")
        .limit(1)
        .executeTakeFirst();
      const at = laterThan(clock.now(), current?.updated_at, latest?.replaced_at);

      let written: bigint;
      if (next === null) {
        const result = await trx
          .deleteFrom("content_entries")
          .where("key", "=", key)
          .where("updated_at", "=", current!.updated_at)
          .executeTakeFirst();
        written = result.numDeletedRows;
      } else if (current) {
        const result = await trx
          .updateTable("content_entries")
          .set({ content: next, updated_at: at, updated_by: savedBy })
          .where("key", "=", key)
          .where("updated_at", "=", current.updated_at)
          .executeTakeFirst();
        written = result.numUpdatedRows;
      } else {
        const result = await trx
          .insertInto("content_entries")
          .values({ key, content: next, updated_at: at, updated_by: savedBy })
          .onConflict((oc) => oc.column("key").doNothing())
          .executeTakeFirst();
        written = result.numInsertedOrUpdatedRows ?? 0n;
      }
      // Someone else's write came first: nothing was changed here, read again.
      if (Number(written) !== 1) return null;

      // Blank text is the default showing (decision 0005), and an unchanged save replaces nothing.
      if (current && hasText(current.content) && current.content !== next) {
        await trx
          .insertInto("content_revisions")
          .values({
            id: randomUUID(),
            key,
            content: current.content,
            saved_at: current.updated_at,
            saved_by: current.updated_by,
            replaced_at: at,
          })
          .execute();
        const kept = trx
          .selectFrom("content_revisions")
          .select("id")
          .where("key", "=", key)
          .orderBy("replaced_at", "desc")
          .orderBy("id", "desc")
          .limit(MAX_VERSIONS_PER_SECTION);
        await trx.deleteFrom("content_revisions").where("key", "=", key).where("id", "not in", kept).execute();
      }
      if (next === null || !hasText(next)) {
        return { key, content: defaultContentFor(key), updatedAt: next === null ? null : at, isDefault: true };
      }
      return { key, content: next, updatedAt: at, isDefault: false };
    });
    if (entry) {
      services.publicContentChanged();
      return entry;
    }
  }
  throw new ContentWriteConflictError(`Content section ${key} kept changing; the save was not applied`);
}

/** Saves a section's text; the text it replaces is kept as a version. */
export async function saveContent(
  services: WriteServices,
  key: SectionKey,
  content: string,
  options: { savedBy?: string | null } = {},
): Promise<ContentEntry> {
  return writeContent(services, key, content, options.savedBy ?? null);
}

/** Earlier texts of a section, newest first (the current text is not among them). */
export async function listContentHistory({ db }: Pick<AppServices, "db">, key: SectionKey): Promise<ContentVersion[]> {
  const rows = await db
    .selectFrom("content_revisions")
    .select(["id", "content", "saved_at", "saved_by"])
    .where("key", "=", key)
    .orderBy("replaced_at", "desc")
    .orderBy("id", "desc")
    .execute();
  return rows.map((row) => ({ id: row.id, content: row.content, savedAt: row.saved_at, savedBy: row.saved_by }));
}

/** A restore is a new save, so it can be undone in turn. */
export async function restoreContentVersion(
  services: WriteServices,
  key: SectionKey,
  versionId: string,
  options: { savedBy?: string | null } = {},
): Promise<ContentEntry | null> {
  const version = await services.db
    .selectFrom("content_revisions")
    .select("content")
    .where("key", "=", key)
    .where("id", "=", versionId)
    .executeTakeFirst();
  if (!version) return null;
  return writeContent(services, key, version.content, options.savedBy ?? null);
}

/** Brings back the built-in text; the current text is kept as a version first, so a reset can be undone. */
export async function resetContent(
  services: WriteServices,
  key: SectionKey,
  options: { savedBy?: string | null } = {},
): Promise<ContentEntry> {
  return writeContent(services, key, null, options.savedBy ?? null);
}
