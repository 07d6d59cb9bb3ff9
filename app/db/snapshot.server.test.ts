import fs from "node:fs/promises";
import os from "node:os";
import path from "node:path";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { knownMigrations, migrateToLatest, openDatabase, type Database } from "./database.server";
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

const entry = (key: string) => ({ key, content: `text of ${key}`, updated_at: "2026-01-01T00:00:00.000Z", updated_by: null });

describe("readSnapshot", () => {
  it("reads one consistent view on its own connection: writes carry on meanwhile and stay out of it", async () => {
    await db.insertInto("content_entries").values([entry("a"), entry("b")]).execute();
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
          .values({ id: "1", name: "n", email: "e@example.com", phone: null, message: "written during the snapshot", submitted_at: "x" })
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
    expect(tables).toEqual(expect.arrayContaining(["content_entries", "sessions", "kysely_migration", "kysely_migration_lock"]));
  });
});
