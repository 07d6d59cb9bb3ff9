import { sql } from "kysely";
import type { Env } from "~/env.server";
import type { Clock } from "~/lib/clock";
import { OFFSITE_FAILING_KIND, type OffsiteFailingForMail } from "~/notifications/messages.server";
import { queueOwnerAlert } from "~/notifications/outbox-queue.server";
import type { AppServices } from "~/services.server";
import type { BackupStateTable } from "~/db/schema";
import { ensureBackupState } from "./backup-state.server";
import { OFFSITE_RED_AFTER_MS, type BackupStatus } from "./backup-status";
import { resticInstalled } from "./offsite-restic.server";

/**
 * What the dashboard shows about the copies kept off the server (decision
 * 0070), in backup_state so that every instance and `npm run backup`
 * share it: the newest copy, when the next is due, and failures since the
 * last copy that worked. Three hours after the last copy that worked, with
 * every copy since failed, the card turns red and
 * one e-mail is queued for the outage; the next copy that works ends it.
 */
export type OffsiteServices = Pick<AppServices, "db" | "logger" | "mail" | "outboxWake"> & { clock: Clock };

export async function recordOffsiteSuccess(
  { db, clock }: OffsiteServices,
  copy: { name: string; sentBytes: number },
): Promise<void> {
  await ensureBackupState({ db, clock });
  await db
    .updateTable("backup_state")
    .set({
      offsite_last_at: clock.now().toISOString(),
      offsite_last_name: copy.name,
      offsite_last_sent_bytes: copy.sentBytes,
      offsite_failures: null,
      offsite_failed_at: null,
      offsite_failing_since: null,
      offsite_last_error: null,
      offsite_alerted_at: null,
    })
    .execute();
}

export async function recordOffsiteFailure(services: OffsiteServices, message: string, where: string): Promise<void> {
  const { db, clock } = services;
  await ensureBackupState({ db, clock });
  const now = clock.now();
  const at = now.toISOString();
  await db
    .updateTable("backup_state")
    .set({
      offsite_failures: sql<number>`coalesce(offsite_failures, 0) + 1`,
      offsite_failed_at: at,
      offsite_failing_since: sql<string>`coalesce(offsite_failing_since, ${at})`,
      offsite_last_error: message.slice(0, 2000),
    })
    .execute();
  // One e-mail per outage, once it has lasted long enough to turn the card red: only the update that sets offsite_alerted_at queues it.
  const claimed = await db
    .updateTable("backup_state")
    .set({ offsite_alerted_at: at })
    .where("offsite_alerted_at", "is", null)
    .where((eb) =>
      eb(
        eb.fn.coalesce("offsite_last_at", "offsite_failing_since"),
        "<=",
        new Date(now.getTime() - OFFSITE_RED_AFTER_MS).toISOString(),
      ),
    )
    .executeTakeFirst();
  if (Number(claimed.numUpdatedRows) === 1 && services.mail) {
    const row = await ensureBackupState({ db, clock });
    const payload: OffsiteFailingForMail = {
      failures: row.offsite_failures ?? 1,
      lastCopyAt: row.offsite_last_at,
      where,
      message,
    };
    await queueOwnerAlert(OFFSITE_FAILING_KIND, payload, services);
  }
}

/** The last snapshot this site made (a restic id; a copy of the older kind has none): the next copy's parent. */
export const lastSnapshotOf = (state: BackupStateTable): string | null =>
  state.offsite_last_name && /^[0-9a-f]{8,64}$/.test(state.offsite_last_name) ? state.offsite_last_name : null;

/** The next copy is due at `at`, unless one is due sooner already (a start, a restore). */
export async function bringOffsiteCopyForward(
  { db, clock }: { db: AppServices["db"]; clock: Clock },
  at: Date,
): Promise<void> {
  await ensureBackupState({ db, clock });
  const iso = at.toISOString();
  await db
    .updateTable("backup_state")
    .set({ offsite_next_due_at: iso })
    .where((eb) => eb.or([eb("offsite_next_due_at", "is", null), eb("offsite_next_due_at", ">", iso)]))
    .execute();
}

export async function setOffsiteNextDue({ db }: { db: AppServices["db"] }, at: Date): Promise<void> {
  await db.updateTable("backup_state").set({ offsite_next_due_at: at.toISOString() }).execute();
}

/** The dashboard's view of the off-site copies, as of the clock's now. */
export async function readOffsiteStatus(
  services: { db: AppServices["db"]; clock: Clock },
  env: Pick<Env, "BACKUP_S3_BUCKET" | "BACKUP_OFFSITE_REPOSITORY" | "BACKUP_PASSPHRASE" | "BACKUP_OFFSITE_MINUTES">,
): Promise<BackupStatus["offsite"]> {
  const state = await ensureBackupState(services);
  const configured = Boolean(env.BACKUP_S3_BUCKET || env.BACKUP_OFFSITE_REPOSITORY);
  const encrypted = Boolean(env.BACKUP_PASSPHRASE);
  const now = services.clock.now().getTime();
  const lastCopy =
    state.offsite_last_at && state.offsite_last_name
      ? {
          at: state.offsite_last_at,
          name: state.offsite_last_name,
          sentBytes: state.offsite_last_sent_bytes === null ? null : Number(state.offsite_last_sent_bytes),
        }
      : null;
  // Red once copies have failed for 3 hours: counted from the last copy that worked (or, with none, the first failure).
  const since = state.offsite_failing_since;
  const red = since !== null && now - new Date(state.offsite_last_at ?? since).getTime() >= OFFSITE_RED_AFTER_MS;
  const failing =
    red && state.offsite_failed_at
      ? {
          failures: state.offsite_failures ?? 1,
          since: since!,
          lastFailedAt: state.offsite_failed_at,
          message: state.offsite_last_error ?? "",
        }
      : null;
  const installed = resticInstalled();
  const copying = configured && encrypted && installed;
  return {
    configured,
    encrypted,
    state: !configured
      ? "off"
      : !encrypted
        ? "no-passphrase"
        : !installed
          ? "no-restic"
          : failing
            ? "failing"
            : lastCopy
              ? "ok"
              : "waiting",
    intervalMinutes: env.BACKUP_OFFSITE_MINUTES,
    nextCopyAt: copying ? state.offsite_next_due_at : null,
    lastCopy,
    failing,
  };
}
