import { sql, type Kysely } from "kysely";
import type { Database } from "./database.server";
import type { DatabaseSchema } from "./schema";

/**
 * Replaces the live PostgreSQL database in ONE transaction (its DDL is transactional): drop, rebuild at the backup's
 * schema, load, migrate, commit. Any failure rolls back to the database exactly as it was.
 */
export async function replacePostgresDatabase<T>(
  db: Database,
  /** The tables to drop first (those present; others are left alone). */
  tables: readonly string[],
  build: (connection: Kysely<DatabaseSchema>) => Promise<T>,
): Promise<T> {
  return db.connection().execute(async (connection) => {
    await sql`begin`.execute(connection);
    try {
      const present = await sql<{ name: string }>`
        select tablename as name from pg_catalog.pg_tables where schemaname = current_schema()`.execute(connection);
      const drop = present.rows.map((row) => row.name).filter((name) => tables.includes(name));
      for (const name of drop) await sql`drop table if exists ${sql.table(name)} cascade`.execute(connection);
      const result = await build(connection);
      await sql`commit`.execute(connection);
      return result;
    } catch (error) {
      await sql`rollback`.execute(connection).catch(() => {});
      throw error;
    }
  });
}

/** Whether the database has any migration applied (a fresh, empty database has none). */
export async function hasMigrations(db: Database): Promise<boolean> {
  const found = await sql<{ name: string | null }>`select to_regclass('kysely_migration')::text as name`.execute(db);
  if (!found.rows[0]?.name) return false;
  const rows = await sql<{ n: number }>`select count(*)::int as n from kysely_migration`.execute(db);
  return (rows.rows[0]?.n ?? 0) > 0;
}
