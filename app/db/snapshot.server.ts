import SQLite from "better-sqlite3";
import pg from "pg";
import { postgresPoolOf, sqliteFileOf, type Database } from "./database.server";

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
 * Every row of `tables` from one consistent read-only view, to onRow (awaited). SQLite: its own connection, whose
 * WAL read transaction leaves writers alone (close it soon: the checkpointer waits). PostgreSQL: REPEATABLE READ READ
 * ONLY on its own client, through cursors. Rows come out dialect-neutral, so an archive restores into either.
 */
export async function readSnapshot(
  db: Database,
  tables: readonly string[],
  onRow: (table: string, row: SnapshotRow) => void | Promise<void>,
): Promise<Snapshot> {
  for (const table of tables) {
    if (!TABLE_NAME.test(table)) throw new Error(`Invalid table name: ${JSON.stringify(table)}`);
  }
  const pool = postgresPoolOf(db);
  if (pool) return readPostgresSnapshot(pool, tables, onRow);
  const file = sqliteFileOf(db);
  if (!file) throw new Error("readSnapshot: this database backend has no snapshot reader");
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
    const newestMigration = () =>
      connection.prepare("SELECT name FROM kysely_migration ORDER BY name DESC LIMIT 1").pluck().get() as
        string | undefined;
    const snapshot = await readTables(existing, newestMigration, tables, async (table) => {
      for (const row of connection.prepare(`SELECT * FROM "${table}" ORDER BY rowid`).iterate()) {
        await onRow(table, neutralRow(row as SnapshotRow));
      }
    });
    connection.exec("COMMIT");
    return snapshot;
  } finally {
    connection.close();
  }
}

/**
 * The walk both engines share: the newest migration (none is refused), then each table in the
 * archive's order, noting the ones this database does not have.
 */
async function readTables(
  existing: Set<string>,
  newestMigration: () => string | undefined | Promise<string | undefined>,
  tables: readonly string[],
  readTable: (table: string) => Promise<void>,
): Promise<Snapshot> {
  const migration = existing.has("kysely_migration") ? await newestMigration() : undefined;
  if (!migration) throw new Error("The database has no migrations applied");
  const missingTables: string[] = [];
  for (const table of tables) {
    if (existing.has(table)) await readTable(table);
    else missingTables.push(table);
  }
  return { migration, missingTables };
}

/** Rows per FETCH from a PostgreSQL cursor. */
const FETCH_ROWS = 500;
/** PostgreSQL type ids whose text form we turn into numbers (pg returns int8 as a string). */
const PG_INT8 = 20;

async function readPostgresSnapshot(
  pool: pg.Pool,
  tables: readonly string[],
  onRow: (table: string, row: SnapshotRow) => void | Promise<void>,
): Promise<Snapshot> {
  const client = await pool.connect();
  let broken: Error | undefined;
  try {
    // Every read below sees the database as of the first one; writers carry on.
    await client.query("BEGIN ISOLATION LEVEL REPEATABLE READ READ ONLY");
    const existing = new Set(
      (
        await client.query<{ name: string }>(
          "SELECT tablename AS name FROM pg_catalog.pg_tables WHERE schemaname = current_schema()",
        )
      ).rows.map((row) => row.name),
    );
    const newestMigration = async () =>
      (await client.query<{ name: string }>("SELECT name FROM kysely_migration ORDER BY name DESC LIMIT 1")).rows[0]
        ?.name;
    const snapshot = await readTables(existing, newestMigration, tables, async (table) => {
      const order = await primaryKeyColumns(client, table);
      const orderBy = order.length ? ` ORDER BY ${order.map((column) => pg.escapeIdentifier(column)).join(", ")}` : "";
      await client.query(
        `DECLARE backup_rows NO SCROLL CURSOR FOR SELECT * FROM ${pg.escapeIdentifier(table)}${orderBy}`,
      );
      for (;;) {
        const batch = await client.query(`FETCH ${FETCH_ROWS} FROM backup_rows`);
        const int8Columns = batch.fields.filter((field) => field.dataTypeID === PG_INT8).map((field) => field.name);
        for (const row of batch.rows as SnapshotRow[]) {
          for (const column of int8Columns) row[column] = int8ToNumber(row[column]);
          await onRow(table, neutralRow(row));
        }
        if (batch.rows.length < FETCH_ROWS) break;
      }
      await client.query("CLOSE backup_rows");
    });
    await client.query("COMMIT");
    return snapshot;
  } catch (error) {
    broken = error instanceof Error ? error : new Error(String(error));
    await client.query("ROLLBACK").catch(() => {});
    throw error;
  } finally {
    // A client whose transaction could not be rolled back is not handed out again.
    client.release(broken);
  }
}

/** A stable order for the archive: the table's primary key. */
async function primaryKeyColumns(client: pg.PoolClient, table: string): Promise<string[]> {
  const { rows } = await client.query<{ name: string }>(
    `SELECT a.attname AS name
       FROM pg_catalog.pg_index i
       JOIN pg_catalog.pg_attribute a ON a.attrelid = i.indrelid AND a.attnum = ANY (i.indkey)
      WHERE i.indrelid = to_regclass($1) AND i.indisprimary
      ORDER BY array_position(i.indkey, a.attnum)`,
    [pg.escapeIdentifier(table)],
  );
  return rows.map((row) => row.name);
}

function int8ToNumber(value: unknown): unknown {
  if (typeof value !== "string") return value;
  const number = Number(value);
  // Beyond 2^53 a number would change the value: keep its text.
  return Number.isSafeInteger(number) ? number : value;
}

/** One row as the archive holds it (text, numbers, null): Date → ISO, boolean → 1/0, bigint → number, JSON → text. */
export function neutralRow(row: SnapshotRow): SnapshotRow {
  const out: SnapshotRow = {};
  for (const [column, value] of Object.entries(row)) out[column] = neutralValue(column, value);
  return out;
}

function neutralValue(column: string, value: unknown): string | number | null {
  if (value === null || value === undefined) return null;
  if (typeof value === "string" || typeof value === "number") return value;
  if (typeof value === "boolean") return value ? 1 : 0;
  if (typeof value === "bigint") return Number.isSafeInteger(Number(value)) ? Number(value) : value.toString();
  if (value instanceof Date) return value.toISOString();
  if (Buffer.isBuffer(value)) throw new Error(`Column ${column} holds binary data, which a backup does not carry`);
  if (typeof value === "object") return JSON.stringify(value);
  throw new Error(`Column ${column} holds a value a backup cannot carry (${typeof value})`);
}

/** Every table in the database, Kysely's migration tables included. */
export async function listTables(db: Database): Promise<string[]> {
  // Kysely hides its own tables from introspection unless asked.
  const tables = await db.introspection.getTables({ withInternalKyselyTables: true });
  return [...new Set(tables.map((table) => table.name))].sort();
}
