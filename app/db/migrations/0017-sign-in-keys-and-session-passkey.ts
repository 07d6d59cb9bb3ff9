import type { Kysely, Migration } from "kysely";

// Two-step verification that survives a restore onto another server (decision 0058), and which
// passkey a session signed in with (so "Sign out everywhere" can keep that one).
export const signInKeysAndSessionPasskey: Migration = {
  async up(db: Kysely<unknown>) {
    // The key the recovery codes were hashed with, sealed under this installation's two-step key.
    // Null: the installation's key itself. Set by a restore that brought another installation's key.
    await db.schema.alterTable("two_factor").addColumn("recovery_key_sealed", "text").execute();
    // The passkey (its credential id) this session signed in with; null after a password sign-in.
    await db.schema.alterTable("sessions").addColumn("passkey_id", "varchar(1400)").execute();
  },
  async down(db: Kysely<unknown>) {
    await db.schema.alterTable("sessions").dropColumn("passkey_id").execute();
    await db.schema.alterTable("two_factor").dropColumn("recovery_key_sealed").execute();
  },
};
