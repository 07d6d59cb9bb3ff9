import type { Kysely, Migration } from "kysely";

/**
 * Enquiries become an inbox (read_at, decision 0024) and every notification e-mail
 * goes through a transactional outbox (notification_jobs). Portable DDL only.
 */
export const enquiryOutbox: Migration = {
  async up(db: Kysely<unknown>) {
    await db.schema.alterTable("contact_submissions").addColumn("read_at", "varchar(40)").execute();
    // Keyset paging walks (submitted_at, id) newest first.
    await db.schema
      .createIndex("contact_submissions_submitted_at_id")
      .ifNotExists()
      .on("contact_submissions")
      .columns(["submitted_at", "id"])
      .execute();

    await db.schema
      .createTable("notification_jobs")
      .ifNotExists()
      .addColumn("id", "varchar(40)", (c) => c.primaryKey())
      .addColumn("kind", "varchar(20)", (c) => c.notNull())
      .addColumn("submission_id", "varchar(40)", (c) => c.references("contact_submissions.id").onDelete("cascade"))
      .addColumn("payload", "text", (c) => c.notNull())
      .addColumn("status", "varchar(20)", (c) => c.notNull())
      .addColumn("attempts", "integer", (c) => c.notNull().defaultTo(0))
      .addColumn("next_attempt_at", "varchar(40)")
      .addColumn("give_up_at", "varchar(40)")
      .addColumn("lease_until", "varchar(40)")
      .addColumn("lease_token", "varchar(40)")
      .addColumn("digest_hour", "varchar(40)")
      .addColumn("message_id", "varchar(300)")
      .addColumn("last_error", "text")
      .addColumn("last_attempt_at", "varchar(40)")
      .addColumn("sent_at", "varchar(40)")
      .addColumn("created_at", "varchar(40)", (c) => c.notNull())
      .addColumn("updated_at", "varchar(40)", (c) => c.notNull())
      .execute();
    // One job per enquiry (a resend reuses it); NULLs (sign-in alerts) do not clash.
    await db.schema
      .createIndex("notification_jobs_submission_id")
      .ifNotExists()
      .unique()
      .on("notification_jobs")
      .column("submission_id")
      .execute();
    // The worker's "due" query.
    await db.schema
      .createIndex("notification_jobs_due")
      .ifNotExists()
      .on("notification_jobs")
      .columns(["status", "next_attempt_at"])
      .execute();
    // The dashboard's "did the last attempt fail?"
    await db.schema
      .createIndex("notification_jobs_last_attempt_at")
      .ifNotExists()
      .on("notification_jobs")
      .column("last_attempt_at")
      .execute();

    // Mails sent per clock hour (UTC), shared by every worker: the hourly cap.
    await db.schema
      .createTable("notification_hourly_sends")
      .ifNotExists()
      .addColumn("hour", "varchar(40)", (c) => c.primaryKey())
      .addColumn("sends", "integer", (c) => c.notNull())
      .execute();
  },
  async down(db: Kysely<unknown>) {
    await db.schema.dropTable("notification_hourly_sends").ifExists().execute();
    await db.schema.dropTable("notification_jobs").ifExists().execute();
    await db.schema.dropIndex("contact_submissions_submitted_at_id").ifExists().execute();
    await db.schema.alterTable("contact_submissions").dropColumn("read_at").execute();
  },
};
