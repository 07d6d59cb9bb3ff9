import type { Kysely, Migration } from "kysely";

// Portable DDL only (Kysely's schema builder, no SQLite-only SQL).
export const initial: Migration = {
  async up(db: Kysely<unknown>) {
    await db.schema
      .createTable("content_entries")
      .ifNotExists()
      .addColumn("key", "varchar(100)", (c) => c.primaryKey())
      .addColumn("content", "text", (c) => c.notNull())
      .addColumn("updated_at", "varchar(40)", (c) => c.notNull())
      .execute();

    await db.schema
      .createTable("gallery_images")
      .ifNotExists()
      .addColumn("id", "varchar(40)", (c) => c.primaryKey())
      .addColumn("gallery_type", "varchar(20)", (c) => c.notNull())
      .addColumn("caption", "text", (c) => c.notNull().defaultTo(""))
      .addColumn("sort_order", "integer", (c) => c.notNull())
      .addColumn("image_path", "varchar(300)", (c) => c.notNull())
      .addColumn("width", "integer", (c) => c.notNull())
      .addColumn("height", "integer", (c) => c.notNull())
      .addColumn("placeholder", "text", (c) => c.notNull())
      .addColumn("variants", "text", (c) => c.notNull())
      .addColumn("original_key", "varchar(300)")
      .addColumn("created_at", "varchar(40)", (c) => c.notNull())
      .addColumn("updated_at", "varchar(40)", (c) => c.notNull())
      .execute();
    await db.schema
      .createIndex("gallery_images_type_order")
      .ifNotExists()
      .on("gallery_images")
      .columns(["gallery_type", "sort_order"])
      .execute();

    await db.schema
      .createTable("contact_submissions")
      .ifNotExists()
      .addColumn("id", "varchar(40)", (c) => c.primaryKey())
      .addColumn("name", "varchar(200)", (c) => c.notNull())
      .addColumn("email", "varchar(320)", (c) => c.notNull())
      .addColumn("phone", "varchar(50)")
      .addColumn("message", "text", (c) => c.notNull())
      .addColumn("submitted_at", "varchar(40)", (c) => c.notNull())
      .execute();
    await db.schema
      .createIndex("contact_submissions_submitted_at")
      .ifNotExists()
      .on("contact_submissions")
      .column("submitted_at")
      .execute();
  },
  async down(db: Kysely<unknown>) {
    await db.schema.dropTable("contact_submissions").ifExists().execute();
    await db.schema.dropTable("gallery_images").ifExists().execute();
    await db.schema.dropTable("content_entries").ifExists().execute();
  },
};
