import { randomBytes, randomInt } from "node:crypto";
import { Secret, TOTP } from "otpauth";
import type { Kysely } from "kysely";
import type { Database } from "~/db/database.server";
import type { DatabaseSchema } from "~/db/schema";
import { identity } from "~/identity";
import type { Clock } from "~/lib/clock";
import { keyedHash, open, seal } from "./secret-box.server";

/**
 * Two-step verification (decision 0053): a sealed TOTP secret and 10 recovery codes as keyed hashes. Only an
 * encrypted backup carries the key; a restore re-seals with the new installation's (decision 0058).
 */
const RECOVERY_CODE_COUNT = 10;
/** Codes from one time step either side of now are accepted (a phone's clock drifts). */
const TOTP_WINDOW = 1;
const RECOVERY_ALPHABET = "abcdefghjkmnpqrstuvwxyz23456789";

type Services = { db: Database; clock: Clock; signIn: { twoStepKey: Buffer } };

/** "unreadable": on, but sealed with a key this installation lacks, so off until turned on again. */
type TwoStepStatus = "off" | "enrolling" | "on" | "unreadable";
export type TwoStepState = { status: TwoStepStatus; recoveryCodesLeft: number };

function totpFor(base32Secret: string, label: string) {
  return new TOTP({
    issuer: identity.businessName,
    label,
    algorithm: "SHA1",
    digits: 6,
    period: 30,
    secret: Secret.fromBase32(base32Secret),
  });
}

async function rowOf(services: Services, userId: string) {
  return services.db.selectFrom("two_factor").selectAll().where("user_id", "=", userId).executeTakeFirst();
}

/** The recovery codes' key: this installation's, or the one they were made with, sealed by a restore. */
function recoveryKeyOf(installationKey: Buffer, row: { recovery_key_sealed: string | null }): Buffer | null {
  if (!row.recovery_key_sealed) return installationKey;
  const opened = open(installationKey, row.recovery_key_sealed);
  return opened === null ? null : Buffer.from(opened, "base64url");
}

export async function readTwoStepState(services: Services, userId: string): Promise<TwoStepState> {
  const row = await rowOf(services, userId);
  const { left } = await services.db
    .selectFrom("recovery_codes")
    .select((eb) => eb.fn.countAll().as("left"))
    .where("user_id", "=", userId)
    .executeTakeFirstOrThrow();
  let status: TwoStepStatus = "off";
  if (row) {
    const readable = open(services.signIn.twoStepKey, row.secret_encrypted) !== null;
    status = !row.enabled_at ? (readable ? "enrolling" : "off") : readable ? "on" : "unreadable";
  }
  return { status, recoveryCodesLeft: status === "on" ? Number(left) : 0 };
}

/** Whether a right password must be followed by a code. */
export async function isTwoStepOn(services: Services, userId: string): Promise<boolean> {
  return (await readTwoStepState(services, userId)).status === "on";
}

export type Enrolment = { secret: string; otpauthUrl: string; qrSvg: string };

/** A new secret, waiting for a code from the app (replaces an unconfirmed or unreadable one). */
export async function beginEnrolment(
  services: Services,
  user: { id: string; username: string },
): Promise<Enrolment | "already-on"> {
  if (await isTwoStepOn(services, user.id)) return "already-on";
  const secret = new Secret({ buffer: randomBytes(20).buffer }).base32;
  const now = services.clock.now().toISOString();
  const sealed = seal(services.signIn.twoStepKey, secret);
  await services.db
    .insertInto("two_factor")
    .values({ user_id: user.id, secret_encrypted: sealed, enabled_at: null, last_used_step: 0, created_at: now })
    .onConflict((oc) =>
      oc.column("user_id").doUpdateSet({
        secret_encrypted: sealed,
        enabled_at: null,
        last_used_step: 0,
        created_at: now,
        recovery_key_sealed: null,
      }),
    )
    .execute();
  const otpauthUrl = totpFor(secret, user.username).toString();
  // Loaded when a code is set up, not at every server start.
  const { default: QRCode } = await import("qrcode");
  const qrSvg = await QRCode.toString(otpauthUrl, { type: "svg", errorCorrectionLevel: "M", margin: 2 });
  return { secret, otpauthUrl, qrSvg };
}

/** Accepts a code once: its time step must be later than the last one used (atomic, across instances). */
async function acceptTotp(services: Services, userId: string, code: string, requireEnabled: boolean): Promise<boolean> {
  if (!/^\d{6}$/.test(code)) return false;
  const row = await rowOf(services, userId);
  if (!row || Boolean(row.enabled_at) !== requireEnabled) return false;
  const secret = open(services.signIn.twoStepKey, row.secret_encrypted);
  if (!secret) return false;
  const timestamp = services.clock.now().getTime();
  const delta = totpFor(secret, "").validate({ token: code, timestamp, window: TOTP_WINDOW });
  if (delta === null) return false;
  const step = TOTP.counter({ period: 30, timestamp }) + delta;
  const result = await services.db
    .updateTable("two_factor")
    .set({ last_used_step: step, ...(requireEnabled ? {} : { enabled_at: services.clock.now().toISOString() }) })
    .where("user_id", "=", userId)
    .where("last_used_step", "<", step)
    .executeTakeFirst();
  return Number(result.numUpdatedRows) === 1;
}

