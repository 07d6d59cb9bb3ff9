import type { Kysely, Migration } from "kysely";

// Photos a visitor attaches to an enquiry (decision 0056). Only the processed
// thumbnail and viewing copy are stored (under the private prefix enquiry-photos/); the
// token the visitor's browser holds is kept as a hash, never as it is.
export const enquiryPhotos: Migration = {
  async up(db: Kysely<unknown>) {
    await db.schema
      .createTable("enquiry_photos")
      .ifNotExists()
      .addColumn("id", "varchar(40)", (c) => c.primaryKey())
      // SHA-256 of the token handed to the browser.
      .addColumn("token_hash", "varchar(64)", (c) => c.notNull().unique())
      // The limiters' keyed hash of the uploader's address: the token works only from it.
      .addColumn("address_hash", "varchar(64)", (c) => c.notNull())
      // processing → ready; capped: a cap kept the photo out (the enquiry says so).
      .addColumn("status", "varchar(20)", (c) => c.notNull())
      // Null until the enquiry that used the token is stored.
      .addColumn("submission_id", "varchar(40)")
      // 1, 2, … in the order the visitor chose them; null until attached.
      .addColumn("position", "integer")
      .addColumn("thumb_key", "varchar(200)")
      .addColumn("view_key", "varchar(200)")
      .addColumn("thumb_bytes", "integer", (c) => c.notNull().defaultTo(0))
      .addColumn("view_bytes", "integer", (c) => c.notNull().defaultTo(0))
      // The viewing copy's size.
      .addColumn("width", "integer", (c) => c.notNull().defaultTo(0))
      .addColumn("height", "integer", (c) => c.notNull().defaultTo(0))
      .addColumn("created_at", "varchar(40)", (c) => c.notNull())
      // When the token stops working.
      .addColumn("expires_at", "varchar(40)", (c) => c.notNull())
      .execute();
    await db.schema
      .createIndex("enquiry_photos_submission")
      .ifNotExists()
      .on("enquiry_photos")
      .columns(["submission_id", "position"])
      .execute();
    await db.schema
      .createIndex("enquiry_photos_created_at")
      .ifNotExists()
      .on("enquiry_photos")
      .column("created_at")
      .execute();
  },
  async down(db: Kysely<unknown>) {
    await db.schema.dropTable("enquiry_photos").ifExists().execute();
  },
};
