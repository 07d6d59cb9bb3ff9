import type { Kysely, Migration } from "kysely";

/**
 * Earlier versions of every text (decision 0030), and privacy-first visit
 * counts (decision 0031).
 * The analytics tables are named so a backup can take the daily aggregates
 * (`analytics_daily*`) and leave out the working data (`analytics_salts`,
 * `analytics_visitors`), which lives one New Zealand day at most.
 */
export const revisionsAndAnalytics: Migration = {
  async up(db: Kysely<unknown>) {
    // Who saved the current text (the version it becomes when replaced keeps it).
    await db.schema.alterTable("content_entries").addColumn("updated_by", "varchar(100)").execute();

    await db.schema
      .createTable("content_revisions")
      .ifNotExists()
      .addColumn("id", "varchar(40)", (c) => c.primaryKey())
      .addColumn("key", "varchar(100)", (c) => c.notNull())
      .addColumn("content", "text", (c) => c.notNull())
      // When that text was saved, and by whom (null for text saved before history existed).
      .addColumn("saved_at", "varchar(40)", (c) => c.notNull())
      .addColumn("saved_by", "varchar(100)")
      // When it stopped being the current text: the list's order, newest first.
      .addColumn("replaced_at", "varchar(40)", (c) => c.notNull())
      .execute();
    await db.schema
      .createIndex("content_revisions_key_replaced_at")
      .ifNotExists()
      .on("content_revisions")
      .columns(["key", "replaced_at"])
      .execute();

    // Aggregates: one row per New Zealand day (YYYY-MM-DD).
    await db.schema
      .createTable("analytics_daily")
      .ifNotExists()
      .addColumn("day", "varchar(10)", (c) => c.primaryKey())
      .addColumn("views", "integer", (c) => c.notNull().defaultTo(0))
      .addColumn("visitors", "integer", (c) => c.notNull().defaultTo(0))
      // Set when the day has ended and its salt and visitor hashes are gone.
      .addColumn("closed_at", "varchar(40)")
      .execute();
    await db.schema
      .createTable("analytics_daily_pages")
      .ifNotExists()
      .addColumn("day", "varchar(10)", (c) => c.notNull())
      .addColumn("path", "varchar(100)", (c) => c.notNull())
      .addColumn("views", "integer", (c) => c.notNull().defaultTo(0))
      .addPrimaryKeyConstraint("analytics_daily_pages_pk", ["day", "path"])
      .execute();
    await db.schema
      .createTable("analytics_daily_referrers")
      .ifNotExists()
      .addColumn("day", "varchar(10)", (c) => c.notNull())
      .addColumn("host", "varchar(253)", (c) => c.notNull())
      .addColumn("views", "integer", (c) => c.notNull().defaultTo(0))
      .addPrimaryKeyConstraint("analytics_daily_referrers_pk", ["day", "host"])
      .execute();

    // Working data, deleted when its day ends; never backed up or logged.
    await db.schema
      .createTable("analytics_salts")
      .ifNotExists()
      .addColumn("day", "varchar(10)", (c) => c.primaryKey())
      .addColumn("salt", "varchar(64)", (c) => c.notNull())
      .addColumn("created_at", "varchar(40)", (c) => c.notNull())
      .execute();
    await db.schema
      .createTable("analytics_visitors")
      .ifNotExists()
      .addColumn("day", "varchar(10)", (c) => c.notNull())
      .addColumn("hash", "varchar(32)", (c) => c.notNull())
      .addPrimaryKeyConstraint("analytics_visitors_pk", ["day", "hash"])
      .execute();
  },
  async down(db: Kysely<unknown>) {
    for (const table of [
      "analytics_visitors",
      "analytics_salts",
      "analytics_daily_referrers",
      "analytics_daily_pages",
      "analytics_daily",
      "content_revisions",
    ]) {
      await db.schema.dropTable(table).ifExists().execute();
    }
    await db.schema.alterTable("content_entries").dropColumn("updated_by").execute();
  },
};
