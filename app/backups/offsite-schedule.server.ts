import { fork } from "node:child_process";
import { systemClock, type Clock } from "~/lib/clock";
import { every } from "~/lib/every";
import type { Logger } from "~/lib/logger.server";
import type { AppServices } from "~/services.server";
import { acquireBackupLease, holdLease, OFFSITE_LEASE_ID } from "./backup-lease.server";
import { ensureBackupState } from "./backup-state.server";
import {
  bringOffsiteCopyForward,
  lastSnapshotOf,
  recordOffsiteFailure,
  recordOffsiteSuccess,
  setOffsiteNextDue,
} from "./offsite-copy.server";
import type {
  FromCopyProcess,
  OffsiteCopyEntry,
  OffsiteCopyRequest,
  OffsiteCopyResult,
  ToCopyProcess,
} from "./offsite-copy-process.server";
import { offsiteLocation, repositoryName, RESTIC_MISSING, resticInstalled } from "./offsite-restic.server";

/** A copy is taken this long after each start (and so after each restore, which needs one). */
export const OFFSITE_AFTER_START_MS = 5 * 60_000;
/** How often a server looks at the schedule. */
const POLL_MS = 60_000;

export type OffsiteOutcome =
  "off" | "no-passphrase" | "no-restic" | "not-due" | "claimed-elsewhere" | "copied" | "failed" | "stopped";
/** Takes one copy; rejects with a message for the dashboard when it fails. */
export type OffsiteCopyRunner = (request: OffsiteCopyRequest & { signal: AbortSignal }) => Promise<OffsiteCopyResult>;

/**
 * Each copy in a process of its own (decision 0070): forked from `entry` with the server's
 * environment, told the copy's time and parent, and sent SIGTERM when the signal aborts (a
 * shutdown, or the lease lost). A process that ends without reporting is a failed copy.
 */
export function forkedCopyRunner(entry: OffsiteCopyEntry, logger: Logger, env = process.env): OffsiteCopyRunner {
  return ({ at, parent, signal }) =>
    new Promise((resolve, reject) => {
      const stdio = ["ignore", "inherit", "inherit", "ipc"] as const;
      const child = fork(entry.file, [], { execArgv: entry.execArgv, env, stdio: [...stdio] });
      let outcome: FromCopyProcess | null = null;
      const onAbort = () => child.kill("SIGTERM");
      signal.addEventListener("abort", onAbort, { once: true });
      child.on("message", (message: FromCopyProcess) => (outcome = message));
      child.once("error", (error) => logger.error({ err: error }, "the off-site copy process could not be started"));
      child.once("exit", (code, killedBy) => {
        signal.removeEventListener("abort", onAbort);
        const done = outcome as FromCopyProcess | null;
        if (done && "result" in done) resolve(done.result);
        else if (done) reject(new Error(done.failed));
        else {
          const how = killedBy ? `signal ${killedBy}` : `exit code ${code}`;
          reject(new Error(`The off-site copy process ended before it finished (${how})`));
        }
      });
      child.send({ at: at.toISOString(), parent } satisfies ToCopyProcess);
    });
}

/**
 * Off-site copies on a schedule: every BACKUP_OFFSITE_MINUTES, and 5 minutes after each start. The
 * next due time lives in backup_state, and a pass that finds it due claims the off-site lease, so
 * with several instances one copy runs each time. Without a passphrase or restic nothing leaves,
 * and the dashboard says so in red.
 */
export function createOffsiteSchedule(services: AppServices, options: { runner: OffsiteCopyRunner; clock?: Clock }) {
  const clock = options.clock ?? systemClock;
  const stateServices = { ...services, clock };
  const { env, logger } = services;
  const intervalMs = env.BACKUP_OFFSITE_MINUTES * 60_000;
  const location = offsiteLocation(env);
  let stopping = new AbortController();

  async function runDue(): Promise<OffsiteOutcome> {
    if (!location) return "off";
    if (!env.BACKUP_PASSPHRASE) return "no-passphrase";
    if (!resticInstalled()) return "no-restic";
    const now = clock.now();
    const state = await ensureBackupState(stateServices);
    const due = state.offsite_next_due_at ? new Date(state.offsite_next_due_at).getTime() : null;
    if (due === null || due > now.getTime() + intervalMs) {
      // Never scheduled, or the interval was shortened: the next copy is one interval from now.
      await setOffsiteNextDue(services, new Date(now.getTime() + intervalMs));
      return "not-due";
    }
    if (due > now.getTime()) return "not-due";
    const lease = await acquireBackupLease(stateServices, "offsite", { exclusiveId: OFFSITE_LEASE_ID });
    if (!lease) return "claimed-elsewhere";
    const lost = () => new Error("The off-site copy's lease expired; the copy was stopped");
    return holdLease(stateServices, lease, (signal) => copyUnderLease(signal), { signal: stopping.signal, lost });
  }

  async function copyUnderLease(signal: AbortSignal): Promise<OffsiteOutcome> {
    // Under the lease, look again: another instance may have just taken it and moved the schedule on.
    const claimed = await ensureBackupState(stateServices);
    if (!claimed.offsite_next_due_at || new Date(claimed.offsite_next_due_at).getTime() > clock.now().getTime())
      return "claimed-elsewhere";
    const at = clock.now();
    // The next one is due an interval from now, whatever this one's outcome.
    await setOffsiteNextDue(services, new Date(at.getTime() + intervalMs));
    try {
      const result = await options.runner({ at, parent: lastSnapshotOf(claimed), signal });
      await recordOffsiteSuccess(stateServices, { name: result.snapshot, sentBytes: result.addedBytes });
      logger.info(result, "off-site copy made");
      return "copied";
    } catch (error) {
      if (stopping.signal.aborted) {
        // A shutdown, not an outage: not counted. The next start brings a copy forward.
        logger.warn("the off-site copy was stopped by a shutdown");
        return "stopped";
      }
      logger.error({ err: error, target: repositoryName(location!) }, "could not make the off-site copy");
      await recordOffsiteFailure(stateServices, (error as Error).message, repositoryName(location!));
      return "failed";
    }
  }

  const task = every(POLL_MS, runDue, {
    onError: (error) => logger.error({ err: error }, "off-site copy pass failed"),
  });
  let started = false;

  return {
    runDue,
    /** Brings a copy forward to 5 minutes from now, then looks at the schedule every minute. */
    async start() {
      if (started) return;
      started = true;
      stopping = new AbortController();
      if (location && !env.BACKUP_PASSPHRASE)
        logger.error(
          "Off-site copies are set up but BACKUP_PASSPHRASE is not: no copy leaves the server until it is set (docs/DEPLOY.md, step 12)",
        );
      else if (location && !resticInstalled()) logger.error(RESTIC_MISSING);
      else if (location)
        await bringOffsiteCopyForward(stateServices, new Date(clock.now().getTime() + OFFSITE_AFTER_START_MS));
      await task.start();
    },
    /** Stops the timer and a copy in progress (its process is ended; nothing half-made counts). */
    async stop() {
      started = false;
      stopping.abort(new Error("The server is shutting down"));
      await task.stop();
    },
  };
}

export type OffsiteSchedule = ReturnType<typeof createOffsiteSchedule>;
