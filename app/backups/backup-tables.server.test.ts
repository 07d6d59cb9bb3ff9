import fs from "node:fs/promises";
import os from "node:os";
import path from "node:path";
import { sql } from "kysely";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { migrateToLatest, openDatabase, type Database } from "~/db/database.server";
import { listTables } from "~/db/snapshot.server";
import { BACKUP_TABLE_NAMES, EXCLUDED_TABLES, unclassifiedTables } from "./backup-tables.server";

let dir: string;
let db: Database;
beforeEach(async () => {
  dir = await fs.mkdtemp(path.join(os.tmpdir(), "cornerstone-tables-"));
  db = openDatabase(dir);
  await migrateToLatest(db);
});
afterEach(async () => {
  await db.destroy();
  await fs.rm(dir, { recursive: true, force: true });
});

describe("the backup's table registry", () => {
  it("classifies every table of the fully migrated database: included, or left out with a reason", async () => {
    const unclassified = unclassifiedTables(await listTables(db));
    expect(
      unclassified,
      `Add these tables to BACKUP_TABLES or EXCLUDED_TABLES in app/backups/backup-tables.server.ts: ${unclassified.join(", ")}`,
    ).toEqual([]);
  });

  it("catches a table that neither list mentions", async () => {
    await sql`create table mystery_new_table (id varchar(40) primary key)`.execute(db);
    expect(unclassifiedTables(await listTables(db))).toEqual(["mystery_new_table"]);
  });

  it("never both includes and leaves out a table; sessions and analytics working data are left out", () => {
    expect(BACKUP_TABLE_NAMES.filter((name) => name in EXCLUDED_TABLES)).toEqual([]);
    for (const name of [
      "sessions",
      "analytics_salts",
      "analytics_visitors",
      "rate_limit_counters",
      "backup_leases",
      "deferred_deletions",
    ]) {
      expect(EXCLUDED_TABLES[name], name).toBeTruthy();
    }
    for (const name of [
      "users",
      "content_entries",
      "gallery_images",
      "contact_submissions",
      "notification_jobs",
      "content_revisions",
    ]) {
      expect(BACKUP_TABLE_NAMES).toContain(name);
    }
  });
});
