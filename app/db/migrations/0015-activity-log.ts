import type { Kysely, Migration } from "kysely";

// The security log ("Recent activity"), decision 0054. No full client
// address is kept: a coarse network prefix and the limiters' keyed address hash.
export const activityLog: Migration = {
  async up(db: Kysely<unknown>) {
    await db.schema
      .createTable("activity_log")
      .ifNotExists()
      .addColumn("id", "varchar(40)", (c) => c.primaryKey())
      // When it happened; for a folded record (refused attempts), the latest of them.
      .addColumn("occurred_at", "varchar(40)", (c) => c.notNull())
      .addColumn("kind", "varchar(60)", (c) => c.notNull())
      .addColumn("outcome", "varchar(20)", (c) => c.notNull())
      // JSON: the few words the owner reads (a passkey's name, a gallery, a count).
      .addColumn("detail", "text", (c) => c.notNull())
      // The user agent, cut to 256 characters; shown as "Chrome on Android".
      .addColumn("user_agent", "varchar(256)")
      // IPv4 /24 or IPv6 /48, never the full address.
      .addColumn("network", "varchar(60)")
      .addColumn("address_hash", "varchar(64)")
      // How many attempts this record stands for (refused attempts are counted per hour in one record).
      .addColumn("count", "integer", (c) => c.notNull().defaultTo(1))
      // "<kind>@<hour>" for a folded record; null for every other.
      .addColumn("fold_key", "varchar(120)", (c) => c.unique())
      .execute();
    await db.schema
      .createIndex("activity_log_occurred_at")
      .ifNotExists()
      .on("activity_log")
      .columns(["occurred_at", "id"])
      .execute();
  },
  async down(db: Kysely<unknown>) {
    await db.schema.dropTable("activity_log").ifExists().execute();
  },
};
