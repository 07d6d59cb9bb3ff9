import { sql } from "kysely";
import type { Database } from "~/db/database.server";
import type { BackupStateTable } from "~/db/schema";
import type { Env } from "~/env.server";
import type { Clock } from "~/lib/clock";
import { OFFSITE_FAILING_KIND, type OffsiteFailingForMail } from "~/notifications/messages.server";
import { queueOwnerAlert } from "~/notifications/outbox-queue.server";
import type { AppServices } from "~/services.server";
import { isBackupRunning } from "~/storage/deferred-deletions.server";
import { DOWNLOAD_REMINDER_DAYS, OFFSITE_RED_AFTER_MS, type BackupStatus, type OffsiteStatus } from "./backup-status";
import { resticInstalled } from "./offsite-restic.server";

/** The one row of backup state, shared by every instance and `npm run backup`; each write touches its own columns. */
const STATE_ID = "default";
const DAY_MS = 24 * 60 * 60 * 1000;

type StateServices = { db: Database; clock: Clock };

export async function ensureBackupState({ db, clock }: StateServices): Promise<BackupStateTable> {
  await db
    .insertInto("backup_state")
    .values({
      id: STATE_ID,
      tracking_since: clock.now().toISOString(),
      next_due_at: null,
      last_success_at: null,
      last_success_bytes: null,
      last_success_name: null,
      last_problem_at: null,
      last_problem_kind: null,
      last_problem_message: null,
      last_download_at: null,
    })
    .onConflict((oc) => oc.column("id").doNothing())
    .execute();
  return db.selectFrom("backup_state").selectAll().where("id", "=", STATE_ID).executeTakeFirstOrThrow();
}

export async function recordBackupSuccess(
  services: StateServices,
  backup: { finishedAt: Date; bytes: number; fileName: string; download: boolean },
): Promise<void> {
  await ensureBackupState(services);
  const at = backup.finishedAt.toISOString();
  // Only ever forward: a slow backup finishing late does not hide a newer one.
  const forward = (column: "last_success_at" | "last_download_at", set: Partial<BackupStateTable>) =>
    services.db
      .updateTable("backup_state")
      .set(set)
      .where("id", "=", STATE_ID)
      .where((eb) => eb.or([eb(column, "is", null), eb(column, "<", at)]))
      .execute();
  await forward("last_success_at", {
    last_success_at: at,
    last_success_bytes: backup.bytes,
    last_success_name: backup.fileName,
  });
  if (backup.download) await forward("last_download_at", { last_download_at: at });
}

export async function recordBackupProblem(
  services: StateServices,
  problem: { at: Date; kind: "failed" | "skipped" | "warning"; message: string },
): Promise<void> {
  await ensureBackupState(services);
  await services.db
    .updateTable("backup_state")
    .set({
      last_problem_at: problem.at.toISOString(),
      last_problem_kind: problem.kind,
      last_problem_message: problem.message.slice(0, 2000),
    })
    .where("id", "=", STATE_ID)
    .execute();
}

export async function setNextDue({ db }: StateServices, nextDueAt: Date | null): Promise<void> {
  await db
    .updateTable("backup_state")
    .set({ next_due_at: nextDueAt ? nextDueAt.toISOString() : null })
    .where("id", "=", STATE_ID)
    .execute();
}

/** The dashboard's view of backups, as of the clock's now. */
export async function readBackupStatus(
  services: StateServices,
  schedule: { intervalHours: number; keep: number },
): Promise<Omit<BackupStatus, "offsite" | "foreignBackups">> {
  const state = await ensureBackupState(services);
  const now = services.clock.now().getTime();
  const lastBackup =
    state.last_success_at && state.last_success_name
      ? { at: state.last_success_at, bytes: Number(state.last_success_bytes ?? 0), fileName: state.last_success_name }
      : null;
  // A problem shows until a later backup works (a warning belongs to the backup that finished with it).
  const problemIsCurrent =
    state.last_problem_at !== null && (lastBackup === null || state.last_problem_at >= lastBackup.at);
  const problem =
    problemIsCurrent && state.last_problem_kind && state.last_problem_message
      ? {
          at: state.last_problem_at!,
          kind: state.last_problem_kind as "failed" | "skipped" | "warning",
          message: state.last_problem_message,
        }
      : null;
  // Counted from the last download, or from when this site started keeping backups.
  const reminderFrom = new Date(state.last_download_at ?? state.tracking_since).getTime();
  return {
    lastBackup,
    problem,
    lastDownloadAt: state.last_download_at,
    downloadReminder: now - reminderFrom >= DOWNLOAD_REMINDER_DAYS * DAY_MS,
    schedule: { ...schedule, nextDueAt: schedule.intervalHours > 0 ? state.next_due_at : null },
    running: await isBackupRunning(services),
  };
}

