import { createHmac } from "node:crypto";
import type { Env } from "~/env.server";
import { loadOrCreateSecret } from "~/lib/secrets.server";

export type SignInKeys = {
  /** Signs device cookies (HMAC-SHA256). */
  deviceCookie: Buffer;
  /** Keys the hashes that stand for client addresses in the database. */
  clientAddress: Buffer;
};

/**
 * The one place the sign-in keys come from: DEVICE_COOKIE_SECRET, else a
 * secret generated once and kept in DATA_DIR/secrets/. Each use gets its own
 * key derived from it. (Issue 12 may keep the secret in the database instead.)
 */
export function loadSignInKeys(env: Pick<Env, "DATA_DIR" | "DEVICE_COOKIE_SECRET">): SignInKeys {
  const secret = loadOrCreateSecret(env.DATA_DIR, "device-cookie", env.DEVICE_COOKIE_SECRET);
  const derive = (purpose: string) => createHmac("sha256", secret).update(purpose).digest();
  return { deviceCookie: derive("device-cookie"), clientAddress: derive("client-address") };
}
