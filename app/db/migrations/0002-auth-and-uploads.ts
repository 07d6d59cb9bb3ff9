import type { Kysely, Migration } from "kysely";

export const authAndUploads: Migration = {
  async up(db: Kysely<unknown>) {
    await db.schema
      .createTable("users")
      .ifNotExists()
      .addColumn("id", "varchar(40)", (c) => c.primaryKey())
      .addColumn("username", "varchar(100)", (c) => c.notNull().unique())
      .addColumn("password_hash", "varchar(200)", (c) => c.notNull())
      .addColumn("created_at", "varchar(40)", (c) => c.notNull())
      .addColumn("updated_at", "varchar(40)", (c) => c.notNull())
      .execute();

    await db.schema
      .createTable("sessions")
      .ifNotExists()
      .addColumn("id", "varchar(64)", (c) => c.primaryKey())
      .addColumn("user_id", "varchar(40)", (c) => c.notNull().references("users.id").onDelete("cascade"))
      .addColumn("expires_at", "varchar(40)", (c) => c.notNull())
      .addColumn("created_at", "varchar(40)", (c) => c.notNull())
      .execute();
    await db.schema.createIndex("sessions_expires_at").ifNotExists().on("sessions").column("expires_at").execute();

    await db.schema
      .createTable("uploads")
      .ifNotExists()
      .addColumn("id", "varchar(40)", (c) => c.primaryKey())
      .addColumn("status", "varchar(20)", (c) => c.notNull())
      .addColumn("storage_key", "varchar(300)", (c) => c.notNull())
      .addColumn("content_type", "varchar(40)")
      .addColumn("bytes", "integer")
      .addColumn("expires_at", "varchar(40)", (c) => c.notNull())
      .addColumn("created_at", "varchar(40)", (c) => c.notNull())
      .addColumn("completed_at", "varchar(40)")
      .execute();
  },
  async down(db: Kysely<unknown>) {
    await db.schema.dropTable("uploads").ifExists().execute();
    await db.schema.dropTable("sessions").ifExists().execute();
    await db.schema.dropTable("users").ifExists().execute();
  },
};
