import type { Kysely, Migration } from "kysely";

// Uploads sent in parts, which survive a dropped connection (decision 0062). A ticket with
// part_bytes is one: its file arrives in parts of that size (the last may be shorter), and
// bytes and content_type hold the declared size and type until the parts are put together.
export const resumableUploads: Migration = {
  async up(db: Kysely<unknown>) {
    await db.schema.alterTable("uploads").addColumn("part_bytes", "integer").execute();
    // The bucket's multipart upload id (S3 UploadId); null on the disk, which needs none.
    await db.schema.alterTable("uploads").addColumn("multipart_id", "varchar(1024)").execute();
  },
  async down(db: Kysely<unknown>) {
    await db.schema.alterTable("uploads").dropColumn("multipart_id").execute();
    await db.schema.alterTable("uploads").dropColumn("part_bytes").execute();
  },
};
