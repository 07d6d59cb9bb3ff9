import { fork } from "node:child_process";
import type { Logger } from "~/lib/logger.server";
import type { FromCopyProcess, OffsiteCopyEntry, ToCopyProcess } from "./offsite-copy-process.server";
import type { OffsiteRunResult } from "./offsite-run.server";

/** Takes one off-site copy as of `at`; rejects with a message for the dashboard when it fails. */
export type OffsiteCopyRunner = (request: {
  at: Date;
  signal: AbortSignal;
}) => Promise<OffsiteRunResult & { peakRssMB?: number }>;

/**
 * Each copy in a process of its own (decision 0060): forked from `entry` with the server's
 * environment, told the copy's time, and stopped with SIGTERM when `signal` aborts (a shutdown,
 * or the copy's lease lost). A process that exits without reporting is a failed copy.
 */
export function forkedCopyRunner(
  entry: OffsiteCopyEntry,
  logger: Logger,
  env: NodeJS.ProcessEnv = process.env,
): OffsiteCopyRunner {
  return ({ at, signal }) =>
    new Promise((resolve, reject) => {
      // The server's own settings (a test server's come from its test).
      const child = fork(entry.file, [], {
        execArgv: entry.execArgv,
        env,
        stdio: ["ignore", "inherit", "inherit", "ipc"],
      });
      let outcome: FromCopyProcess | null = null;
      const onAbort = () => child.kill("SIGTERM");
      signal.addEventListener("abort", onAbort, { once: true });
      child.on("message", (message: FromCopyProcess) => {
        outcome = message;
      });
      child.once("error", (error) => logger.error({ err: error }, "the off-site copy process could not be started"));
      child.once("exit", (code, killedBy) => {
        signal.removeEventListener("abort", onAbort);
        const done = outcome as FromCopyProcess | null;
        if (done?.type === "done") {
          logger.info({ peakRssMB: done.peakRssMB }, "off-site copy process finished");
          resolve({ ...done.result, peakRssMB: done.peakRssMB });
        } else if (done?.type === "failed") reject(new Error(done.message));
        else
          reject(
            new Error(
              `The off-site copy process ended before it finished (${killedBy ? `signal ${killedBy}` : `exit code ${code}`})`,
            ),
          );
      });
      child.send({ type: "copy", at: at.toISOString() } satisfies ToCopyProcess);
    });
}
