import { fork } from "node:child_process";
import type { BackupStateTable } from "~/db/schema";
import { systemClock, type Clock } from "~/lib/clock";
import { every } from "~/lib/every";
import type { Logger } from "~/lib/logger.server";
import type { AppServices } from "~/services.server";
import { acquireBackupLease, holdLease, OFFSITE_LEASE_ID } from "./backup-lease.server";
import { ensureBackupState, recordOffsiteCopy, recordOffsiteFailure, setOffsiteNextDue } from "./backup-state.server";
import type { CopyRequest, FromCopyProcess, OffsiteCopyEntry, OffsiteCopyResult } from "./offsite-copy-process.server";
import { offsiteLocation, offsiteProblem, repositoryName, resticInstalled } from "./offsite-restic.server";

/** A copy is taken this long after each start (and so after each restore, which needs one). */
export const OFFSITE_AFTER_START_MS = 5 * 60_000;
export type OffsiteOutcome =
  "off" | "no-passphrase" | "no-restic" | "not-due" | "claimed-elsewhere" | "copied" | "failed" | "stopped";
/** Takes one copy from `parent` (the last this site made); rejects with a message for the dashboard. */
export type OffsiteCopyRunner = (copy: CopyRequest & { signal: AbortSignal }) => Promise<OffsiteCopyResult>;

/** Each copy in its own process (decision 0070), SIGTERMed when the signal aborts; no report is a failed copy. */
export function forkedCopyRunner(entry: OffsiteCopyEntry, logger: Logger, env = process.env): OffsiteCopyRunner {
  return ({ at, parent, signal }) =>
    new Promise((resolve, reject) => {
      const { file, execArgv } = entry;
      const child = fork(file, [], { execArgv, env, stdio: ["ignore", "inherit", "inherit", "ipc"] });
      let outcome: FromCopyProcess | null = null;
      const onAbort = () => child.kill("SIGTERM");
      signal.addEventListener("abort", onAbort, { once: true });
      child.on("message", (message: FromCopyProcess) => (outcome = message));
      child.once("error", (error) => logger.error({ err: error }, "the off-site copy process could not be started"));
      child.once("exit", (code, killedBy) => {
        signal.removeEventListener("abort", onAbort);
        const done = outcome as FromCopyProcess | null;
        if (done && "result" in done) return resolve(done.result);
        const ended = `The off-site copy process ended before it finished (${killedBy ?? `exit code ${code}`})`;
        reject(new Error(done?.failed ?? ended));
      });
      child.send({ at: at.toISOString(), parent });
    });
}

/** The last snapshot this site made (a restic id; a copy of the older kind has none): the next copy's parent. */
const lastSnapshotOf = (state: BackupStateTable) =>
  state.offsite_last_name && /^[0-9a-f]{8,64}$/.test(state.offsite_last_name) ? state.offsite_last_name : null;

/**
 * Off-site copies every BACKUP_OFFSITE_MINUTES and 5 minutes after each start; the due time lives in backup_state
 * and a pass claims the off-site lease, so one copy runs each time.
 */
export function createOffsiteSchedule(services: AppServices, options: { runner: OffsiteCopyRunner; clock?: Clock }) {
  const clock = options.clock ?? systemClock;
  const { env, logger } = services;
  const state = { ...services, clock };
  const intervalMs = env.BACKUP_OFFSITE_MINUTES * 60_000;
  const location = offsiteLocation(env);
  const where = repositoryName(env);
  const inMs = (ms: number) => new Date(clock.now().getTime() + ms);
  let stopping = new AbortController();

  async function runDue(): Promise<OffsiteOutcome> {
    if (!location) return "off";
    if (!env.BACKUP_PASSPHRASE) return "no-passphrase";
    if (!resticInstalled()) return "no-restic";
    const { offsite_next_due_at: due } = await ensureBackupState(state);
    // Never scheduled, or the interval was shortened: the next copy is one interval from now.
    if (!due || Date.parse(due) > inMs(intervalMs).getTime()) await setOffsiteNextDue(state, inMs(intervalMs));
    if (!due || Date.parse(due) > clock.now().getTime()) return "not-due";
    const lease = await acquireBackupLease(state, "offsite", { exclusiveId: OFFSITE_LEASE_ID });
    if (!lease) return "claimed-elsewhere";
    const lost = () => new Error("The off-site copy's lease expired; the copy was stopped");
    return holdLease(state, lease, copyUnderLease, { signal: stopping.signal, lost });
  }

  async function copyUnderLease(signal: AbortSignal): Promise<OffsiteOutcome> {
    // Under the lease, look again: another instance may have just taken it and moved the schedule on.
    const claimed = await ensureBackupState(state);
    const at = clock.now();
    if (!claimed.offsite_next_due_at || Date.parse(claimed.offsite_next_due_at) > at.getTime())
      return "claimed-elsewhere";
    // The next one is due an interval from now, whatever this one's outcome.
    await setOffsiteNextDue(state, inMs(intervalMs));
    try {
      const result = await options.runner({ at, parent: lastSnapshotOf(claimed), signal });
      await recordOffsiteCopy(state, result);
      logger.info(result, "off-site copy made");
      return "copied";
    } catch (error) {
      // A shutdown is not an outage, and not counted: the next start brings a copy forward.
      if (stopping.signal.aborted) return "stopped";
      logger.error({ err: error, target: where }, "could not make the off-site copy");
      await recordOffsiteFailure(state, { message: (error as Error).message, where });
      return "failed";
    }
  }

  const task = every(60_000, runDue, { onError: (error) => logger.error({ err: error }, "off-site copy pass failed") });
  let started = false;
  return {
    runDue,
    /** A copy now (`npm run backup -- --offsite`), under the same lease, recorded the same way. */
    async copyNow(): Promise<OffsiteOutcome> {
      await setOffsiteNextDue(state, clock.now());
      return runDue();
    },
    /** Brings a copy forward to 5 minutes from now (unless one is due sooner), then looks at the schedule every minute. */
    async start() {
      if (started) return;
      started = true;
      stopping = new AbortController();
      const problem = location && offsiteProblem(env);
      if (problem) logger.error(problem);
      else if (location) await setOffsiteNextDue(state, inMs(OFFSITE_AFTER_START_MS), true);
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
