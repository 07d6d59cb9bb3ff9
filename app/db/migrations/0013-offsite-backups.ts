import type { Kysely, Migration } from "kysely";

/**
 * Off-site backups (decision 0052): what the dashboard shows about
 * the copies kept off the server, beside the rest of the backup state.
 */
const COLUMNS = [
  ["offsite_last_at", "varchar(40)"],
  ["offsite_last_name", "varchar(200)"],
  ["offsite_failures", "integer"],
  ["offsite_failed_at", "varchar(40)"],
  ["offsite_last_error", "text"],
  ["offsite_alerted_at", "varchar(40)"],
] as const;

export const offsiteBackups: Migration = {
  async up(db: Kysely<unknown>) {
    for (const [name, type] of COLUMNS) await db.schema.alterTable("backup_state").addColumn(name, type).execute();
  },
  async down(db: Kysely<unknown>) {
    for (const [name] of [...COLUMNS].reverse()) await db.schema.alterTable("backup_state").dropColumn(name).execute();
  },
};
