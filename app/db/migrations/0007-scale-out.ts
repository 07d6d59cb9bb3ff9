import type { Kysely, Migration } from "kysely";

// What every instance must share lives in the database, not on one instance's disk
// (decision 0044).
export const scaleOut: Migration = {
  async up(db: Kysely<unknown>) {
    // Generated secrets (the upload-signing key, …), created once by whichever instance starts first.
    await db.schema
      .createTable("secrets")
      .ifNotExists()
      .addColumn("name", "varchar(100)", (c) => c.primaryKey())
      .addColumn("value", "varchar(200)", (c) => c.notNull())
      .addColumn("created_at", "varchar(40)", (c) => c.notNull())
      .execute();
  },
  async down(db: Kysely<unknown>) {
    await db.schema.dropTable("secrets").ifExists().execute();
  },
};
