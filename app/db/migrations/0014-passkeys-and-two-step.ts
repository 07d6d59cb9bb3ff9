import type { Kysely, Migration } from "kysely";

// Passkeys, two-step verification, and the short-lived sign-in ceremonies (decision 0053),
// all in the database so a ceremony begun on one instance finishes on another.
export const passkeysAndTwoStep: Migration = {
  async up(db: Kysely<unknown>) {
    await db.schema
      .createTable("passkeys")
      .ifNotExists()
      // The credential id (base64url), as the authenticator returns it.
      .addColumn("id", "varchar(1400)", (c) => c.primaryKey())
      .addColumn("user_id", "varchar(100)", (c) => c.notNull().references("users.id").onDelete("cascade"))
      .addColumn("name", "varchar(100)", (c) => c.notNull())
      .addColumn("public_key", "text", (c) => c.notNull())
      .addColumn("counter", "bigint", (c) => c.notNull())
      .addColumn("transports", "varchar(200)", (c) => c.notNull())
      .addColumn("created_at", "varchar(40)", (c) => c.notNull())
      .addColumn("last_used_at", "varchar(40)")
      .execute();
    await db.schema
      .createTable("two_factor")
      .ifNotExists()
      .addColumn("user_id", "varchar(100)", (c) => c.primaryKey().references("users.id").onDelete("cascade"))
      // AES-256-GCM under the installation's two-step key (secrets/), never the key itself.
      .addColumn("secret_encrypted", "text", (c) => c.notNull())
      // Null while enrolling: on only once a code from the app was confirmed.
      .addColumn("enabled_at", "varchar(40)")
      // The last time step a code was accepted for: no code is used twice.
      .addColumn("last_used_step", "bigint", (c) => c.notNull().defaultTo(0))
      .addColumn("created_at", "varchar(40)", (c) => c.notNull())
      .execute();
    await db.schema
      .createTable("recovery_codes")
      .ifNotExists()
      // HMAC-SHA256 of the code under the two-step key: a used code is deleted.
      .addColumn("code_hash", "varchar(100)", (c) => c.primaryKey())
      .addColumn("user_id", "varchar(100)", (c) => c.notNull().references("users.id").onDelete("cascade"))
      .addColumn("created_at", "varchar(40)", (c) => c.notNull())
      .execute();
    await db.schema
      .createTable("auth_ceremonies")
      .ifNotExists()
      // SHA-256 of the random token in the browser's cookie.
      .addColumn("id", "varchar(100)", (c) => c.primaryKey())
      .addColumn("kind", "varchar(40)", (c) => c.notNull())
      .addColumn("challenge", "varchar(200)")
      .addColumn("user_id", "varchar(100)", (c) => c.references("users.id").onDelete("cascade"))
      .addColumn("attempts", "integer", (c) => c.notNull().defaultTo(0))
      .addColumn("created_at", "varchar(40)", (c) => c.notNull())
      .addColumn("expires_at", "varchar(40)", (c) => c.notNull())
      .execute();
    await db.schema
      .createIndex("auth_ceremonies_expires_at")
      .ifNotExists()
      .on("auth_ceremonies")
      .column("expires_at")
      .execute();
  },
  async down(db: Kysely<unknown>) {
    for (const table of ["auth_ceremonies", "recovery_codes", "two_factor", "passkeys"]) {
      await db.schema.dropTable(table).ifExists().execute();
    }
  },
};
