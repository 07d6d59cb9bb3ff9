import fs from "node:fs";
import path from "node:path";
import SQLite from "better-sqlite3";
import { Kysely, Migrator, SqliteDialect, sql, type Migration } from "kysely";
import { initial } from "./migrations/0001-initial";
import { authAndUploads } from "./migrations/0002-auth-and-uploads";
import { hardening } from "./migrations/0003-hardening";
import { enquiryOutbox } from "./migrations/0004-enquiry-outbox";
import { backups } from "./migrations/0005-backups";
import type { DatabaseSchema } from "./schema";

/**
 * The database module: the only place that knows the backend is SQLite.
 * Everything else talks to the Kysely instance with portable queries.
 */
export type Database = Kysely<DatabaseSchema>;

/** Versioned migrations, in order. Names are stored, so never rename one. */
const MIGRATIONS: Record<string, Migration> = {
  "0001-initial": initial,
  "0002-auth-and-uploads": authAndUploads,
  "0003-hardening": hardening,
  "0004-enquiry-outbox": enquiryOutbox,
  "0005-backups": backups,
};

export function openDatabase(
  dataDir: string,
  // NORMAL exists only so `npm run bench` can measure what FULL costs (decision 0022).
  options: { synchronous?: "FULL" | "NORMAL" } = {},
): Database {
  fs.mkdirSync(dataDir, { recursive: true });
  const sqlite = new SQLite(path.join(dataDir, "site.db"));
  // WAL lets readers carry on while a write commits. FULL syncs the WAL at every
  // commit, so an acknowledged enquiry survives power loss, not only a crash (decision 0022).
  sqlite.pragma("journal_mode = WAL");
  sqlite.pragma(`synchronous = ${options.synchronous ?? "FULL"}`);
  sqlite.pragma("foreign_keys = ON");
  sqlite.pragma("busy_timeout = 5000");
  const db = new Kysely<DatabaseSchema>({ dialect: new SqliteDialect({ database: sqlite }) });
  sqliteFiles.set(db, sqlite.name);
  return db;
}

/** Which SQLite file each open database uses: a backup's snapshot opens its own connection to it. */
const sqliteFiles = new WeakMap<Database, string>();

/** The SQLite file behind db, or null for another backend. */
export function sqliteFileOf(db: Database): string | null {
  return sqliteFiles.get(db) ?? null;
}

/** The migrations this code knows, oldest first (the order Kysely applies them in). */
export function knownMigrations(): string[] {
  return Object.keys(MIGRATIONS).sort();
}

/** Applies migrations up to and including `name` (a restore loads rows at the backup's schema first). */
export async function migrateTo(db: Database, name: string): Promise<void> {
  const migrator = new Migrator({ db, provider: { getMigrations: async () => MIGRATIONS } });
  const { error } = await migrator.migrateTo(name);
  if (error) throw error;
}

/** Applies pending migrations; running it again is a no-op. */
export async function migrateToLatest(db: Database): Promise<string[]> {
  const migrator = new Migrator({
    db,
    provider: { getMigrations: async () => MIGRATIONS },
  });
  const { error, results } = await migrator.migrateToLatest();
  if (error) throw error;
  return (results ?? []).filter((r) => r.status === "Success").map((r) => r.migrationName);
}

/** Health check: throws when the database cannot be read. */
export async function pingDatabase(db: Database): Promise<void> {
  await sql`select 1`.execute(db);
}

export function nowIso(): string {
  return new Date().toISOString();
}
