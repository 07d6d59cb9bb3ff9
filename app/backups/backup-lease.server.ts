import { randomUUID } from "node:crypto";
import type { Database } from "~/db/database.server";
import type { Clock, TimerClock } from "~/lib/clock";
import { every } from "~/lib/every";
import type { Logger } from "~/lib/logger.server";

/**
 * A running backup holds a lease row, so every process on the database knows it runs (and defers deleting images);
 * it expires on its own when its holder dies.
 */
export const BACKUP_LEASE_TTL_MS = 5 * 60_000;
/** A live backup renews its lease this often (well inside the TTL). */
export const BACKUP_LEASE_RENEW_MS = 60_000;
/** The lease id of the scheduled backup: one row, so one instance at a time runs it. */
export const SCHEDULED_LEASE_ID = "scheduled";
/** The lease id of an off-site copy (decision 0070): one at a time, whichever process makes it. */
export const OFFSITE_LEASE_ID = "offsite";

export type LeasePurpose = "scheduled" | "manual" | "download" | "offsite";

export type BackupLease = {
  id: string;
  /** Pushes the expiry forward; false when the lease was lost (expired and taken, or removed). */
  renew(): Promise<boolean>;
  release(): Promise<void>;
};

type LeaseServices = { db: Database; clock: Clock };

function leaseHandle({ db, clock }: LeaseServices, id: string, holder: string): BackupLease {
  return {
    id,
    async renew() {
      const now = clock.now();
      const result = await db
        .updateTable("backup_leases")
        .set({ expires_at: new Date(now.getTime() + BACKUP_LEASE_TTL_MS).toISOString() })
        .where("id", "=", id)
        .where("holder", "=", holder)
        .where("expires_at", ">", now.toISOString())
        .executeTakeFirst();
      return Number(result.numUpdatedRows) === 1;
    },
    async release() {
      await db.deleteFrom("backup_leases").where("id", "=", id).where("holder", "=", holder).execute();
    },
  };
}

/** With `exclusive` (fixed id) only if nobody holds it or it expired: one atomic upsert. Null when taken. */
export async function acquireBackupLease(
  services: LeaseServices,
  purpose: LeasePurpose,
  options: { exclusiveId?: string } = {},
): Promise<BackupLease | null> {
  const now = services.clock.now();
  const holder = randomUUID();
  const id = options.exclusiveId ?? randomUUID();
  const row = {
    id,
    holder,
    purpose,
    acquired_at: now.toISOString(),
    expires_at: new Date(now.getTime() + BACKUP_LEASE_TTL_MS).toISOString(),
  };
  const result = await services.db
    .insertInto("backup_leases")
    .values(row)
    .onConflict((oc) =>
      oc
        .column("id")
        .doUpdateSet({ holder, purpose, acquired_at: row.acquired_at, expires_at: row.expires_at })
        .where("backup_leases.expires_at", "<=", now.toISOString()),
    )
    .executeTakeFirst();
  if (Number(result.numInsertedOrUpdatedRows ?? 0) !== 1) return null;
  return leaseHandle(services, id, holder);
}

/**
 * Runs `work` under `lease`, renewed every minute through every() (on the services' clock when it
 * is a timer, as the tests' is), and released at the end. `work`'s signal aborts with `lost()`
 * when the lease cannot be renewed (it would no longer hold deletions back), or when `signal` does.
 */
export async function holdLease<T>(
  services: LeaseServices & { logger: Pick<Logger, "warn"> },
  lease: BackupLease,
  work: (signal: AbortSignal) => Promise<T>,
  options: { signal?: AbortSignal; lost: () => Error },
): Promise<T> {
  const lost = new AbortController();
  const signal = options.signal ? AbortSignal.any([options.signal, lost.signal]) : lost.signal;
  const heartbeat = every(
    BACKUP_LEASE_RENEW_MS,
    async () => {
      if (!(await lease.renew())) lost.abort(options.lost());
    },
    {
      clock: "repeat" in services.clock ? (services.clock as TimerClock) : undefined,
      onError: (error) => services.logger.warn({ err: error }, "could not renew a backup lease"),
    },
  );
  await heartbeat.start();
  try {
    return await work(signal);
  } finally {
    await heartbeat.stop();
    await lease.release().catch((error: unknown) => services.logger.warn({ err: error }, "could not release a lease"));
  }
}

/** Forgets leases that expired long ago (their holders died). */
export async function pruneExpiredLeases(services: LeaseServices): Promise<void> {
  await services.db.deleteFrom("backup_leases").where("expires_at", "<=", services.clock.now().toISOString()).execute();
}
