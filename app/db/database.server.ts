import fs from "node:fs";
import path from "node:path";
import SQLite from "better-sqlite3";
import { Kysely, Migrator, SqliteDialect, sql, type Migration } from "kysely";
import { initial } from "./migrations/0001-initial";
import { authAndUploads } from "./migrations/0002-auth-and-uploads";
import { revisionsAndAnalytics } from "./migrations/0006-revisions-and-analytics";
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
  "0006-revisions-and-analytics": revisionsAndAnalytics,
};

export function openDatabase(dataDir: string): Database {
  fs.mkdirSync(dataDir, { recursive: true });
  const sqlite = new SQLite(path.join(dataDir, "site.db"));
  // WAL lets readers carry on while a write commits; NORMAL sync is safe with WAL.
  sqlite.pragma("journal_mode = WAL");
  sqlite.pragma("synchronous = NORMAL");
  sqlite.pragma("foreign_keys = ON");
  sqlite.pragma("busy_timeout = 5000");
  return new Kysely<DatabaseSchema>({ dialect: new SqliteDialect({ database: sqlite }) });
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
