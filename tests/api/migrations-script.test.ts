import { existsSync } from "node:fs";
import fs from "node:fs/promises";
import os from "node:os";
import path from "node:path";
import { sql } from "kysely";
import { afterAll, describe, expect, inject, it } from "vitest";
import {
  knownMigrations,
  migrateToLatest,
  openDatabase,
  openPostgresDatabase,
  type Database,
} from "~/db/database.server";
import { createTestDatabase, type TestDatabase } from "../support/backends";
import { runScript } from "../support/run-script";

/**
 * `npm run migrations -- --json`: what `npm run update` reads to tell whether a new release changed the
 * database (then switching back restores the backup) and whether --rollback may go back.
 */
const backends = inject("backends");
const onPostgres = backends.testBackend === "postgres-s3";
const tmp = await fs.mkdtemp(path.join(os.tmpdir(), "cornerstone-migrations-"));
const databases: TestDatabase[] = [];
afterAll(async () => {
  for (const database of databases) await database.drop();
  await fs.rm(tmp, { recursive: true, force: true });
});

type Site = { env: Record<string, string>; open: () => Database; made: () => Promise<string[]> };

/** The tables of a database, Kysely's own included, through the same handle either engine gives. */
async function tablesOf(db: Database): Promise<string[]> {
  try {
    return (await db.introspection.getTables({ withInternalKyselyTables: true })).map((table) => table.name).sort();
  } finally {
    await db.destroy();
  }
}

/** An empty data folder, and the database the script reads there (SQLite in it, or PostgreSQL); what is made in it. */
async function emptySite(name: string): Promise<Site> {
  const dataDir = path.join(tmp, name);
  await fs.mkdir(dataDir);
  if (!onPostgres) {
    const open = () => openDatabase(dataDir);
    // The file, and then its tables (opening a missing one to look would make it).
    const made = async () =>
      existsSync(path.join(dataDir, "site.db")) ? ["site.db", ...(await tablesOf(open()))] : [];
    return { env: { DATA_DIR: dataDir }, open, made };
  }
  const database = await createTestDatabase(backends.postgresUrl);
  databases.push(database);
  const open = () => openPostgresDatabase(database.url);
  return { env: { DATA_DIR: dataDir, DATABASE_URL: database.url }, open, made: () => tablesOf(open()) };
}

async function migrations(env: Record<string, string>) {
  const result = await runScript("migrations", ["--json"], env);
  expect(result.status, result.stderr).toBe(0);
  return JSON.parse(result.stdout) as { applied: string[]; known: string[]; unknown: string[] };
}

describe(`npm run migrations (${onPostgres ? "PostgreSQL" : "SQLite"})`, () => {
  it("lists none for a database that has had none, and creates nothing to say so", async () => {
    const site = await emptySite("empty");
    expect(await migrations(site.env)).toEqual({ applied: [], known: knownMigrations(), unknown: [] });
    expect(await site.made()).toEqual([]);
  });

  it("lists what the database has had, and names those a newer release ran, without applying any", async () => {
    const site = await emptySite("migrated");
    const db = site.open();
    await migrateToLatest(db);
    // A newer release's migration, as it leaves its row behind.
    await sql`insert into kysely_migration (name, timestamp) values ('9001-from-a-newer-release', '2026-01-01T00:00:00.000Z')`.execute(
      db,
    );
    await sql`delete from kysely_migration where name = ${knownMigrations().at(-1)!}`.execute(db);
    await db.destroy();

    const listed = await migrations(site.env);
    expect(listed.applied).toEqual([...knownMigrations().slice(0, -1), "9001-from-a-newer-release"]);
    expect(listed.unknown).toEqual(["9001-from-a-newer-release"]);
    // Read only: the newest known migration, deleted above, was not run again.
    const after = site.open();
    const rows = await sql<{
      name: string;
    }>`select name from kysely_migration where name = ${knownMigrations().at(-1)!}`.execute(after);
    await after.destroy();
    expect(rows.rows).toEqual([]);
  });
});
