import { createHash } from "node:crypto";
import fs from "node:fs";
import path from "node:path";
import SQLite from "better-sqlite3";
import {
  DEFAULT_MIGRATION_TABLE,
  Kysely,
  Migrator,
  PostgresAdapter,
  PostgresDialect,
  sql,
  type Migration,
} from "kysely";
import pg from "pg";
import { initial } from "./migrations/0001-initial";
import { authAndUploads } from "./migrations/0002-auth-and-uploads";
import { hardening } from "./migrations/0003-hardening";
import { enquiryOutbox } from "./migrations/0004-enquiry-outbox";
import { backups } from "./migrations/0005-backups";
import { revisionsAndAnalytics } from "./migrations/0006-revisions-and-analytics";
import { scaleOut } from "./migrations/0007-scale-out";
import { singleAdministrator } from "./migrations/0008-single-administrator";
import { temporaryPassword } from "./migrations/0009-temporary-password";
import { offsiteBackups } from "./migrations/0013-offsite-backups";
import { passkeysAndTwoStep } from "./migrations/0014-passkeys-and-two-step";
import { activityLog } from "./migrations/0015-activity-log";
import { enquiryPhotos } from "./migrations/0016-enquiry-photos";
import { signInKeysAndSessionPasskey } from "./migrations/0017-sign-in-keys-and-session-passkey";
import { offsiteCopies } from "./migrations/0018-offsite-copies";
import { resumableUploads } from "./migrations/0019-resumable-uploads";
import { photosNotAttachedAndReferrerAddresses } from "./migrations/0020-photos-not-attached-and-referrer-addresses";
import { ownerLists } from "./migrations/0021-owner-lists";
import type { DatabaseSchema } from "./schema";
import { WriterFirstSqliteDialect } from "./sqlite-writer-first.server";

/** The only module that knows whether the backend is SQLite (DATA_DIR) or PostgreSQL (DATABASE_URL). */
export type Database = Kysely<DatabaseSchema>;

/** Versioned migrations, in order. Names are stored, so never rename one. */
const MIGRATIONS: Record<string, Migration> = {
  "0001-initial": initial,
  "0002-auth-and-uploads": authAndUploads,
  "0003-hardening": hardening,
  "0004-enquiry-outbox": enquiryOutbox,
  "0005-backups": backups,
  "0006-revisions-and-analytics": revisionsAndAnalytics,
  "0007-scale-out": scaleOut,
  "0008-single-administrator": singleAdministrator,
  "0009-temporary-password": temporaryPassword,
  "0013-offsite-backups": offsiteBackups,
  "0014-passkeys-and-two-step": passkeysAndTwoStep,
  "0015-activity-log": activityLog,
  "0016-enquiry-photos": enquiryPhotos,
  "0017-sign-in-keys-and-session-passkey": signInKeysAndSessionPasskey,
  "0018-offsite-copies": offsiteCopies,
  "0019-resumable-uploads": resumableUploads,
  "0020-photos-not-attached-and-referrer-addresses": photosNotAttachedAndReferrerAddresses,
  "0021-owner-lists": ownerLists,
};

export type DatabaseDialect = "sqlite" | "postgres";

/** Where the data lives: `DATABASE_URL` when set, else SQLite in `DATA_DIR`. */
export type DatabaseTarget = { kind: "sqlite"; dataDir: string } | { kind: "postgres"; url: string };

export function databaseTargetFor(env: { DATABASE_URL?: string; DATA_DIR: string }): DatabaseTarget {
  return env.DATABASE_URL ? { kind: "postgres", url: env.DATABASE_URL } : { kind: "sqlite", dataDir: env.DATA_DIR };
}

