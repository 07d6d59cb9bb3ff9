import type { Kysely, Migration } from "kysely";

// Lists the owner grows (customer reviews first; decision 0071): one table for every list, each item's
// declared fields as a JSON object of text, in the owner's order. And when the owner asked an
// enquiry's sender for a review.
export const ownerLists: Migration = {
  async up(db: Kysely<unknown>) {
    await db.schema
      .createTable("list_items")
      .ifNotExists()
      .addColumn("id", "varchar(40)", (c) => c.primaryKey())
      // The list's key in app/content/lists.ts ("reviews").
      .addColumn("list", "varchar(40)", (c) => c.notNull())
      // 0, 1, … within its list.
      .addColumn("position", "integer", (c) => c.notNull())
      .addColumn("hidden", "integer", (c) => c.notNull().defaultTo(0))
      .addColumn("fields", "text", (c) => c.notNull())
      .addColumn("created_at", "varchar(40)", (c) => c.notNull())
      .addColumn("updated_at", "varchar(40)", (c) => c.notNull())
      .execute();
    await db.schema
      .createIndex("list_items_list_position")
      .ifNotExists()
      .on("list_items")
      .columns(["list", "position"])
      .execute();
    await db.schema.alterTable("contact_submissions").addColumn("review_asked_at", "varchar(40)").execute();
  },
  async down(db: Kysely<unknown>) {
    await db.schema.alterTable("contact_submissions").dropColumn("review_asked_at").execute();
    await db.schema.dropTable("list_items").ifExists().execute();
  },
};
