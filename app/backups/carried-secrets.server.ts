import type { AppServices } from "~/services.server";

/**
 * Keys of this installation that an encrypted copy carries beside the data,
 * so that a restore onto a new server loses nothing the data needs (the
 * two-step key, once restores re-seal the two-step secret with the new
 * installation's key). One place decides what is carried; an off-site copy is
 * always encrypted, so it may carry them (an unencrypted backup never does).
 * Each is an archive entry's name (decision 0025's archive must accept it) and
 * its bytes in base64: a restore rebuilds the copy with those entries in it.
 */
export type CarriedSecrets = Record<string, string>;

export async function readCarriedSecrets(_services: Pick<AppServices, "env" | "db">): Promise<CarriedSecrets> {
  return {};
}
