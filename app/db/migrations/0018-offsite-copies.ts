import type { Kysely, Migration } from "kysely";

/**
 * Off-site copies every BACKUP_OFFSITE_MINUTES (decision 0060): when the next
 * one is due (shared by every instance), since when copies have been failing
 * (the dashboard turns red after three hours of it), and what the last one sent.
 */
const COLUMNS = [
  ["offsite_next_due_at", "varchar(40)"],
  ["offsite_failing_since", "varchar(40)"],
  ["offsite_last_sent_bytes", "bigint"],
] as const;

export const offsiteCopies: Migration = {
  async up(db: Kysely<unknown>) {
    for (const [name, type] of COLUMNS) await db.schema.alterTable("backup_state").addColumn(name, type).execute();
  },
  async down(db: Kysely<unknown>) {
    for (const [name] of [...COLUMNS].reverse()) await db.schema.alterTable("backup_state").dropColumn(name).execute();
  },
};
