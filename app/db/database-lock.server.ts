import pg from "pg";
import type { Logger } from "~/lib/logger.server";
import { advisoryLockKey, describeDatabaseUrl } from "./database.server";

/**
 * PostgreSQL's counterpart of DATA_DIR's lock file (data-dir-lock.server.ts):
 * a session-level advisory lock on the database. Every server (and
 * `npm run backup`) holds it shared on a connection of its own for as long as
 * it runs; `npm run restore` takes it exclusive, so it refuses while any
 * instance, on any machine, still uses the database. The engine drops the
 * lock with the session, so a killed process never leaves it behind.
 */
export class DatabaseLockedError extends Error {
  override name = "DatabaseLockedError";
}

export type DatabaseLock = { release(): Promise<void> };

const INSTANCES_KEY = advisoryLockKey("instances");

export async function lockDatabase(
  url: string,
  mode: "shared" | "exclusive",
  options: { logger?: Logger } = {},
): Promise<DatabaseLock> {
  const client = new pg.Client({ connectionString: url, connectionTimeoutMillis: 5_000 });
  let released = false;
  // A lost connection loses the lock with it: say so (a restore could then start beside us).
  client.on("error", (error) => {
    if (!released) options.logger?.warn({ err: error }, "lost the database connection that holds the instance lock");
  });
  await client.connect();
  try {
    const take = mode === "shared" ? "pg_try_advisory_lock_shared" : "pg_try_advisory_lock";
    const { rows } = await client.query<{ ok: boolean }>(`SELECT ${take}($1, $2) AS ok`, INSTANCES_KEY);
    if (!rows[0]?.ok) {
      const where = describeDatabaseUrl(url);
      throw new DatabaseLockedError(
        mode === "shared"
          ? `A restore is running on the database ${where}`
          : `A Cornerstone server (or npm run backup) is using the database ${where}`,
      );
    }
  } catch (error) {
    released = true;
    await client.end().catch(() => {});
    throw error;
  }
  return {
    async release() {
      if (released) return;
      released = true;
      // Ending the session releases the lock.
      await client.end().catch(() => {});
    },
  };
}
