import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import SQLite from "better-sqlite3";
import { Kysely, Migrator, SqliteDialect, sql } from "kysely";
import { afterEach, describe, expect, it } from "vitest";
import { listInbox } from "~/contact/submissions.server";
import { initial } from "./migrations/0001-initial";
import { authAndUploads } from "./migrations/0002-auth-and-uploads";
import { migrateToLatest, openDatabase } from "./database.server";
import type { DatabaseSchema } from "./schema";

const dirs: string[] = [];
const tempDir = () => {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), "cornerstone-db-"));
  dirs.push(dir);
  return dir;
};
afterEach(() => {
  for (const dir of dirs.splice(0)) fs.rmSync(dir, { recursive: true, force: true });
});

describe("the enquiry outbox's migration", () => {
  it("syncs every commit (WAL with synchronous = FULL), so an answered enquiry survives power loss", async () => {
    const db = openDatabase(tempDir());
    // SQLite-only pragmas: fine here, in the one module that knows the backend.
    const synchronous = await sql<{ synchronous: number }>`pragma synchronous`.execute(db);
    const journal = await sql<{ journal_mode: string }>`pragma journal_mode`.execute(db);
    await db.destroy();
    // 2 = FULL (1 would be NORMAL).
    expect(synchronous.rows[0]?.synchronous).toBe(2);
    expect(journal.rows[0]?.journal_mode).toBe("wal");
  });

  it("0004 upgrades a round-1 database: enquiries stay, unread, with notifications 'off' (no backlog is mailed)", async () => {
    const dir = tempDir();
    // A database as round 1 left it.
    const old = new Kysely<DatabaseSchema>({
      dialect: new SqliteDialect({ database: new SQLite(path.join(dir, "site.db")) }),
    });
    await new Migrator({
      db: old,
      provider: { getMigrations: async () => ({ "0001-initial": initial, "0002-auth-and-uploads": authAndUploads }) },
    }).migrateToLatest();
    await old
      .insertInto("contact_submissions")
      .values({
        id: "old-1",
        name: "Before",
        email: "b@example.nz",
        phone: null,
        message: "From round one.",
        submitted_at: "2025-12-01T00:00:00.000Z",
      } as never)
      .execute();
    await old.destroy();

    const db = openDatabase(dir);
    expect(await migrateToLatest(db)).toContain("0004-enquiry-outbox");
    const [item] = await listInbox({ db });
    expect(item).toMatchObject({ id: "old-1", readAt: null, notification: { status: "off", attempts: 0 } });
    expect(await db.selectFrom("notification_jobs").selectAll().execute()).toEqual([]);
    await db.destroy();
  });
});
