import type { Kysely, Migration } from "kysely";

// Which password the first start generated, so the dashboard can
// ask the owner to change it (decision 0051). It holds a copy of the generated
// password's hash: any later change writes a new hash (new salt), so the two
// differ from then on, whichever way the password was changed.
export const temporaryPassword: Migration = {
  async up(db: Kysely<unknown>) {
    await db.schema.alterTable("users").addColumn("temporary_password_hash", "varchar(200)").execute();
  },
  async down(db: Kysely<unknown>) {
    await db.schema.alterTable("users").dropColumn("temporary_password_hash").execute();
  },
};
