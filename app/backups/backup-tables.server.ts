import type { Kysely } from "kysely";
import type { Database } from "~/db/database.server";
import { listTables, MIGRATION_TABLES } from "~/db/snapshot.server";
import type { GalleryImageRow } from "~/db/schema";
import { storageKeysOf } from "~/galleries/galleries.server";

/**
 * Which tables a backup holds, and which it leaves out and why. Every table
 * in the database must be in exactly one of the two lists (a test checks),
 * so a new table is never left out silently.
 */
export type BackupTable = {
  name: string;
  /** The stored objects a row refers to: the backup copies them, and they are never deleted while referenced. */
  objectKeys?: (row: Record<string, unknown>) => string[];
};

/** Included, in the order a restore inserts them: a table comes after the tables its rows refer to. */
export const BACKUP_TABLES: readonly BackupTable[] = [
  { name: "users" },
  // Issue 19: public keys and counters; the two-step secret sealed, recovery codes as keyed hashes
  // (their key is in secrets/, never in a backup: restored elsewhere, two-step is off).
  { name: "passkeys" },
  { name: "two_factor" },
  { name: "recovery_codes" },
  { name: "content_entries" },
  { name: "gallery_images", objectKeys: (row) => storageKeysOf(row as GalleryImageRow) },
  { name: "contact_submissions" },
  { name: "notification_jobs" },
  { name: "content_revisions" },
  // Visit counts: the daily aggregates only (the salts and visitor hashes are left out below).
  { name: "analytics_daily" },
  { name: "analytics_daily_pages" },
  { name: "analytics_daily_referrers" },
  // The security log (issue 19 §11): no full address in it, only a /24 or /48 and a keyed hash.
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
  secrets: "generated keys shared by every instance (upload signing, device cookies): never in a backup, like DATA_DIR/secrets/",
  analytics_salts: "visitor-analytics working data (daily salts), deliberately not kept",
  analytics_visitors: "visitor-analytics working data, deliberately not kept",
  ...Object.fromEntries(MIGRATION_TABLES.map((name) => [name, "schema bookkeeping: the archive records the migration name instead"])),
};

export const BACKUP_TABLE_NAMES = BACKUP_TABLES.map((table) => table.name);

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
    if (!table.objectKeys || !present.has(table.name)) continue;
    // Tables are named by the registry above, not by input.
    const rows = await (db as unknown as Kysely<Record<string, Record<string, unknown>>>).selectFrom(table.name).selectAll().execute();
    for (const row of rows) for (const key of table.objectKeys(row)) keys.add(key);
  }
  return keys;
}
