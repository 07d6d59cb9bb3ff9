/**
 * What `npm run update` and `--rollback` share: where things are, how to restart and check the
 * service, and switching back.
 */
import fs from "node:fs/promises";
import path from "node:path";
import type { Clock } from "~/lib/clock";
import { shell, type CommandRunner } from "./commands";
import { HEALTH_TIMEOUT_MS, waitForHealth, type Probe } from "./health";
import { releaseDir, switchCurrent, writeState, type ReleaseState } from "./layout";
import type { ServiceFiles } from "./service-files";

/** Each outcome its own exit code, so a script or a person can tell which step stopped the update. */
export const EXIT = {
  ok: 0,
  usage: 2,
  /** Making a release of the build a server set up by the earlier guide runs (first update only). */
  prepare: 10,
  backup: 11,
  fetch: 12,
  install: 13,
  build: 14,
  assets: 15,
  switch: 16,
  restart: 17,
  /** The new release did not answer /healthz in time: switched back, and the previous one serves. */
  unhealthy: 18,
  /** Switched back, but the previous release did not answer either: the site is down. */
  down: 19,
  rollbackRefused: 20,
  nothingToRollBackTo: 21,
  busy: 22,
} as const;

export const SYSTEMD_RESTART = "systemctl restart cornerstone";
export const SYSTEMD_STOP = "systemctl stop cornerstone";

export type UpdateContext = {
  checkout: string;
  /** The service's settings file, handed to the scripts that open DATA_DIR (--env-file). */
  envFile: string | null;
  /** Who runs those scripts, npm ci and the build (DATA_DIR's owner when this runs as root), or null for this user. */
  dataDirUser: string | null;
  healthUrl: string;
  healthTimeoutMs: number;
  /** --restart-command; null: systemd (systemctl restart cornerstone). */
  restartCommand: string | null;
  serviceFiles: ServiceFiles;
  listen: { host: string; port: number };
  clock: Clock;
  sleep: (ms: number) => Promise<void>;
  probe: Probe;
  run: CommandRunner;
  log: (line: string) => void;
};

export function envFileArgs(context: UpdateContext): string[] {
  return context.envFile ? ["--env-file", context.envFile] : [];
}

/** The restart, then /healthz: whether the service answered 200 in time, or the command failed. */
export async function restartAndCheck(
  context: UpdateContext,
  options: { command?: string; timeoutMs?: number } = {},
): Promise<"healthy" | "restart-failed" | "unhealthy"> {
  const command = options.command ?? context.restartCommand ?? SYSTEMD_RESTART;
  const timeoutMs = options.timeoutMs ?? context.healthTimeoutMs;
  context.log(`  ${command}`);
  const restarted = await context.run(shell(command), { cwd: context.checkout });
  if (restarted.status !== 0) return "restart-failed";
  context.log(`  Waiting up to ${Math.round(timeoutMs / 1000)} s for ${context.healthUrl} to answer 200…`);
  const healthy = await waitForHealth(context.healthUrl, {
    clock: context.clock,
    sleep: context.sleep,
    probe: context.probe,
    timeoutMs,
  });
  return healthy ? "healthy" : "unhealthy";
}

/** The migrations a release's code registers, from its files (app/db/migrations/NNNN-name.ts). */
async function migrationFiles(release: string): Promise<string[]> {
  const names = await fs.readdir(path.join(release, "app/db/migrations")).catch(() => [] as string[]);
  return names.flatMap((name) => /^(\d{4}-[^.]+)\.ts$/.exec(name)?.[1] ?? []);
}

/**
 * The migrations the database has had that `older` does not know (it would refuse to start on it),
 * read by `newer`'s `npm run migrations`; null with the reason when the database could not be read.
 */
export async function migrationsUnknownTo(
  context: UpdateContext,
  newer: string,
  older: string,
): Promise<{ names: string[] } | { error: string }> {
  const result = await context.run(["npm", "run", "--silent", "migrations", "--", "--json", ...envFileArgs(context)], {
    cwd: newer,
    asUser: context.dataDirUser,
    quiet: true,
  });
  const json = result.output.split("\n").find((line) => line.startsWith("{"));
  if (result.status !== 0 || !json)
    return { error: result.output.trim() || `npm run migrations exited with ${result.status}` };
  const { applied } = JSON.parse(json) as { applied: string[] };
  const known = new Set(await migrationFiles(older));
  return { names: applied.filter((name) => !known.has(name)) };
}

/**
 * After a failed restart or health check: `current` goes back to `to`; when `from` changed the
 * database (ran a migration `to` does not know), the backup taken before is restored first (the
 * service stopped, by `to`'s own code); then the service restarts on `to`. Returns the exit code.
 */
export async function switchBack(
  context: UpdateContext,
  state: ReleaseState,
  switchedBack: {
    from: string;
    to: { name: string; commit: string };
    backup: string | null;
    failure: number;
    /** A rollback's way back goes to the newer release: its data are as it left them, and the older one stays. */
    returningToNewer?: boolean;
  },
): Promise<number> {
  const { from, to, backup } = switchedBack;
  const fromDir = releaseDir(context.checkout, from);
  const toDir = releaseDir(context.checkout, to.name);
  await switchCurrent(context.checkout, to.name);
  state.history = state.history.filter((record) => record.name !== from);
  await writeState(context.checkout, state);
  context.log(`Switched back: current is ${to.name} again.`);

  const changed = switchedBack.returningToNewer ? { names: [] } : await migrationsUnknownTo(context, fromDir, toDir);
  if ("error" in changed) {
    context.log(`  Could not tell whether ${from} changed the database (${changed.error}).`);
  } else if (changed.names.length) {
    context.log(
      `  ${from} ran ${changed.names.join(", ")}, which ${to.name} does not know: restoring the backup taken in step 1.`,
    );
    if (!backup) context.log("  There is no backup from step 1 to restore.");
    else {
      if (!context.restartCommand) await context.run(shell(SYSTEMD_STOP), { cwd: context.checkout });
      const restore = await context.run(["npm", "run", "restore", "--", backup, ...envFileArgs(context)], {
        cwd: toDir,
        asUser: context.dataDirUser,
      });
      if (restore.status !== 0)
        context.log(
          `  The restore failed (exit ${restore.status}); ${to.name} may refuse the database until ${backup} is restored.`,
        );
      else context.log(`  Restored ${backup}.`);
    }
  }
  // The release switched back to served before: it gets the full minute, whatever --health-timeout gave the new one.
  const outcome = await restartAndCheck(context, { timeoutMs: Math.max(context.healthTimeoutMs, HEALTH_TIMEOUT_MS) });
  if (!switchedBack.returningToNewer) await fs.rm(fromDir, { recursive: true, force: true });
  if (outcome === "healthy") {
    context.log(
      `${to.name} serves again.${switchedBack.returningToNewer ? "" : ` ${from} was deleted; the service's log of its start says why it failed.`}`,
    );
    return switchedBack.failure;
  }
  context.log(
    `${to.name} did not answer ${context.healthUrl} either: the site is down. Check the service's log ` +
      `(journalctl -u cornerstone -e)${backup ? `, and restore ${backup} if the database is the cause` : ""}.`,
  );
  return EXIT.down;
}
