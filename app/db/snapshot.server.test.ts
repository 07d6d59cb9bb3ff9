import fs from "node:fs/promises";
import os from "node:os";
import path from "node:path";
import { sql } from "kysely";
import { afterEach, beforeEach, describe, expect, inject, it } from "vitest";
import { createTestDatabase, type TestDatabase } from "../../tests/support/backends";
import { knownMigrations, migrateToLatest, openDatabase, openPostgresDatabase, type Database } from "./database.server";
import { listTables, readSnapshot, type SnapshotRow } from "./snapshot.server";

let dir: string;
let db: Database;
beforeEach(async () => {
  dir = await fs.mkdtemp(path.join(os.tmpdir(), "cornerstone-snapshot-"));
  db = openDatabase(dir);
  await migrateToLatest(db);
});
afterEach(async () => {
  await db.destroy();
  await fs.rm(dir, { recursive: true, force: true });
});

const entry = (key: string) => ({
  key,
  content: `text of ${key}`,
  updated_at: "2026-01-01T00:00:00.000Z",
  updated_by: null,
});

describe("readSnapshot", () => {
  it("reads one consistent view on its own connection: writes carry on meanwhile and stay out of it", async () => {
    await db
      .insertInto("content_entries")
      .values([entry("a"), entry("b")])
      .execute();
    const seen: SnapshotRow[] = [];
    let wroteDuring = false;
    const snapshot = await readSnapshot(db, ["content_entries", "contact_submissions"], async (table, row) => {
      seen.push(row);
      if (!wroteDuring) {
        wroteDuring = true;
        // Mid-snapshot: the server's connection writes and commits at once (not blocked)…
        await db.insertInto("content_entries").values(entry("c")).execute();
        await db.updateTable("content_entries").set({ content: "changed" }).where("key", "=", "b").execute();
        await db
          .insertInto("contact_submissions")
          .values({
            id: "1",
            name: "n",
            email: "e@example.com",
            phone: null,
            message: "written during the snapshot",
            submitted_at: "x",
          })
          .execute();
        expect(await db.selectFrom("content_entries").select("key").execute()).toHaveLength(3);
      }
    });
    // …and the snapshot still shows the database as it was when it began.
    expect(seen).toEqual([entry("a"), entry("b")]);
    expect(snapshot).toEqual({ migration: knownMigrations().at(-1), missingTables: [] });
  });

  it("names the tables this database does not have, and reads the others", async () => {
    const snapshot = await readSnapshot(db, ["content_entries", "not_here_yet"], () => {});
    expect(snapshot.missingTables).toEqual(["not_here_yet"]);
  });

  it("refuses table names that are not plain identifiers", async () => {
    await expect(readSnapshot(db, ['x"; DROP TABLE users; --'], () => {})).rejects.toThrow(/Invalid table name/);
  });
});

describe("listTables", () => {
  it("lists every table, Kysely's migration tables included", async () => {
    const tables = await listTables(db);
    expect(tables).toEqual(
      expect.arrayContaining(["content_entries", "sessions", "kysely_migration", "kysely_migration_lock"]),
    );
  });
});

// PostgreSQL's reader, whatever TEST_BACKEND says: it is this engine's own code.
describe("readSnapshot on PostgreSQL", () => {
  let database: TestDatabase;
  let pgDb: Database;
  beforeEach(async () => {
    database = await createTestDatabase(inject("backends").postgresUrl, {
      template: inject("backends").postgresTemplate,
    });
    pgDb = openPostgresDatabase(database.url);
  });
  afterEach(async () => {
    await pgDb.destroy();
    await database.drop();
  });

  it("reads one consistent view on a dedicated connection, in batches: writes carry on meanwhile and stay out of it", async () => {
    // More rows than one FETCH, so the cursor is read in several batches.
    const keys = Array.from({ length: 1234 }, (_, i) => `k${String(i).padStart(5, "0")}`);
    for (let i = 0; i < keys.length; i += 300)
      await pgDb
        .insertInto("content_entries")
        .values(keys.slice(i, i + 300).map(entry))
        .execute();
    const seen: SnapshotRow[] = [];
    let wroteDuring = false;
    const snapshot = await readSnapshot(pgDb, ["content_entries", "contact_submissions"], async (_table, row) => {
      seen.push(row);
      if (!wroteDuring) {
        wroteDuring = true;
        await pgDb.insertInto("content_entries").values(entry("zz-during")).execute();
        await pgDb.updateTable("content_entries").set({ content: "changed" }).where("key", "=", "k00001").execute();
        await pgDb
          .insertInto("contact_submissions")
          .values({
            id: "1",
            name: "n",
            email: "e@example.com",
            phone: null,
            message: "written during the snapshot",
            submitted_at: "x",
          })
          .execute();
      }
    });
    // In primary-key order, as the database was when the snapshot began.
    expect(seen).toEqual(keys.map(entry));
    expect(snapshot).toEqual({ migration: knownMigrations().at(-1), missingTables: [] });
    expect(await pgDb.selectFrom("content_entries").select("key").execute()).toHaveLength(keys.length + 1);
  });

  it("hands out the same JSON as SQLite: ints as numbers; int8, booleans, timestamps and JSON made neutral", async () => {
    await sql`create table neutral_probe (id integer primary key, big bigint, flag boolean, at timestamptz, doc jsonb, note text)`.execute(
      pgDb,
    );
    await sql`insert into neutral_probe values (1, 9007199254740991, true, '2026-03-04T05:06:07.089Z', '{"a":[1,2]}', null), (2, 9007199254740993, false, null, null, 'x')`.execute(
      pgDb,
    );
    const rows: SnapshotRow[] = [];
    await readSnapshot(pgDb, ["neutral_probe"], (_table, row) => void rows.push(row));
    expect(rows).toEqual([
      { id: 1, big: 9007199254740991, flag: 1, at: "2026-03-04T05:06:07.089Z", doc: '{"a":[1,2]}', note: null },
      // Past 2^53 a number would change the value: its text is kept.
      { id: 2, big: "9007199254740993", flag: 0, at: null, doc: null, note: "x" },
    ]);
  });

  it("names missing tables, rolls back and frees its connection when a row handler fails", async () => {
    await pgDb.insertInto("content_entries").values(entry("a")).execute();
    expect((await readSnapshot(pgDb, ["content_entries", "not_here_yet"], () => {})).missingTables).toEqual([
      "not_here_yet",
    ]);
    await expect(
      readSnapshot(pgDb, ["content_entries"], () => {
        throw new Error("disk full");
      }),
    ).rejects.toThrow("disk full");
    // Nothing is left open in a transaction.
    const open = await sql<{
      n: number;
    }>`select count(*)::int as n from pg_stat_activity where datname = current_database() and state like 'idle in transaction%'`.execute(
      pgDb,
    );
    expect(open.rows[0]!.n).toBe(0);
  });
});
