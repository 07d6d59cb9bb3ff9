import type { Env } from "~/env.server";
import type { Clock } from "~/lib/clock";
import type { AppServices } from "~/services.server";
import { acquireBackupLease, BACKUP_LEASE_RENEW_MS, OFFSITE_LEASE_ID } from "./backup-lease.server";
import { readCarriedSecrets } from "./carried-secrets.server";
import type { KeepPolicy } from "./offsite-keep";
import { pruneOffsiteStore, type PruneFigures } from "./offsite-prune.server";
import { openOffsiteRepository, type OffsiteRepository } from "./offsite-repository.server";
import type { OffsiteStore } from "./offsite-store.server";
import { takeOffsiteCopy, type CopyFigures } from "./offsite-take.server";

/**
 * One off-site copy, start to end (decision 0060): open the store's keys (one
 * scrypt), take the copy, then apply the keep policy. A failed prune does not
 * fail the copy (the next one prunes again). Run in the copy process
 * (offsite-copy-process.server.ts), by `npm run backup -- --offsite`, and in-process by tests and the bench.
 */
export type OffsiteRunSettings = {
  store: OffsiteStore;
  passphrase: string;
  policy: KeepPolicy;
  /** Scratch space for the snapshot and sealed files (DATA_DIR/backups). */
  workDir: string;
  /** Sealed manifests and lists kept between copies (DATA_DIR/backups/.offsite-cache). */
  cacheDir?: string;
  /** Only for a new store's keys file; age's default otherwise. */
  scryptWorkFactor?: number;
};

export type OffsiteRunResult = { copy: CopyFigures; prune: PruneFigures | null; pruneError: string | null };

export type OffsiteRunServices = Pick<AppServices, "env" | "db" | "storage" | "logger">;

export function keepPolicyOf(
  env: Pick<Env, "BACKUP_KEEP_HOURLY" | "BACKUP_KEEP_DAILY" | "BACKUP_KEEP_MONTHLY">,
): KeepPolicy {
  return { hourly: env.BACKUP_KEEP_HOURLY, daily: env.BACKUP_KEEP_DAILY, monthly: env.BACKUP_KEEP_MONTHLY };
}

export async function runOffsiteCopy(
  services: OffsiteRunServices,
  settings: OffsiteRunSettings,
  options: { at: Date; signal?: AbortSignal; repository?: OffsiteRepository },
): Promise<OffsiteRunResult> {
  const repo =
    options.repository ??
    (await openOffsiteRepository(settings.store, settings.passphrase, {
      create: true,
      cacheDir: settings.cacheDir,
      scryptWorkFactor: settings.scryptWorkFactor,
    }))!;
  const copy = await takeOffsiteCopy(services, repo, {
    at: options.at,
    workDir: settings.workDir,
    signal: options.signal,
    carried: await readCarriedSecrets(services),
  });
  try {
    const prune = await pruneOffsiteStore(repo, settings.policy, { signal: options.signal });
    return { copy, prune, pruneError: null };
  } catch (error) {
    if (options.signal?.aborted) throw error;
    services.logger.warn({ err: error }, "old off-site copies could not be removed; the next copy tries again");
    return { copy, prune: null, pruneError: (error as Error).message };
  }
}

/**
 * Runs `work` under the off-site copy's lease (one copy at a time across every process on the
 * database; image files are not deleted meanwhile). Null when another process holds it. The
 * lease is renewed every minute; if it is lost, `work`'s signal aborts.
 */
export async function withOffsiteLease<T>(
  services: Pick<AppServices, "db" | "logger"> & { clock: Clock },
  work: (signal: AbortSignal) => Promise<T>,
  options: { signal?: AbortSignal } = {},
): Promise<{ value: T } | null> {
  const lease = await acquireBackupLease(services, "offsite", { exclusiveId: OFFSITE_LEASE_ID });
  if (!lease) return null;
  const lost = new AbortController();
  const signal = options.signal ? AbortSignal.any([options.signal, lost.signal]) : lost.signal;
  const heartbeat = setInterval(() => {
    lease
      .renew()
      .then((kept) => {
        if (!kept) lost.abort(new Error("The off-site copy's lease expired; the copy was stopped"));
      })
      .catch((error: unknown) => services.logger.warn({ err: error }, "could not renew the off-site copy's lease"));
  }, BACKUP_LEASE_RENEW_MS);
  heartbeat.unref();
  try {
    return { value: await work(signal) };
  } finally {
    clearInterval(heartbeat);
    await lease
      .release()
      .catch((error: unknown) => services.logger.warn({ err: error }, "could not release the off-site copy's lease"));
  }
}
