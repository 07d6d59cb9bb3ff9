import { sql, type Kysely, type Migration } from "kysely";

// Rate limits shared by every process, sign-in failure records, idle session expiry
// (decisions 0014 and 0015).
export const hardening: Migration = {
  async up(db: Kysely<unknown>) {
    // One row per (limit, client): changed only by one atomic upsert (app/db/rate-limit.server.ts).
    await db.schema
      .createTable("rate_limit_counters")
      .ifNotExists()
      .addColumn("scope", "varchar(40)", (c) => c.notNull())
      .addColumn("key", "varchar(100)", (c) => c.notNull())
      .addColumn("window_start", "varchar(40)", (c) => c.notNull())
      .addColumn("expires_at", "varchar(40)", (c) => c.notNull())
      .addColumn("count", "integer", (c) => c.notNull())
      .addPrimaryKeyConstraint("rate_limit_counters_pk", ["scope", "key"])
      .execute();
    await db.schema
      .createIndex("rate_limit_counters_expires_at")
      .ifNotExists()
      .on("rate_limit_counters")
      .column("expires_at")
      .execute();

    // Failed sign-ins since the last good one, per keyed hash of the client address (never the address).
    await db.schema
      .createTable("sign_in_failures")
      .ifNotExists()
      .addColumn("address_hash", "varchar(64)", (c) => c.primaryKey())
      .addColumn("attempts", "integer", (c) => c.notNull())
      .addColumn("first_failed_at", "varchar(40)", (c) => c.notNull())
      .addColumn("last_failed_at", "varchar(40)", (c) => c.notNull())
      .execute();

    // What a good sign-in found: shown on that session's dashboard.
    await db.schema
      .createTable("sign_in_reports")
      .ifNotExists()
      .addColumn("session_id", "varchar(64)", (c) => c.primaryKey().references("sessions.id").onDelete("cascade"))
      .addColumn("failed_attempts", "integer", (c) => c.notNull())
      .addColumn("failed_addresses", "integer", (c) => c.notNull())
      .addColumn("addresses_capped", "integer", (c) => c.notNull())
      .addColumn("first_failed_at", "varchar(40)")
      .addColumn("last_failed_at", "varchar(40)")
      .execute();

    await db.schema.alterTable("sessions").addColumn("last_used_at", "varchar(40)").execute();
    await sql`update sessions set last_used_at = created_at`.execute(db);
  },
  async down(db: Kysely<unknown>) {
    await db.schema.alterTable("sessions").dropColumn("last_used_at").execute();
    await db.schema.dropTable("sign_in_reports").ifExists().execute();
    await db.schema.dropTable("sign_in_failures").ifExists().execute();
    await db.schema.dropTable("rate_limit_counters").ifExists().execute();
  },
};
