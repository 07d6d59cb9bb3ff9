import { sql, type Kysely, type Migration } from "kysely";

// Exactly one administrator (decision 0045), enforced by the database on both engines,
// so no path (a restore, a race, hand-written SQL) can add a second user.
export const singleAdministrator: Migration = {
  async up(db: Kysely<unknown>) {
    // First, before any change: SQLite runs migrations outside a transaction, and a
    // database that already holds two users must be refused with their names, not half-migrated.
    // The start-up refuses such a database before migrating (app/auth/single-administrator.server.ts);
    // this copy of that check, as it was when the migration was written, keeps the migration whole by itself.
    await refuseSeveralUsers(db);
    // Every row takes the value 1, which is the only one allowed and may appear once.
    await db.schema
      .alterTable("users")
      .addColumn("singleton", "integer", (c) =>
        c
          .notNull()
          .defaultTo(1)
          .check(sql`singleton = 1`),
      )
      .execute();
    await db.schema.createIndex("users_singleton").unique().on("users").column("singleton").execute();
  },
  async down(db: Kysely<unknown>) {
    await db.schema.dropIndex("users_singleton").ifExists().execute();
    await db.schema.alterTable("users").dropColumn("singleton").execute();
  },
};

async function refuseSeveralUsers(db: Kysely<unknown>): Promise<void> {
  const users = await (db as Kysely<{ users: { id: string; username: string; created_at: string } }>)
    .selectFrom("users")
    .select(["id", "username"])
    .orderBy("created_at")
    .orderBy("id")
    .execute();
  if (users.length <= 1) return;
  const listed = users.map((user) => JSON.stringify(user.username)).join(", ");
  throw new Error(
    `The database holds ${users.length} users (${listed}), but this site has exactly one administrator: ` +
      "the others may have been planted (by a crafted backup, say), and the server will not start with them.\n" +
      "Choose the one to keep: npm run admin:password -- --keep NAME\n" +
      "It sets NAME's password, deletes the other users and their sessions, and clears every sign-in lock-out.",
  );
}
