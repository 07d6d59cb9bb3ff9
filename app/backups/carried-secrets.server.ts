import { loadSignInKeys } from "~/auth/keys.server";
import type { AppServices } from "~/services.server";
import { TWO_STEP_KEY_ENTRY, twoStepKeyEntry } from "./two-step-carry.server";

/**
 * Keys of this installation that an encrypted copy carries beside the data,
 * so that a restore onto a new server loses nothing the data needs: the
 * two-step key, with which the restore seals the two-step secret again under
 * the new installation's key (decision 0058). One place decides what is
 * carried; an off-site copy is always encrypted, so it may carry them (an
 * unencrypted backup never does). Each is an archive entry's name (decision
 * 0025's archive must accept it) and its bytes in base64: a restore rebuilds
 * the copy with those entries in it.
 */
export type CarriedSecrets = Record<string, string>;

export async function readCarriedSecrets(services: Pick<AppServices, "env" | "db">): Promise<CarriedSecrets> {
  const keys = await loadSignInKeys(services.env, services.env.DATABASE_URL ? services.db : null);
  const entry = twoStepKeyEntry({ twoStepKey: keys.twoStep, encrypted: true });
  return entry ? { [TWO_STEP_KEY_ENTRY]: entry.toString("base64") } : {};
}
