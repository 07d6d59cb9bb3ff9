import { randomUUID } from "node:crypto";
import { sql } from "kysely";
import pg from "pg";
import type { Logger } from "~/lib/logger.server";
import type { Database, DatabaseTarget } from "./database.server";

/** Tells other instances on this database to drop their caches (decision 0037): PostgreSQL NOTIFY; SQLite: nobody. */
export type ChangeFeed = {
  /** Announces a change to every other instance. Never throws; a failure is logged. */
  publish(): void;
  close(): Promise<void>;
};

export const PUBLIC_CONTENT_CHANNEL = "cornerstone_public_content";

const RECONNECT_DELAYS_MS = [250, 500, 1000, 2000, 5000];

export async function openChangeFeed(options: {
  target: DatabaseTarget;
  db: Database;
  logger: Logger;
  /** Called when another instance published, and after a lost listening connection is back (changes may have been missed). */
  onRemoteChange: () => void;
  channel?: string;
}): Promise<ChangeFeed> {
  const { target, db, logger, onRemoteChange } = options;
  if (target.kind !== "postgres") return { publish() {}, async close() {} };

  const channel = options.channel ?? PUBLIC_CONTENT_CHANNEL;
  // Our own notifications come back to us too; the payload tells them apart.
  const instanceId = randomUUID();
  let client: pg.Client | null = null;
  let closed = false;
  let attempt = 0;
  let retryTimer: NodeJS.Timeout | undefined;

  const listen = async (): Promise<void> => {
    const next = new pg.Client({ connectionString: target.url, connectionTimeoutMillis: 5_000 });
    next.on("notification", (message) => {
      if (message.channel === channel && message.payload !== instanceId) onRemoteChange();
    });
    next.on("error", (error) => {
      logger.warn({ err: error }, "lost the database connection that listens for changes; reconnecting");
      void next.end().catch(() => {});
      if (client === next) {
        client = null;
        scheduleReconnect();
      }
    });
    await next.connect();
    // The channel name is ours, not user input; LISTEN takes no parameters.
    await next.query(`LISTEN ${pg.escapeIdentifier(channel)}`);
    if (closed) {
      await next.end();
      return;
    }
    client = next;
  };

  const scheduleReconnect = () => {
    if (closed) return;
    const delay = RECONNECT_DELAYS_MS[Math.min(attempt, RECONNECT_DELAYS_MS.length - 1)]!;
    attempt += 1;
    retryTimer = setTimeout(async () => {
      try {
        await listen();
        attempt = 0;
        logger.info("listening for changes again");
        // Whatever was announced while we were away is lost: treat it as changed.
        onRemoteChange();
      } catch (error) {
        logger.warn({ err: error }, "could not listen for changes; retrying");
        scheduleReconnect();
      }
    }, delay);
    retryTimer.unref();
  };

  await listen();

  return {
    publish() {
      sql`select pg_notify(${channel}, ${instanceId})`.execute(db).catch((error: unknown) => {
        logger.warn({ err: error }, "could not tell the other instances about a change");
      });
    },
    async close() {
      closed = true;
      clearTimeout(retryTimer);
      const current = client;
      client = null;
      await current?.end().catch(() => {});
    },
  };
}