/** Turns two-step on with a code from the app; the recovery codes, shown once, or null for a wrong code. */
export async function confirmEnrolment(services: Services, userId: string, code: string): Promise<string[] | null> {
  if (!(await acceptTotp(services, userId, code.trim(), false))) return null;
  return renewRecoveryCodes(services, userId);
}

function normaliseRecoveryCode(code: string) {
  return code.toLowerCase().replace(/[\s-]/g, "");
}

/** The second step: a 6-digit code from the app, or an unused recovery code (which is then gone). */
export async function checkSecondStep(
  services: Services,
  userId: string,
  code: string,
): Promise<"app-code" | "recovery-code" | null> {
  const trimmed = code.replace(/\s/g, "");
  if (/^\d{6}$/.test(trimmed)) return (await acceptTotp(services, userId, trimmed, true)) ? "app-code" : null;
  const normalised = normaliseRecoveryCode(code);
  if (normalised.length !== 10 || !(await isTwoStepOn(services, userId))) return null;
  const row = await rowOf(services, userId);
  const recoveryKey = row ? recoveryKeyOf(services.signIn.twoStepKey, row) : null;
  if (!recoveryKey) return null;
  const used = await services.db
    .deleteFrom("recovery_codes")
    .where("user_id", "=", userId)
    .where("code_hash", "=", keyedHash(recoveryKey, normalised))
    .executeTakeFirst();
  return Number(used.numDeletedRows) === 1 ? "recovery-code" : null;
}

/** Ten new recovery codes ("abcde-fghjk"); the old ones stop working. */
export async function renewRecoveryCodes(services: Services, userId: string): Promise<string[]> {
  const codes = Array.from({ length: RECOVERY_CODE_COUNT }, () => {
    const chars = Array.from({ length: 10 }, () => RECOVERY_ALPHABET[randomInt(RECOVERY_ALPHABET.length)]).join("");
    return `${chars.slice(0, 5)}-${chars.slice(5)}`;
  });
  const now = services.clock.now().toISOString();
  await services.db.transaction().execute(async (trx) => {
    await trx.deleteFrom("recovery_codes").where("user_id", "=", userId).execute();
    // New codes are hashed with this installation's own key.
    await trx.updateTable("two_factor").set({ recovery_key_sealed: null }).where("user_id", "=", userId).execute();
    await trx
      .insertInto("recovery_codes")
      .values(
        codes.map((code) => ({
          code_hash: keyedHash(services.signIn.twoStepKey, normaliseRecoveryCode(code)),
          user_id: userId,
          created_at: now,
        })),
      )
      .execute();
  });
  return codes;
}

/** Turns two-step off: the secret and the recovery codes are deleted. */
export async function turnOffTwoStep(services: { db: Database }, userId?: string): Promise<void> {
  await services.db.transaction().execute(async (trx) => {
    let codes = trx.deleteFrom("recovery_codes");
    let secrets = trx.deleteFrom("two_factor");
    if (userId) {
      codes = codes.where("user_id", "=", userId);
      secrets = secrets.where("user_id", "=", userId);
    }
    await codes.execute();
    await secrets.execute();
  });
}

/** "lost": on in the backup but sealed with a key this installation lacks, so off until turned on again. */
export type TwoStepAfterRestore = "none" | "kept" | "lost";

/**
 * After a restore: secrets sealed with the backup's `carried` key are re-sealed with this installation's, and
 * the recovery codes' key is kept sealed under it, so they keep working. Secrets already readable stay as they are.
 */
export async function resealTwoStep(
  db: Kysely<DatabaseSchema>,
  keys: { carried: Buffer | null; installation: Buffer },
): Promise<TwoStepAfterRestore> {
  const { carried, installation } = keys;
  let outcome: TwoStepAfterRestore = "none";
  for (const row of await db.selectFrom("two_factor").selectAll().execute()) {
    const enabled = Boolean(row.enabled_at);
    if (open(installation, row.secret_encrypted) !== null) {
      if (enabled && outcome === "none") outcome = "kept";
      continue;
    }
    const secret = carried ? open(carried, row.secret_encrypted) : null;
    if (secret === null) {
      // An unfinished set-up nobody can finish is dropped; a secret that was on stays, unreadable.
      if (!enabled) await db.deleteFrom("two_factor").where("user_id", "=", row.user_id).execute();
      else outcome = "lost";
      continue;
    }
    const recoveryKey = recoveryKeyOf(carried!, row);
    if (!recoveryKey) await db.deleteFrom("recovery_codes").where("user_id", "=", row.user_id).execute();
    await db
      .updateTable("two_factor")
      .set({
        secret_encrypted: seal(installation, secret),
        recovery_key_sealed: recoveryKey ? seal(installation, recoveryKey.toString("base64url")) : null,
      })
      .where("user_id", "=", row.user_id)
      .execute();
    if (enabled && outcome === "none") outcome = "kept";
  }
  return outcome;
}
