import pg from "pg";
import { afterEach, beforeEach, describe, expect, inject, it } from "vitest";
import { createTestDatabase, type TestDatabase } from "../../tests/support/backends";
import { DatabaseLockedError, lockDatabase, type DatabaseLock } from "./database-lock.server";

// PostgreSQL's own behaviour, whatever TEST_BACKEND says.
let database: TestDatabase;
const held: DatabaseLock[] = [];
beforeEach(async () => {
  database = await createTestDatabase(inject("backends").postgresUrl);
});
afterEach(async () => {
  for (const lock of held.splice(0)) await lock.release();
  await database.drop();
});
const hold = async (mode: "shared" | "exclusive") => {
  const lock = await lockDatabase(database.url, mode);
  held.push(lock);
  return lock;
};

describe("the database's instance lock", () => {
  it("many servers share it; a restore gets it only when none holds it, and then no server can", async () => {
    const a = await hold("shared");
    await hold("shared");
    await expect(lockDatabase(database.url, "exclusive")).rejects.toThrow(DatabaseLockedError);
    await expect(lockDatabase(database.url, "exclusive")).rejects.toThrow(
      /A Cornerstone server \(or npm run backup\) is using the database postgres:\/\/postgres@/,
    );
    await a.release();
    await held.pop()!.release();
    const restore = await hold("exclusive");
    await expect(lockDatabase(database.url, "shared")).rejects.toThrow(/A restore is running on the database/);
    await restore.release();
    await hold("shared");
  });

  it("goes with the session: a server whose connection is cut takes it again on a new one", async () => {
    await hold("shared");
    const admin = new pg.Client({ connectionString: database.url });
    await admin.connect();
    try {
      const holders = async () =>
        (
          await admin.query<{ pid: number }>(
            "select pid from pg_locks where locktype = 'advisory' and granted and database = (select oid from pg_database where datname = current_database())",
          )
        ).rows.map((row) => row.pid);
      const [before] = await holders();
      expect(before).toEqual(expect.any(Number));
      await admin.query("select pg_terminate_backend($1)", [before]);
      // Taken again within moments, on another session.
      await expect
        .poll(
          async () => {
            const now = await holders();
            return now.length === 1 && now[0] !== before;
          },
          { timeout: 5_000 },
        )
        .toBe(true);
      await expect(lockDatabase(database.url, "exclusive")).rejects.toThrow(DatabaseLockedError);
    } finally {
      await admin.end();
    }
  });
});
