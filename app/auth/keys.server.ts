import { createHmac } from "node:crypto";
import type { Env } from "~/env.server";
import type { Database } from "~/db/database.server";
import { loadOrCreateDatabaseSecret, loadOrCreateSecret } from "~/db/secrets.server";

export type SignInKeys = {
  /** Signs device cookies (HMAC-SHA256). */
  deviceCookie: Buffer;
  /** Keys the hashes that stand for client addresses in the database. */
  clientAddress: Buffer;
  /**
   * Encrypts the two-step (TOTP) secret and keys the recovery-code hashes: its own secret, carried
   * only inside an encrypted backup (decision 0058).
   */
  twoStep: Buffer;
};

/** The name of the two-step secret: DATA_DIR/secrets/two-step.key, or the secrets table's row. */
export const TWO_STEP_SECRET_NAME = "two-step";

/** The two-step key derived from the installation's two-step secret. */
export function twoStepKeyFrom(twoStepSecret: string): Buffer {
  return createHmac("sha256", twoStepSecret).update("two-step").digest();
}

/** Each use gets its own key, derived from the one secret. */
export function signInKeysFrom(secret: string, twoStepSecret: string): SignInKeys {
  const derive = (purpose: string) => createHmac("sha256", secret).update(purpose).digest();
  return {
    deviceCookie: derive("device-cookie"),
    clientAddress: derive("client-address"),
    twoStep: twoStepKeyFrom(twoStepSecret),
  };
}

/**
 * The one place the sign-in keys come from: DEVICE_COOKIE_SECRET, else a
 * secret generated once and kept in DATA_DIR/secrets/ or, with PostgreSQL
 * (several instances), in the database's secrets table, so every instance
 * accepts the same device cookies. The two-step key is a secret of its own
 * ("two-step"), generated the same way, so no setting can leak it.
 */
export async function loadSignInKeys(
  env: Pick<Env, "DATA_DIR" | "DEVICE_COOKIE_SECRET">,
  db: Database | null,
): Promise<SignInKeys> {
  const secret = db
    ? await loadOrCreateDatabaseSecret(db, "device-cookie", env.DEVICE_COOKIE_SECRET)
    : loadOrCreateSecret(env.DATA_DIR, "device-cookie", env.DEVICE_COOKIE_SECRET);
  const twoStepSecret = db
    ? await loadOrCreateDatabaseSecret(db, TWO_STEP_SECRET_NAME)
    : loadOrCreateSecret(env.DATA_DIR, TWO_STEP_SECRET_NAME);
  return signInKeysFrom(secret, twoStepSecret);
}
