import { randomBytes } from "node:crypto";
import { createWriteStream } from "node:fs";
import fs from "node:fs/promises";
import path from "node:path";
import { pipeline } from "node:stream/promises";
import { sql } from "kysely";
import type { Clock } from "~/lib/clock";
import { OFFSITE_FAILING_KIND, type OffsiteFailingForMail } from "~/notifications/messages.server";
import { queueOwnerAlert } from "~/notifications/outbox-queue.server";
import type { AppServices } from "~/services.server";
import type { ObjectStorage } from "~/storage/storage.server";
import { ensureBackupState } from "./backup-state.server";
import type { BackupStatus } from "./backup-status";
import type { OffsiteCopy, OffsiteTarget } from "./offsite-target.server";

/**
 * Copies backups off the server (issue 18, decision 0052) and keeps what the
 * dashboard shows about them in backup_state: the newest copy, and failures
 * in a row. The second failure in a row raises the red notice and queues one
 * e-mail for the outage; the next upload that works ends it.
 */
export const OFFSITE_ALERT_AFTER_FAILURES = 2;

export type OffsiteServices = Pick<AppServices, "db" | "logger" | "mail" | "outboxWake"> & { clock: Clock };

/** Where the archive is: a file on this server, or an object in the photo bucket (its backups/). */
export type ArchiveSource = { file: string } | { storage: ObjectStorage; key: string; workDir: string };

/** Copies one finished backup; never throws for an upload failure (it is recorded and logged). */
export async function copyBackupOffsite(
  services: OffsiteServices,
  target: OffsiteTarget,
  source: ArchiveSource,
  options: { signal?: AbortSignal } = {},
): Promise<{ status: "copied"; name: string } | { status: "failed"; message: string }> {
  const name = "file" in source ? path.basename(source.file) : path.basename(source.key);
  let temporary: string | null = null;
  try {
    let file: string;
    if ("file" in source) {
      file = source.file;
    } else {
      const object = await source.storage.read(source.key);
      if (!object) throw new Error(`The backup ${source.key} is no longer in storage`);
      temporary = path.join(source.workDir, `.offsite-${randomBytes(6).toString("hex")}`);
      await pipeline(object.stream, createWriteStream(temporary, { flags: "wx", mode: 0o600 }));
      file = temporary;
    }
    const { bytes } = await target.upload(name, file, options);
    await recordOffsiteSuccess(services, name);
    services.logger.info({ name, bytes, target: target.description }, "backup copied off the server");
    return { status: "copied", name };
  } catch (error) {
    const message = (error as Error).message ?? String(error);
    if (options.signal?.aborted) {
      // A shutdown, not an outage: not counted.
      services.logger.warn({ name }, "copying the backup off the server was stopped by a shutdown");
      return { status: "failed", message };
    }
    services.logger.error({ err: error, name, target: target.description }, "could not copy the backup off the server");
    await recordOffsiteFailure(services, message, target.description);
    return { status: "failed", message };
  } finally {
    if (temporary) await fs.rm(temporary, { force: true });
  }
}

async function recordOffsiteSuccess({ db, clock }: OffsiteServices, name: string): Promise<void> {
  await ensureBackupState({ db, clock });
  await db
    .updateTable("backup_state")
    .set({
      offsite_last_at: clock.now().toISOString(),
      offsite_last_name: name,
      offsite_failures: null,
      offsite_failed_at: null,
      offsite_last_error: null,
      offsite_alerted_at: null,
    })
    .execute();
}

async function recordOffsiteFailure(services: OffsiteServices, message: string, where: string): Promise<void> {
  const { db, clock } = services;
  await ensureBackupState({ db, clock });
  const at = clock.now().toISOString();
  await db
    .updateTable("backup_state")
    .set({ offsite_failures: sql<number>`coalesce(offsite_failures, 0) + 1`, offsite_failed_at: at, offsite_last_error: message.slice(0, 2000) })
    .execute();
  // One e-mail per outage: only the update that sets offsite_alerted_at queues it.
  const claimed = await db
    .updateTable("backup_state")
    .set({ offsite_alerted_at: at })
    .where("offsite_alerted_at", "is", null)
    .where("offsite_failures", ">=", OFFSITE_ALERT_AFTER_FAILURES)
    .executeTakeFirst();
  if (Number(claimed.numUpdatedRows) === 1 && services.mail) {
    const row = await ensureBackupState({ db, clock });
    const payload: OffsiteFailingForMail = { failures: row.offsite_failures ?? OFFSITE_ALERT_AFTER_FAILURES, lastCopyAt: row.offsite_last_at, where, message };
    await queueOwnerAlert(OFFSITE_FAILING_KIND, payload, services);
  }
}

/** The dashboard's view of the off-site copies. */
export async function readOffsiteStatus(
  services: { db: AppServices["db"]; clock: Clock },
  setup: { configured: boolean; encrypted: boolean },
): Promise<BackupStatus["offsite"]> {
  const state = await ensureBackupState(services);
  const failures = state.offsite_failures ?? 0;
  return {
    ...setup,
    lastCopy: state.offsite_last_at && state.offsite_last_name ? { at: state.offsite_last_at, name: state.offsite_last_name } : null,
    failing:
      failures >= OFFSITE_ALERT_AFTER_FAILURES
        ? { failures, lastFailedAt: state.offsite_failed_at!, message: state.offsite_last_error ?? "" }
        : null,
  };
}

/** Tells this installation's backup names from others' (BackupNaming, backup-names.server.ts). */
export type NameVerifier = { verify(name: string): { kind: string; stamp: string } | null };

/** This installation's scheduled-style copies, oldest first; anything else in the bucket is not ours to touch. */
export function ownCopies(copies: OffsiteCopy[], naming: NameVerifier): (OffsiteCopy & { stamp: string })[] {
  return copies
    .flatMap((copy) => {
      const verified = naming.verify(copy.name);
      return verified?.kind === "cornerstone" ? [{ ...copy, stamp: verified.stamp }] : [];
    })
    .sort((a, b) => (a.stamp === b.stamp ? a.name.localeCompare(b.name) : a.stamp < b.stamp ? -1 : 1));
}

/** BACKUP_KEEP off the server too: deletes the oldest of this installation's own copies; returns their names. */
export async function pruneOffsite(target: OffsiteTarget, naming: NameVerifier, keep: number): Promise<string[]> {
  const own = ownCopies(await target.list(), naming);
  const doomed = own.slice(0, Math.max(0, own.length - keep)).map((copy) => copy.name);
  for (const name of doomed) await target.remove(name);
  return doomed;
}

/** After a backup: copy it off-site, then (once it is there) keep only the newest `keep` of this installation's copies. */
export async function copyOffsiteAndPrune(
  services: OffsiteServices,
  target: OffsiteTarget,
  source: ArchiveSource,
  options: { keep: number; naming: NameVerifier; signal?: AbortSignal },
): Promise<void> {
  const copied = await copyBackupOffsite(services, target, source, { signal: options.signal });
  if (copied.status !== "copied") return;
  try {
    const removed = await pruneOffsite(target, options.naming, options.keep);
    if (removed.length) services.logger.info({ removed }, `removed ${removed.length} old off-site backup(s), keeping the newest ${options.keep}`);
  } catch (error) {
    services.logger.warn({ err: error }, "could not remove old off-site backups");
  }
}
