import path from "node:path";
import { systemClock, type Clock } from "~/lib/clock";
import { every } from "~/lib/every";
import type { AppServices } from "~/services.server";
import { BUCKET_BACKUPS_PREFIX } from "~/storage/storage-keys.server";
import { backupsDirOf, pruneOldBackups, pruneOldBucketBackups, type FreeSpaceProbe } from "./backup-files.server";
import { loadBackupNaming } from "./backup-names.server";
import { acquireBackupLease, pruneExpiredLeases, SCHEDULED_LEASE_ID } from "./backup-lease.server";
import { ensureBackupState, setNextDue } from "./backup-state.server";
import { referencedObjectKeys } from "./backup-tables.server";
import { createBackup, type BackupResult } from "./backup.server";
import { ENCRYPTED_SUFFIX } from "./backup-encryption.server";
import { purgeDeferredDeletions } from "~/storage/deferred-deletions.server";

const HOUR_MS = 60 * 60 * 1000;
/** How often a server looks at the schedule (and settles deferred deletions). */
const POLL_MS = 60_000;
/** After a failed or skipped backup, try again this soon (or at the interval, if shorter). */
const RETRY_MS = HOUR_MS;

export type BackupSchedulerOptions = {
  clock?: Clock;
  /** BACKUP_INTERVAL_HOURS; 0 turns scheduled backups off. */
  intervalHours: number;
  /** BACKUP_KEEP: the newest this many scheduled backups stay. */
  keep: number;
  freeSpace?: FreeSpaceProbe;
};

export type RunDueOutcome = "off" | "not-due" | "claimed-elsewhere" | BackupResult["status"] | "failed";

/** Scheduled backups (decision 0026): the due time lives in the database; the lease makes one instance run each. */
export function createBackupScheduler(services: AppServices, options: BackupSchedulerOptions) {
  const clock = options.clock ?? systemClock;
  const backupServices = { ...services, clock };
  const intervalMs = options.intervalHours * HOUR_MS;
  const backupDir = backupsDirOf(services.env.DATA_DIR);
  // With a bucket there may be no lasting disk: the backups go to the bucket, under backups/.
  const toBucket = Boolean(services.env.S3_BUCKET);
  const passphrase = services.env.BACKUP_PASSPHRASE;
  let stopping: AbortController | null = null;

  async function settleDeletions() {
    await pruneExpiredLeases(backupServices);
    await purgeDeferredDeletions(services, () => referencedObjectKeys(services.db), clock);
  }

  /** One pass: settle deferred deletions, then run the scheduled backup if it is due and nobody else has it. */
  async function runDue(): Promise<RunDueOutcome> {
    await settleDeletions();
    if (intervalMs <= 0) return "off";
    const state = await ensureBackupState(backupServices);
    const now = clock.now();
    if (!state.next_due_at || new Date(state.next_due_at).getTime() > now.getTime() + intervalMs) {
      // First start, or the interval was shortened: the next backup is one interval from now.
      await setNextDue(backupServices, new Date(now.getTime() + intervalMs));
      return "not-due";
    }
    if (new Date(state.next_due_at).getTime() > now.getTime()) return "not-due";

    const lease = await acquireBackupLease(backupServices, "scheduled", { exclusiveId: SCHEDULED_LEASE_ID });
    if (!lease) return "claimed-elsewhere";
    // Under the lease, look again: another instance may have just run it and moved the schedule on.
    const claimed = await ensureBackupState(backupServices);
    if (!claimed.next_due_at || new Date(claimed.next_due_at).getTime() > clock.now().getTime()) {
      await lease.release();
      return "claimed-elsewhere";
    }
    let outcome: RunDueOutcome = "failed";
    try {
      const naming = await loadBackupNaming({
        dataDir: services.env.DATA_DIR,
        sharedDb: services.env.DATABASE_URL ? services.db : null,
      });
      const name = `${naming.make("cornerstone", clock.now())}${passphrase ? ENCRYPTED_SUFFIX : ""}`;
      const key = `${BUCKET_BACKUPS_PREFIX}${name}`;
      const result = await createBackup(backupServices, {
        purpose: "scheduled",
        lease,
        workDir: backupDir,
        destination: toBucket
          ? { kind: "storage", storage: services.storage, key, freeSpace: options.freeSpace }
          : { kind: "file", path: path.join(backupDir, name), freeSpace: options.freeSpace },
        signal: stopping?.signal,
        passphrase,
      });
      outcome = result.status;
      if (result.status === "succeeded") {
        const removed = toBucket
          ? await pruneOldBucketBackups(services.storage, options.keep, naming)
          : await pruneOldBackups(backupDir, options.keep, naming);
        if (removed.length)
          services.logger.info(
            { removed },
            `removed ${removed.length} old backup(s), keeping the newest ${options.keep}`,
          );
      }
    } catch {
      // createBackup logged it and recorded it for the dashboard.
    }
    // Stopped by a shutdown: it stays due, so the next start runs it.
    if (stopping?.signal.aborted) return outcome;
    const after = clock.now().getTime();
    await setNextDue(
      backupServices,
      new Date(after + (outcome === "succeeded" ? intervalMs : Math.min(intervalMs, RETRY_MS))),
    );
    return outcome;
  }

  const task = every(POLL_MS, runDue, {
    runAtStart: true,
    onError: (error) => services.logger.error({ err: error }, "scheduled backup pass failed"),
  });

  return {
    runDue,
    /** A pass now, then one every minute. */
    start() {
      if (stopping && !stopping.signal.aborted) return;
      stopping = new AbortController();
      void task.start();
    },
    /** Stops the timer and a backup in progress (it leaves no partial file; the schedule keeps it due). */
    async stop() {
      stopping?.abort(new Error("The server is shutting down"));
      await task.stop();
    },
  };
}
