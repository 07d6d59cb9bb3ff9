import { createHmac } from "node:crypto";
import type { Env } from "~/env.server";
import type { Database } from "~/db/database.server";
import { loadOrCreateDatabaseSecret, loadOrCreateSecret } from "~/db/secrets.server";

export type SignInKeys = {
  /** Signs device cookies (HMAC-SHA256). */
  deviceCookie: Buffer;
  /** Keys the hashes that stand for client addresses in the database. */
  clientAddress: Buffer;
  /** Seals the TOTP secret and keys recovery codes; carried only inside an encrypted backup (decision 0058). */
  twoStep: Buffer;
};

/** The name of the two-step secret: DATA_DIR/secrets/two-step.key, or the secrets table's row. */
export const TWO_STEP_SECRET_NAME = "two-step";

/** The two-step key derived from the installation's two-step secret. */
export function twoStepKeyFrom(twoStepSecret: string): Buffer {
  return createHmac("sha256", twoStepSecret).update("two-step").digest();
}

/** Each use gets its own key, derived from the one secret. */
function signInKeysFrom(secret: string, twoStepSecret: string): SignInKeys {
  const derive = (purpose: string) => createHmac("sha256", secret).update(purpose).digest();
  return {
    deviceCookie: derive("device-cookie"),
    clientAddress: derive("client-address"),
    twoStep: twoStepKeyFrom(twoStepSecret),
  };
}

/**
 * DEVICE_COOKIE_SECRET, else secrets generated once in DATA_DIR/secrets/ or, with PostgreSQL, the secrets table,
 * so every instance accepts the same cookies. The two-step key is its own secret, so no setting can leak it.
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
