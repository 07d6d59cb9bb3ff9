import fs from "node:fs/promises";
import os from "node:os";
import path from "node:path";
import SQLite from "better-sqlite3";
import { afterEach, describe, expect, it } from "vitest";
import { openDatabase } from "./database.server";

let dir = "";
afterEach(async () => {
  if (dir) await fs.rm(dir, { recursive: true, force: true });
  dir = "";
});

describe("SQLite transactions", () => {
  it("take the write lock at their start: a read then a write never fails because another process wrote in between", async () => {
    dir = await fs.mkdtemp(path.join(os.tmpdir(), "cornerstone-writer-first-"));
    const db = openDatabase(dir);
    await db.schema.createTable("notes").addColumn("text", "text").execute();
    // Another process's connection (a script taking a backup's lease), which does not wait for locks.
    const other = new SQLite(path.join(dir, "site.db"));
    other.pragma("busy_timeout = 0");
    let otherWrite = "not tried";
    try {
      await db.transaction().execute(async (trx) => {
        await trx
          .selectFrom("notes" as never)
          .selectAll()
          .execute();
        try {
          other.prepare("insert into notes (text) values ('from the other process')").run();
          otherWrite = "written";
        } catch (error) {
          otherWrite = (error as { code?: string }).code ?? String(error);
        }
        await trx
          .insertInto("notes" as never)
          .values({ text: "from the server" } as never)
          .execute();
      });
    } finally {
      other.close();
    }
    // The other writer waited (here: was refused at once, as it does not wait); the server's transaction committed.
    expect(otherWrite).toBe("SQLITE_BUSY");
    const rows = await db
      .selectFrom("notes" as never)
      .selectAll()
      .execute();
    expect(rows).toEqual([{ text: "from the server" }]);
    await db.destroy();
  });
});
