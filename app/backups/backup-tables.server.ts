import type { Kysely } from "kysely";
import type { Database } from "~/db/database.server";
import { listTables, MIGRATION_TABLES } from "~/db/snapshot.server";
import { ENQUIRY_PHOTO_PREFIX } from "~/storage/storage-keys.server";
import { MAX_UPLOAD_BYTES } from "~/galleries/gallery";
import { originalKeysOf, variantKeysOf } from "~/galleries/gallery-image-keys";

/** Every table is in exactly one of the two lists (a test checks), so none is left out silently. */
export type BackupTable = {
  name: string;
  /**
   * The columns that name stored objects: a backup copies those objects, they are never deleted
   * while named, and a restore writes only the objects its rows name (decision 0046). A new kind
   * of object (enquiry photos, say) is covered by declaring its column here.
   */
  objectColumns?: readonly ObjectColumn[];
};

export type ObjectColumn = {
  column: string;
  /** The keys one value names; throws when the value is not what the column holds. */
  keysOf: (value: unknown) => string[];
  /** The largest object this column may name: a restore refuses a bigger one. */
  maxBytes: number;
};

/** A processed image file (AVIF, WebP or JPEG at display sizes) is far smaller than this. */
export const MAX_VARIANT_BYTES = 5 * 1024 * 1024;

const originalKey: ObjectColumn = {
  column: "original_key",
  keysOf: originalKeysOf,
  // An original is an upload, limited to 20 MB when it came in.
  maxBytes: MAX_UPLOAD_BYTES,
};

const variantFiles: ObjectColumn = {
  column: "variants",
  keysOf: variantKeysOf,
  maxBytes: MAX_VARIANT_BYTES,
};

/** An enquiry photo's copy (encoded to fit 300 KB): room for an encoder change, nothing else fits. */
export const MAX_ENQUIRY_PHOTO_COPY_BYTES = 1024 * 1024;

const enquiryPhotoFile = (column: string): ObjectColumn => ({
  column,
  keysOf: (value) => {
    if (value === null || value === undefined) return [];
    if (typeof value !== "string" || !value.startsWith(ENQUIRY_PHOTO_PREFIX))
      throw new Error("not an enquiry photo's key");
    return [value];
  },
  maxBytes: MAX_ENQUIRY_PHOTO_COPY_BYTES,
});

/** Included, in the order a restore inserts them: a table comes after the tables its rows refer to. */
export const BACKUP_TABLES: readonly BackupTable[] = [
  { name: "users" },
  // Public keys and counters; the two-step secret sealed, recovery codes as keyed hashes
  // (their key is in secrets/, never in a backup: restored elsewhere, two-step is off).
  { name: "passkeys" },
  { name: "two_factor" },
  { name: "recovery_codes" },
  { name: "content_entries" },
  // Every list the owner edits (app/content/lists.ts): one table for all of them.
  { name: "list_items" },
  { name: "gallery_images", objectColumns: [originalKey, variantFiles] },
  { name: "contact_submissions" },
  // The photos' rows and their two kept copies (never the original: it is not kept).
  { name: "enquiry_photos", objectColumns: [enquiryPhotoFile("thumb_key"), enquiryPhotoFile("view_key")] },
  { name: "notification_jobs" },
  { name: "content_revisions" },
  // Visit counts: the daily aggregates only (the salts and visitor hashes are left out below).
  { name: "analytics_daily" },
  { name: "analytics_daily_pages" },
  { name: "analytics_daily_referrers" },
  // The security log: no full address in it, only a /24 or /48 and a keyed hash.
  { name: "activity_log" },
];

/** Left out, with the reason. */
export const EXCLUDED_TABLES: Readonly<Record<string, string>> = {
  sessions: "never restored: everyone signs in again after a restore",
  uploads: "single-use upload tickets that expire within minutes; an unfinished upload is simply redone",
  backup_leases: "describe backups running on this installation now",
  deferred_deletions: "image files waiting for a running backup to end; a restored site refers to none of them",
  backup_state: "this installation's schedule and backup history, not the site's content",
  rate_limit_counters: "short-lived abuse counters",
  auth_ceremonies: "sign-in steps that end within 5 minutes (passkey challenges, pending two-step sign-ins)",
  sign_in_failures: "failed sign-ins since the last good one: security working data of this installation",
  sign_in_reports: "what each sign-in found, shown on that session's dashboard; sessions are never restored",
  notification_hourly_sends: "the mail outbox's running count for its hourly cap",
  secrets:
    "generated keys shared by every instance (upload signing, device cookies): never in a backup, like DATA_DIR/secrets/",
  analytics_salts: "visitor-analytics working data (daily salts), deliberately not kept",
  analytics_visitors: "visitor-analytics working data, deliberately not kept",
  ...Object.fromEntries(
    MIGRATION_TABLES.map((name) => [name, "schema bookkeeping: the archive records the migration name instead"]),
  ),
};

export const BACKUP_TABLE_NAMES = BACKUP_TABLES.map((table) => table.name);

/** No object a restore writes may be larger than this: the largest any column allows. */
export const MAX_OBJECT_BYTES = Math.max(
  ...BACKUP_TABLES.flatMap((table) => table.objectColumns ?? []).map((c) => c.maxBytes),
);

/** The objects one row names, each with the largest size its column allows (deduplicated). */
export function objectsNamedBy(table: BackupTable, row: Record<string, unknown>): Map<string, number> {
  const named = new Map<string, number>();
  for (const column of table.objectColumns ?? []) {
    for (const key of column.keysOf(row[column.column])) named.set(key, Math.max(named.get(key) ?? 0, column.maxBytes));
  }
  return named;
}

/** Tables in the database that neither list mentions. */
export function unclassifiedTables(tablesInDatabase: readonly string[]): string[] {
  const included = new Set(BACKUP_TABLE_NAMES);
  return tablesInDatabase.filter((name) => !included.has(name) && !(name in EXCLUDED_TABLES));
}

/** Every stored object that some included row refers to, read now. */
export async function referencedObjectKeys(db: Database): Promise<Set<string>> {
  const keys = new Set<string>();
  const present = new Set(await listTables(db));
  for (const table of BACKUP_TABLES) {
    if (!table.objectColumns || !present.has(table.name)) continue;
    // Tables are named by the registry above, not by input.
    const rows = await (db as unknown as Kysely<Record<string, Record<string, unknown>>>)
      .selectFrom(table.name)
      .selectAll()
      .execute();
    for (const row of rows) for (const key of objectsNamedBy(table, row).keys()) keys.add(key);
  }
  return keys;
}
