import type { Kysely, Migration } from "kysely";

// How many photos a visitor sent with an enquiry that are not with it (unknown, expired or used
// tokens, photos that lost their place among the waiting ones, photos past a cap), for the owner's
// e-mail and inbox; and how many addresses each referrer host was seen from that day: a host is
// listed only from 2. Rows from before were listed, so they count as 2.
export const photosNotAttachedAndReferrerAddresses: Migration = {
  async up(db: Kysely<unknown>) {
    await db.schema
      .alterTable("contact_submissions")
      .addColumn("photos_not_attached", "integer", (c) => c.notNull().defaultTo(0))
      .execute();
    await db.schema
      .alterTable("analytics_daily_referrers")
      .addColumn("addresses", "integer", (c) => c.notNull().defaultTo(2))
      .execute();
  },
  async down(db: Kysely<unknown>) {
    await db.schema.alterTable("analytics_daily_referrers").dropColumn("addresses").execute();
    await db.schema.alterTable("contact_submissions").dropColumn("photos_not_attached").execute();
  },
};
