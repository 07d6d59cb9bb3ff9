import { systemClock, type Clock } from "~/lib/clock";
import { every } from "~/lib/every";
import type { AppServices } from "~/services.server";
import { ensureBackupState } from "./backup-state.server";
import {
  bringOffsiteCopyForward,
  recordOffsiteFailure,
  recordOffsiteSuccess,
  setOffsiteNextDue,
} from "./offsite-copy.server";
import type { OffsiteCopyRunner } from "./offsite-copy-runner.server";
import { withOffsiteLease } from "./offsite-run.server";
import { offsiteConfigFor } from "./offsite-target.server";

/** A copy is taken this long after each start (and so after each restore, which needs one). */
export const OFFSITE_AFTER_START_MS = 5 * 60_000;
/** How often a server looks at the schedule. */
const POLL_MS = 60_000;

export type OffsiteOutcome =
  "off" | "no-passphrase" | "not-due" | "claimed-elsewhere" | "copied" | "failed" | "stopped";

/**
 * Off-site copies on a schedule (decision 0060): every BACKUP_OFFSITE_MINUTES,
 * and 5 minutes after each start. The next due time lives in backup_state, and
 * a pass that finds it due claims the off-site lease, so with several
 * instances one copy runs each time. The copy itself runs through `runner`
 * (a process of its own in the server); its outcome is recorded here. With a
 * store but no BACKUP_PASSPHRASE nothing leaves: the dashboard says so in red.
 */
export function createOffsiteSchedule(services: AppServices, options: { runner: OffsiteCopyRunner; clock?: Clock }) {
  const clock = options.clock ?? systemClock;
  const stateServices = { ...services, clock };
  const { env } = services;
  const intervalMs = env.BACKUP_OFFSITE_MINUTES * 60_000;
  const where = offsiteConfigFor(env) ? `the bucket ${env.BACKUP_S3_BUCKET}` : "";
  let stopping = new AbortController();

  async function runDue(): Promise<OffsiteOutcome> {
    if (!env.BACKUP_S3_BUCKET) return "off";
    if (!env.BACKUP_PASSPHRASE) return "no-passphrase";
    const now = clock.now();
    const state = await ensureBackupState(stateServices);
    const due = state.offsite_next_due_at ? new Date(state.offsite_next_due_at).getTime() : null;
    if (due === null || due > now.getTime() + intervalMs) {
      // Never scheduled, or the interval was shortened: the next copy is one interval from now.
      await setOffsiteNextDue(services, new Date(now.getTime() + intervalMs));
      return "not-due";
    }
    if (due > now.getTime()) return "not-due";

    const ran = await withOffsiteLease(
      stateServices,
      async (signal): Promise<OffsiteOutcome> => {
        // Under the lease, look again: another instance may have just taken it and moved the schedule on.
        const claimed = await ensureBackupState(stateServices);
        if (!claimed.offsite_next_due_at || new Date(claimed.offsite_next_due_at).getTime() > clock.now().getTime())
          return "claimed-elsewhere";
        const at = clock.now();
        // The next one is due an interval from now, whatever this one's outcome.
        await setOffsiteNextDue(services, new Date(at.getTime() + intervalMs));
        try {
          const result = await options.runner({ at, signal });
          await recordOffsiteSuccess(stateServices, { name: result.copy.name, sentBytes: result.copy.bytesSent });
          services.logger.info(
            { ...result.copy, prune: result.prune, peakRssMB: result.peakRssMB },
            "off-site copy made",
          );
          return "copied";
        } catch (error) {
          if (stopping.signal.aborted) {
            // A shutdown, not an outage: not counted. The next start brings a copy forward.
            services.logger.warn("the off-site copy was stopped by a shutdown");
            return "stopped";
          }
          const message = (error as Error).message ?? String(error);
          services.logger.error({ err: error, target: where }, "could not make the off-site copy");
          await recordOffsiteFailure(stateServices, message, where);
          return "failed";
        }
      },
      { signal: stopping.signal },
    );
    return ran ? ran.value : "claimed-elsewhere";
  }

  const task = every(POLL_MS, runDue, {
    onError: (error) => services.logger.error({ err: error }, "off-site copy pass failed"),
  });
  let started = false;

  return {
    runDue,
    /** Brings a copy forward to 5 minutes from now, then looks at the schedule every minute. */
    async start() {
      if (started) return;
      started = true;
      stopping = new AbortController();
      if (env.BACKUP_S3_BUCKET && env.BACKUP_PASSPHRASE) {
        await bringOffsiteCopyForward(stateServices, new Date(clock.now().getTime() + OFFSITE_AFTER_START_MS));
      } else if (env.BACKUP_S3_BUCKET) {
        services.logger.error(
          "BACKUP_S3_BUCKET is set but BACKUP_PASSPHRASE is not: no copy leaves the server until it is set (docs/DEPLOY.md, step 12)",
        );
      }
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
