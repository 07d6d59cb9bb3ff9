import fs from "node:fs/promises";
import os from "node:os";
import path from "node:path";
import { sql } from "kysely";
import { afterEach, beforeEach, describe, expect, inject, it } from "vitest";
import { createLogger } from "~/lib/logger.server";
import { loadOrCreateDatabaseSecret } from "~/db/secrets.server";
import { createTestDatabase, type TestDatabase } from "../../tests/support/backends";
import { until } from "../../tests/support/until";
import { PUBLIC_CONTENT_CHANNEL, openChangeFeed } from "./change-feed.server";
import {
  DatabaseUnreachableError,
  assertDatabaseReachable,
  dialectOf,
  isUniqueViolation,
  lockForTransaction,
  migrateToLatest,
  openDatabase,
  openPostgresDatabase,
  type Database,
} from "./database.server";

// The PostgreSQL side of app/db, against the run's throwaway cluster (tests/support/vitest-backends.ts).
const { postgresUrl } = inject("backends");
const silent = createLogger({ level: "silent" });

let database: TestDatabase;
const opened: Database[] = [];
function open(): Database {
  const db = openPostgresDatabase(database.url);
  opened.push(db);
  return db;
}
beforeEach(async () => {
  database = await createTestDatabase(postgresUrl);
});
afterEach(async () => {
  for (const db of opened.splice(0)) await db.destroy().catch(() => {});
  await database.drop();
});

/** Waits until `check` holds or `ms` has passed, without failing: the expect after it says which. */
async function settle(check: () => boolean, ms = 5_000) {
  await until(check, { timeoutMs: ms }).catch(() => {});
}

describe("PostgreSQL through Kysely", () => {
  it("migrates an empty database, also when two instances start at once", async () => {
    const [a, b] = [open(), open()];
    const [first, second] = await Promise.all([migrateToLatest(a), migrateToLatest(b)]);
    // The migrator's lock lets one instance apply everything; the other finds nothing left to do.
    expect([...first, ...second].sort()).toEqual([...(first.length ? first : second)].sort());
    expect(first.length + second.length).toBeGreaterThan(0);
    expect(await migrateToLatest(a)).toEqual([]);
    expect(dialectOf(a)).toBe("postgres");
  });

  it("keeps ids, ISO timestamps, JSON text and integers as the SQLite schema does; counts come back as strings", async () => {
    const db = open();
    await migrateToLatest(db);
    const variants = JSON.stringify({
      avif: [],
      webp: [],
      jpeg: { width: 1, height: 1, path: "/media/x.jpg", bytes: 1 },
    });
    const row = {
      id: "9f0e1d2c-3b4a-4596-8877-665544332211",
      gallery_type: "veneer",
      caption: "Ōakura wall — “schist”",
      sort_order: 3,
      image_path: "/media/x.jpg",
      width: 4000,
      height: 3000,
      placeholder: "data:image/webp;base64,AAAA",
      variants,
      original_key: null,
      created_at: "2026-11-23T10:00:00.000Z",
      updated_at: "2026-11-23T10:00:00.000Z",
    };
    await db.insertInto("gallery_images").values(row).execute();
    expect(await db.selectFrom("gallery_images").selectAll().executeTakeFirst()).toEqual(row);
    const { count } = await db
      .selectFrom("gallery_images")
      .select((eb) => eb.fn.countAll().as("count"))
      .executeTakeFirstOrThrow();
    expect(count).toBe("1");
    const later = await db
      .selectFrom("gallery_images")
      .select("id")
      .where("created_at", ">", "2026-11-23T09:59:59.999Z")
      .execute();
    expect(later).toHaveLength(1);
  });

  it("tells unique violations apart on both engines", async () => {
    const pgDb = open();
    await migrateToLatest(pgDb);
    const user = { id: "u1", username: "owner", password_hash: "x", created_at: "t", updated_at: "t" };
    await pgDb.insertInto("users").values(user).execute();
    const pgError = await pgDb
      .insertInto("users")
      .values({ ...user, id: "u2" })
      .execute()
      .catch((e: unknown) => e);
    expect(isUniqueViolation(pgError)).toBe(true);

    const dir = await fs.mkdtemp(path.join(os.tmpdir(), "cornerstone-db-"));
    const sqliteDb = openDatabase(dir);
    try {
      await migrateToLatest(sqliteDb);
      expect(dialectOf(sqliteDb)).toBe("sqlite");
      await sqliteDb.insertInto("users").values(user).execute();
      const sqliteError = await sqliteDb
        .insertInto("users")
        .values({ ...user, id: "u2" })
        .execute()
        .catch((e: unknown) => e);
      expect(isUniqueViolation(sqliteError)).toBe(true);
      expect(isUniqueViolation(new Error("other"))).toBe(false);
    } finally {
      await sqliteDb.destroy();
      await fs.rm(dir, { recursive: true, force: true });
    }
  });

  it("lockForTransaction makes a second transaction on the same scope wait for the first to end", async () => {
    const db = open();
    const events: string[] = [];
    let releaseFirst!: () => void;
    const firstHolds = new Promise<void>((resolve) => (releaseFirst = resolve));
    let firstLocked!: () => void;
    const locked = new Promise<void>((resolve) => (firstLocked = resolve));

    const first = db.transaction().execute(async (trx) => {
      await lockForTransaction(trx, "gallery:veneer");
      events.push("first locked");
      firstLocked();
      await firstHolds;
      events.push("first commits");
    });
    await locked;
    const second = db.transaction().execute(async (trx) => {
      await lockForTransaction(trx, "gallery:veneer");
      events.push("second locked");
    });
    const otherScope = db.transaction().execute(async (trx) => {
      await lockForTransaction(trx, "gallery:landscaping");
      events.push("other scope locked");
    });
    await otherScope;
    // The second is still waiting on the first: poll the server's view of it.
    const observer = open();
    await until(async () => {
      const { rows } = await sql<{
        n: number;
      }>`select count(*)::int as n from pg_locks where locktype = 'advisory' and not granted`.execute(observer);
      return rows[0]!.n === 1;
    });
    expect(events).toEqual(["first locked", "other scope locked"]);
    releaseFirst();
    await Promise.all([first, second]);
    expect(events).toEqual(["first locked", "other scope locked", "first commits", "second locked"]);
  });

  it("creates a shared secret once, even when instances ask at the same moment", async () => {
    const [a, b] = [open(), open()];
    await migrateToLatest(a);
    const secrets = await Promise.all([a, b, a, b].map((db) => loadOrCreateDatabaseSecret(db, "upload-signing")));
    expect(new Set(secrets).size).toBe(1);
    expect(secrets[0]).toMatch(/^[0-9a-f]{64}$/);
    expect(await loadOrCreateDatabaseSecret(b, "upload-signing")).toBe(secrets[0]);
    expect(await loadOrCreateDatabaseSecret(b, "upload-signing", "s".repeat(40))).toBe("s".repeat(40));
  });

  it("refuses an unreachable server with a message that names it (without the password) and what to check", async () => {
    const url = "postgres://app:very-secret@127.0.0.1:1/site";
    const db = openPostgresDatabase(url);
    opened.push(db);
    const error = await assertDatabaseReachable(db, { kind: "postgres", url }).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(DatabaseUnreachableError);
    expect((error as Error).message).toContain("postgres://app@127.0.0.1:1/site (DATABASE_URL)");
    expect((error as Error).message).toContain("ECONNREFUSED");
    expect((error as Error).message).toContain("host, port, user, password and database name");
    expect((error as Error).message).not.toContain("very-secret");
  });
});

