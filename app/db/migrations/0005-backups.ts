import type { Kysely, Migration } from "kysely";

/**
 * Backups (decision 0026): leases held by running backups, image files whose
 * deletion waits until no backup runs, and the one row of backup state
 * (schedule and what the dashboard shows). Portable DDL only.
 */
export const backups: Migration = {
  async up(db: Kysely<unknown>) {
    await db.schema
      .createTable("backup_leases")
      .ifNotExists()
      .addColumn("id", "varchar(40)", (c) => c.primaryKey())
      // Random per acquisition: only the holder may renew or release it.
      .addColumn("holder", "varchar(40)", (c) => c.notNull())
      .addColumn("purpose", "varchar(20)", (c) => c.notNull())
      .addColumn("acquired_at", "varchar(40)", (c) => c.notNull())
      .addColumn("expires_at", "varchar(40)", (c) => c.notNull())
      .execute();

    await db.schema
      .createTable("deferred_deletions")
      .ifNotExists()
      .addColumn("storage_key", "varchar(512)", (c) => c.primaryKey())
      .addColumn("deferred_at", "varchar(40)", (c) => c.notNull())
      .execute();

    await db.schema
      .createTable("backup_state")
      .ifNotExists()
      .addColumn("id", "varchar(20)", (c) => c.primaryKey())
      .addColumn("tracking_since", "varchar(40)", (c) => c.notNull())
      .addColumn("next_due_at", "varchar(40)")
      .addColumn("last_success_at", "varchar(40)")
      .addColumn("last_success_bytes", "integer")
      .addColumn("last_success_name", "varchar(200)")
      .addColumn("last_problem_at", "varchar(40)")
      .addColumn("last_problem_kind", "varchar(20)")
      .addColumn("last_problem_message", "text")
      .addColumn("last_download_at", "varchar(40)")
      .execute();
  },
  async down(db: Kysely<unknown>) {
    await db.schema.dropTable("backup_state").ifExists().execute();
    await db.schema.dropTable("deferred_deletions").ifExists().execute();
    await db.schema.dropTable("backup_leases").ifExists().execute();
  },
};