/** The next off-site copy is due at `at`; with `ifSooner` (a start), only when none is due before then. */
export async function setOffsiteNextDue(services: StateServices, at: Date, ifSooner = false): Promise<void> {
  await ensureBackupState(services);
  const iso = at.toISOString();
  await services.db
    .updateTable("backup_state")
    .set({ offsite_next_due_at: iso })
    .$if(ifSooner, (qb) =>
      qb.where((eb) => eb.or([eb("offsite_next_due_at", "is", null), eb("offsite_next_due_at", ">", iso)])),
    )
    .execute();
}

/** An off-site copy that worked: the newest, and the end of any outage. */
export async function recordOffsiteCopy(services: StateServices, copy: { snapshot: string; addedBytes: number }) {
  await services.db
    .updateTable("backup_state")
    .set({
      offsite_last_at: services.clock.now().toISOString(),
      offsite_last_name: copy.snapshot,
      offsite_last_sent_bytes: copy.addedBytes,
      ...{ offsite_failures: null, offsite_failed_at: null, offsite_failing_since: null },
      ...{ offsite_last_error: null, offsite_alerted_at: null },
    })
    .execute();
}

/**
 * Three hours after the last copy that worked, all since failed, the dashboard turns red and one e-mail is queued:
 * only the update that sets offsite_alerted_at queues it.
 */
export async function recordOffsiteFailure(
  services: StateServices & Pick<AppServices, "mail" | "outboxWake">,
  failure: { message: string; where: string },
): Promise<void> {
  const { db, clock } = services;
  const at = clock.now().toISOString();
  await db
    .updateTable("backup_state")
    .set({
      offsite_failures: sql<number>`coalesce(offsite_failures, 0) + 1`,
      offsite_failed_at: at,
      offsite_failing_since: sql<string>`coalesce(offsite_failing_since, ${at})`,
      offsite_last_error: failure.message.slice(0, 2000),
    })
    .execute();
  const redSince = new Date(clock.now().getTime() - OFFSITE_RED_AFTER_MS).toISOString();
  const claimed = await db
    .updateTable("backup_state")
    .set({ offsite_alerted_at: at })
    .where("offsite_alerted_at", "is", null)
    .where((eb) => eb(eb.fn.coalesce("offsite_last_at", "offsite_failing_since"), "<=", redSince))
    .executeTakeFirst();
  if (Number(claimed.numUpdatedRows) !== 1 || !services.mail) return;
  const row = await ensureBackupState(services);
  const payload: OffsiteFailingForMail = {
    failures: row.offsite_failures ?? 1,
    lastCopyAt: row.offsite_last_at,
    ...failure,
  };
  await queueOwnerAlert(OFFSITE_FAILING_KIND, payload, services);
}

/** The dashboard's view of the off-site copies (decision 0070), as of the clock's now. */
export async function readOffsiteStatus(
  services: StateServices,
  env: Pick<Env, "BACKUP_S3_BUCKET" | "BACKUP_OFFSITE_REPOSITORY" | "BACKUP_PASSPHRASE" | "BACKUP_OFFSITE_MINUTES">,
): Promise<OffsiteStatus> {
  const state = await ensureBackupState(services);
  const configured = Boolean(env.BACKUP_S3_BUCKET || env.BACKUP_OFFSITE_REPOSITORY);
  const encrypted = Boolean(env.BACKUP_PASSPHRASE);
  const sentBytes = state.offsite_last_sent_bytes === null ? null : Number(state.offsite_last_sent_bytes);
  const lastCopy =
    state.offsite_last_at && state.offsite_last_name
      ? { at: state.offsite_last_at, name: state.offsite_last_name, sentBytes }
      : null;
  // Red once copies have failed for 3 hours: counted from the last copy that worked (or, with none, the first failure).
  const since = state.offsite_failing_since;
  const red =
    since !== null &&
    services.clock.now().getTime() - Date.parse(state.offsite_last_at ?? since) >= OFFSITE_RED_AFTER_MS;
  const failing =
    red && state.offsite_failed_at
      ? {
          failures: state.offsite_failures ?? 1,
          since: since!,
          lastFailedAt: state.offsite_failed_at,
          message: state.offsite_last_error ?? "",
        }
      : null;
  const stopped = !configured ? "off" : !encrypted ? "no-passphrase" : !resticInstalled() ? "no-restic" : null;
  return {
    configured,
    encrypted,
    state: stopped ?? (failing ? "failing" : lastCopy ? "ok" : "waiting"),
    intervalMinutes: env.BACKUP_OFFSITE_MINUTES,
    nextCopyAt: stopped ? null : state.offsite_next_due_at,
    lastCopy,
    failing,
  };
}
