/**
 * What the throwaway back ends (tests/support/backends.ts, s3-backend.ts) share: their temp
 * directories' names, the owner file each holds, and clean-up when the process is interrupted.
 */
import fs from "node:fs/promises";

export const PG_PREFIX = "cornerstone-pg-";
export const S3_PREFIX = "cornerstone-s3-";
export const OWNER_FILE = "owner.pid";

export function processAlive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (error) {
    return (error as NodeJS.ErrnoException).code === "EPERM";
  }
}

export const STALE_WITHOUT_OWNER_MS = 60 * 60 * 1000;

export async function olderThan(dir: string, ms: number): Promise<boolean> {
  const stat = await fs.stat(dir).catch(() => null);
  return stat !== null && Date.now() - stat.mtimeMs > ms;
}

/** Stops this process's back ends if it is interrupted, as far as a dying process can. */
const exitHooks = new Set<() => void>();
let exitHandlersInstalled = false;
export function onInterrupt(hook: () => void): () => void {
  if (!exitHandlersInstalled) {
    exitHandlersInstalled = true;
    const runHooks = () => {
      for (const fn of exitHooks) fn();
      exitHooks.clear();
    };
    process.once("exit", runHooks);
    for (const signal of ["SIGINT", "SIGTERM", "SIGHUP"] as const) {
      process.once(signal, () => {
        runHooks();
        // Alone, our listener would stop Node's default exit: re-raise it. Otherwise the runner's own handlers decide.
        if (process.listenerCount(signal) === 0) process.kill(process.pid, signal);
      });
    }
  }
  exitHooks.add(hook);
  return () => exitHooks.delete(hook);
}