export function openDatabase(
  dataDir: string,
  // NORMAL exists only so `npm run bench` can measure what FULL costs (decision 0022).
  options: { synchronous?: "FULL" | "NORMAL" } = {},
): Database {
  fs.mkdirSync(dataDir, { recursive: true });
  const sqlite = new SQLite(path.join(dataDir, "site.db"));
  // WAL lets readers carry on while a write commits. FULL syncs the WAL at every
  // commit, so an acknowledged enquiry survives power loss, not only a crash (decision 0022).
  sqlite.pragma("journal_mode = WAL");
  sqlite.pragma(`synchronous = ${options.synchronous ?? "FULL"}`);
  sqlite.pragma("foreign_keys = ON");
  sqlite.pragma("busy_timeout = 5000");
  const db = new Kysely<DatabaseSchema>({ dialect: new WriterFirstSqliteDialect({ database: sqlite }) });
  sqliteFiles.set(db, sqlite.name);
  return db;
}

/** Which SQLite file each open database uses: a backup's snapshot opens its own connection to it. */
const sqliteFiles = new WeakMap<Database, string>();

/** The SQLite file behind db, or null for another backend. */
export function sqliteFileOf(db: Database): string | null {
  return sqliteFiles.get(db) ?? null;
}

/** The migrations this code knows, oldest first (the order Kysely applies them in). */
export function knownMigrations(): string[] {
  return Object.keys(MIGRATIONS).sort();
}

/** `insideTransaction`: the caller holds a transaction on db's one connection (a PostgreSQL restore). */
export type MigrateOptions = { insideTransaction?: boolean };

function migratorFor(db: Kysely<DatabaseSchema>, options: MigrateOptions): Migrator {
  return new Migrator({
    db,
    provider: { getMigrations: async () => MIGRATIONS },
    disableTransactions: options.insideTransaction ?? false,
  });
}

/** Applies migrations up to and including `name` (a restore loads rows at the backup's schema first). */
export async function migrateTo(db: Kysely<DatabaseSchema>, name: string, options: MigrateOptions = {}): Promise<void> {
  const { error } = await migratorFor(db, options).migrateTo(name);
  if (error) throw error;
}

/** How long a new PostgreSQL connection may take before the attempt counts as failed. */
const CONNECT_TIMEOUT_MS = 5_000;

export function openPostgresDatabase(
  url: string,
  options: { onIdleClientError?: (error: Error) => void; maxConnections?: number } = {},
): Database {
  const pool = new pg.Pool({
    connectionString: url,
    max: options.maxConnections ?? 10,
    connectionTimeoutMillis: CONNECT_TIMEOUT_MS,
    idleTimeoutMillis: 30_000,
  });
  // An idle connection that the server drops (restart, failover) must not end the process.
  pool.on("error", (error) => options.onIdleClientError?.(error));
  const db = new Kysely<DatabaseSchema>({ dialect: new PostgresDialect({ pool }) });
  postgresPools.set(db, pool);
  return db;
}

/** Each PostgreSQL database's pool: a backup's snapshot takes a dedicated client from it. */
const postgresPools = new WeakMap<Database, pg.Pool>();

/** The pool behind db, or null for another backend. */
export function postgresPoolOf(db: Database): pg.Pool | null {
  return postgresPools.get(db) ?? null;
}

export function openDatabaseAt(
  target: DatabaseTarget,
  options: { onIdleClientError?: (error: Error) => void } = {},
): Database {
  return target.kind === "postgres" ? openPostgresDatabase(target.url, options) : openDatabase(target.dataDir);
}

/** Which engine a database (or a transaction on it) runs on. */
export function dialectOf(db: Kysely<DatabaseSchema>): DatabaseDialect {
  return db.getExecutor().adapter instanceof PostgresAdapter ? "postgres" : "sqlite";
}

/** Applies pending migrations; running it again is a no-op. Safe when two instances start at once (the migrator locks). */
export async function migrateToLatest(db: Kysely<DatabaseSchema>, options: MigrateOptions = {}): Promise<string[]> {
  const { error, results } = await migratorFor(db, options).migrateToLatest();
  if (error) throw error;
  return (results ?? []).filter((r) => r.status === "Success").map((r) => r.migrationName);
}

