import SQLite from "better-sqlite3";
import { sqliteFileOf, type Database } from "./database.server";

/** Kysely's bookkeeping tables: the archive records the migration name instead. */
export const MIGRATION_TABLES = ["kysely_migration", "kysely_migration_lock"] as const;

export type SnapshotRow = Record<string, unknown>;

export type Snapshot = {
  /** The newest migration applied in the snapshot. */
  migration: string;
  /** Asked-for tables that this database does not have (yet): nothing was read for them. */
  missingTables: string[];
};

const TABLE_NAME = /^[a-z_][a-z0-9_]*$/;

/**
 * Reads every row of `tables` from one consistent, read-only view of the
 * database, handing each row to onRow (awaited, so it may write to a stream).
 *
 * SQLite: Kysely's dialect runs every query on one connection, so a long read
 * transaction there would hold up the server's writes. The snapshot opens its
 * own connection instead; under WAL its read transaction sees the database as
 * of its first read, while writers carry on. Read quickly, then close: the
 * checkpointer cannot pass a reader that is still open.
 *
 * PostgreSQL (issue 12) does the same on a dedicated connection with
 * `BEGIN ISOLATION LEVEL REPEATABLE READ READ ONLY`.
 */
export async function readSnapshot(
  db: Database,
  tables: readonly string[],
  onRow: (table: string, row: SnapshotRow) => void | Promise<void>,
): Promise<Snapshot> {
  for (const table of tables) {
    if (!TABLE_NAME.test(table)) throw new Error(`Invalid table name: ${JSON.stringify(table)}`);
  }
  const file = sqliteFileOf(db);
  if (!file) throw new Error("readSnapshot: this database backend has no snapshot reader yet");
  const connection = new SQLite(file, { fileMustExist: true });
  try {
    connection.pragma("busy_timeout = 5000");
    // Nothing written through this connection, ever.
    connection.pragma("query_only = ON");
    connection.exec("BEGIN");
    // The first read fixes the snapshot: everything below sees the same database.
    const existing = new Set(
      connection.prepare("SELECT name FROM sqlite_master WHERE type = 'table'").pluck().all() as string[],
    );
    const migration = existing.has("kysely_migration")
      ? (connection.prepare("SELECT name FROM kysely_migration ORDER BY name DESC LIMIT 1").pluck().get() as
          | string
          | undefined)
      : undefined;
    if (!migration) throw new Error("The database has no migrations applied");
    const missingTables: string[] = [];
    for (const table of tables) {
      if (!existing.has(table)) {
        missingTables.push(table);
        continue;
      }
      for (const row of connection.prepare(`SELECT * FROM "${table}" ORDER BY rowid`).iterate()) {
        await onRow(table, row as SnapshotRow);
      }
    }
    connection.exec("COMMIT");
    return { migration, missingTables };
  } finally {
    connection.close();
  }
}

/** Every table in the database, Kysely's migration tables included. */
export async function listTables(db: Database): Promise<string[]> {
  const tables = await db.introspection.getTables();
  // Kysely hides its own tables from introspection unless asked.
  const withMigrations = await db.introspection.getTables({ withInternalKyselyTables: true });
  return [...new Set([...tables, ...withMigrations].map((table) => table.name))].sort();
}
