import pg from "pg";
import type { Logger } from "~/lib/logger.server";
import { advisoryLockKey, describeDatabaseUrl } from "./database.server";

/**
 * PostgreSQL's counterpart of DATA_DIR's lock file: a session advisory lock, held shared by every server and backup,
 * exclusive by `npm run restore`. It goes with the session, so a killed process never leaves it behind.
 */
export class DatabaseLockedError extends Error {
  override name = "DatabaseLockedError";
}

export type DatabaseLock = { release(): Promise<void> };

const INSTANCES_KEY = advisoryLockKey("instances");
const RECONNECT_DELAYS_MS = [250, 1000, 5000, 15000];

function lockedMessage(url: string, mode: "shared" | "exclusive"): string {
  const where = describeDatabaseUrl(url);
  return mode === "shared"
    ? `A restore is running on the database ${where}`
    : `A Cornerstone server (or npm run backup) is using the database ${where}`;
}

/** One session holding the lock; rejects with DatabaseLockedError when someone else holds it the other way. */
async function takeLock(
  url: string,
  mode: "shared" | "exclusive",
  onLost: (error: Error, lost: pg.Client) => void,
): Promise<pg.Client> {
  const client = new pg.Client({ connectionString: url, connectionTimeoutMillis: 5_000 });
  let ready = false;
  client.on("error", (error) => {
    if (ready) onLost(error, client);
  });
  await client.connect();
  try {
    const take = mode === "shared" ? "pg_try_advisory_lock_shared" : "pg_try_advisory_lock";
    const { rows } = await client.query<{ ok: boolean }>(`SELECT ${take}($1, $2) AS ok`, INSTANCES_KEY);
    if (!rows[0]?.ok) throw new DatabaseLockedError(lockedMessage(url, mode));
  } catch (error) {
    await client.end().catch(() => {});
    throw error;
  }
  ready = true;
  return client;
}

/** Rejects with DatabaseLockedError. A shared lock whose connection is lost is taken again, each try logged. */
export async function lockDatabase(
  url: string,
  mode: "shared" | "exclusive",
  options: { logger?: Logger } = {},
): Promise<DatabaseLock> {
  const { logger } = options;
  let released = false;
  let client: pg.Client | null = null;
  let retry: NodeJS.Timeout | undefined;
  let attempt = 0;

  const onLost = (error: Error, lost: pg.Client) => {
    // A late error from a connection already given up must not end the one holding the lock now.
    if (released || lost !== client) return;
    client?.end().catch(() => {});
    client = null;
    logger?.warn({ err: error }, "lost the database connection that holds the instance lock; taking it again");
    if (mode === "shared") scheduleRetake();
  };
  const scheduleRetake = () => {
    if (released) return;
    const delay = RECONNECT_DELAYS_MS[Math.min(attempt, RECONNECT_DELAYS_MS.length - 1)]!;
    attempt += 1;
    retry = setTimeout(() => {
      takeLock(url, mode, onLost)
        .then(async (next) => {
          if (released) return next.end();
          client = next;
          attempt = 0;
          logger?.info("holding the instance lock again");
        })
        .catch((error: unknown) => {
          const locked = error instanceof DatabaseLockedError;
          logger?.[locked ? "error" : "warn"](
            { err: error },
            locked
              ? "a restore holds the database while this server runs"
              : "could not take the instance lock again; retrying",
          );
          scheduleRetake();
        });
    }, delay);
    retry.unref();
  };

  client = await takeLock(url, mode, onLost);
  return {
    async release() {
      if (released) return;
      released = true;
      clearTimeout(retry);
      // Ending the session releases the lock.
      await client?.end().catch(() => {});
    },
  };
}