/** The migrations the database has had, oldest first, including those a newer release ran; none applied. */
export async function appliedMigrations(db: Kysely<DatabaseSchema>): Promise<string[]> {
  // Kysely leaves its own tables out of the listing unless asked.
  const tables = await db.introspection.getTables({ withInternalKyselyTables: true });
  if (!tables.some((table) => table.name === DEFAULT_MIGRATION_TABLE)) return [];
  const rows = await sql<{
    name: string;
  }>`select name from ${sql.table(DEFAULT_MIGRATION_TABLE)} order by name`.execute(db);
  return rows.rows.map((row) => row.name);
}

/** Health check: throws when the database cannot be read. */
export async function pingDatabase(db: Database): Promise<void> {
  await sql`select 1`.execute(db);
}

export class DatabaseUnreachableError extends Error {
  override name = "DatabaseUnreachableError";
}

/** `postgres://user@host:port/db`: the URL without its password, for messages. */
export function describeDatabaseUrl(url: string): string {
  try {
    const parsed = new URL(url);
    parsed.password = "";
    return parsed.toString();
  } catch {
    return "(unparseable URL)";
  }
}

/** The start-up check: DatabaseUnreachableError with a message that says what to fix. */
export async function assertDatabaseReachable(db: Database, target: DatabaseTarget): Promise<void> {
  try {
    await pingDatabase(db);
  } catch (error) {
    const reason = error instanceof Error ? error.message : String(error);
    const where =
      target.kind === "postgres"
        ? `the PostgreSQL database at ${describeDatabaseUrl(target.url)} (DATABASE_URL)`
        : `the SQLite database in ${target.dataDir} (DATA_DIR)`;
    const fix =
      target.kind === "postgres"
        ? "Check that the server is running and reachable from here, and that DATABASE_URL's host, port, user, password and database name are right."
        : "Check that DATA_DIR exists and is writable.";
    throw new DatabaseUnreachableError(`Cannot use ${where}: ${reason}\n${fix}`);
  }
}

/** Two signed 32-bit halves of a hash of `scope`, the key of a PostgreSQL advisory lock. */
export function advisoryLockKey(scope: string): [number, number] {
  const digest = createHash("sha256").update(`cornerstone:${scope}`).digest();
  return [digest.readInt32BE(0), digest.readInt32BE(4)];
}

/**
 * Serialises the transactions touching `scope`; call it first. PostgreSQL: a transaction-scoped advisory lock
 * (READ COMMITTED alone lets two read the same count). SQLite: nothing, its one connection already serialises.
 */
export async function lockForTransaction(trx: Kysely<DatabaseSchema>, scope: string): Promise<void> {
  if (dialectOf(trx) !== "postgres") return;
  const [high, low] = advisoryLockKey(scope);
  await sql`select pg_advisory_xact_lock(${high}, ${low})`.execute(trx);
}

/** Like lockForTransaction, but false at once when another transaction holds it (SQLite: always true). */
export async function tryLockForTransaction(trx: Kysely<DatabaseSchema>, scope: string): Promise<boolean> {
  if (dialectOf(trx) !== "postgres") return true;
  const [high, low] = advisoryLockKey(scope);
  const { rows } = await sql<{ locked: boolean }>`select pg_try_advisory_xact_lock(${high}, ${low}) as locked`.execute(
    trx,
  );
  return rows[0]?.locked === true;
}

/** SELECT … FOR UPDATE SKIP LOCKED (PostgreSQL); SQLite claims with a conditional update instead. */
export function canSkipLockedRows(db: Kysely<DatabaseSchema>): boolean {
  return dialectOf(db) === "postgres";
}

/** Whether an error is a unique-constraint violation, on either engine. */
export function isUniqueViolation(error: unknown): boolean {
  const code = (error as { code?: unknown } | null)?.code;
  return code === "23505" || code === "SQLITE_CONSTRAINT_UNIQUE" || code === "SQLITE_CONSTRAINT_PRIMARYKEY";
}

export function nowIso(): string {
  return new Date().toISOString();
}
