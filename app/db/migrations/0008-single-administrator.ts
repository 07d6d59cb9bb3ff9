import { sql, type Kysely, type Migration } from "kysely";
import { assertSingleAdministrator } from "~/auth/single-administrator.server";

// Exactly one administrator (decision 0045), enforced by the database on both engines,
// so no path (a restore, a race, hand-written SQL) can add a second user.
export const singleAdministrator: Migration = {
  async up(db: Kysely<unknown>) {
    // First, before any change: SQLite runs migrations outside a transaction, and a
    // database that already holds two users must be refused with their names, not half-migrated.
    await assertSingleAdministrator(db);
    // Every row takes the value 1, which is the only one allowed and may appear once.
    await db.schema
      .alterTable("users")
      .addColumn("singleton", "integer", (c) => c.notNull().defaultTo(1).check(sql`singleton = 1`))
      .execute();
    await db.schema.createIndex("users_singleton").unique().on("users").column("singleton").execute();
  },
  async down(db: Kysely<unknown>) {
    await db.schema.dropIndex("users_singleton").ifExists().execute();
    await db.schema.alterTable("users").dropColumn("singleton").execute();
  },
};