describe("the change feed (LISTEN/NOTIFY)", () => {
  it("tells every other instance, not the one that published", async () => {
    const target = { kind: "postgres" as const, url: database.url };
    const seen = { a: 0, b: 0, c: 0 };
    const feeds = await Promise.all(
      (["a", "b", "c"] as const).map((name) =>
        openChangeFeed({ target, db: open(), logger: silent, onRemoteChange: () => (seen[name] += 1) }),
      ),
    );
    try {
      feeds[0]!.publish();
      await until(() => seen.b === 1 && seen.c === 1);
      feeds[1]!.publish();
      await until(() => seen.a === 1 && seen.c === 2);
      expect(seen).toEqual({ a: 1, b: 1, c: 2 });
    } finally {
      for (const feed of feeds) await feed.close();
    }
  });

  it("listens again after losing its connection, and reports a change then (some may have been missed)", async () => {
    const target = { kind: "postgres" as const, url: database.url };
    let seen = 0;
    const listener = await openChangeFeed({ target, db: open(), logger: silent, onRemoteChange: () => (seen += 1) });
    const other = open();
    const notifyFromElsewhere = () =>
      sql`select pg_notify(${PUBLIC_CONTENT_CHANNEL}, 'another instance')`.execute(other);
    const listeningBackends = async () =>
      (
        await sql<{ pid: number }>`select pid from pg_stat_activity
          where datname = current_database() and query ilike 'LISTEN%' and pid <> pg_backend_pid()`.execute(other)
      ).rows.map((row) => row.pid);
    try {
      await notifyFromElsewhere();
      await settle(() => seen === 1);
      expect(seen).toBe(1);
      const [lost, ...more] = await listeningBackends();
      expect(more).toEqual([]);
      const killed = await sql<{ done: boolean }>`select pg_terminate_backend(${lost}) as done`.execute(other);
      expect(killed.rows).toEqual([{ done: true }]);

      // Back on a new connection, it reports the change it may have missed…
      await settle(() => seen === 2);
      expect(seen).toBe(2);
      const listening = await listeningBackends();
      expect(listening).toHaveLength(1);
      expect(listening[0]).not.toBe(lost);
      // …and hears the next one.
      await notifyFromElsewhere();
      await settle(() => seen === 3);
      expect(seen).toBe(3);
    } finally {
      await listener.close();
    }
  });

  it("is silent on SQLite: one process owns the file", async () => {
    let remoteChanges = 0;
    const feed = await openChangeFeed({
      target: { kind: "sqlite", dataDir: os.tmpdir() },
      db: open(),
      logger: silent,
      onRemoteChange: () => (remoteChanges += 1),
    });
    // A feed that listened would hear this database's notifications: none arrives, and nothing listens.
    feed.publish();
    await sql`select pg_notify(${PUBLIC_CONTENT_CHANNEL}, 'another instance')`.execute(open());
    const listening = await sql<{ count: string }>`select count(*)::text as count from pg_stat_activity
      where datname = current_database() and query ilike 'LISTEN%'`.execute(open());
    expect(listening.rows).toEqual([{ count: "0" }]);
    expect(remoteChanges).toBe(0);
    await expect(feed.close()).resolves.toBeUndefined();
  });
});
