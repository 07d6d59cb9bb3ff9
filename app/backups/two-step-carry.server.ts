import type { Kysely } from "kysely";
import { resealTwoStep, type TwoStepAfterRestore } from "~/auth/two-step.server";
import type { DatabaseSchema } from "~/db/schema";
import { z } from "~/lib/zod";
import { MAX_TWO_STEP_KEY_ENTRY_BYTES, TWO_STEP_KEY_ENTRY } from "./backup-format.server";

export { TWO_STEP_KEY_ENTRY };

/**
 * Two-step verification through a backup and a restore (decision 0058): only an encrypted backup carries the
 * installation's key (TWO_STEP_KEY_ENTRY); a restore seals every secret again with this installation's key, or
 * answers "lost" when nothing here can read it (the caller tells the owner).
 */

const ENTRY_FORMAT = "cornerstone-two-step-key";

const entrySchema = z.object({
  format: z.literal(ENTRY_FORMAT),
  version: z.literal(1),
  key: z.string().regex(/^[A-Za-z0-9_-]{43}$/),
});

/** The entry is not a carried key; the message says what is wrong. */
export class CarriedKeyError extends Error {
  override name = "CarriedKeyError";
}

/**
 * What a backup writes so that two-step verification survives a restore elsewhere: the
 * installation's two-step key, only when the backup is encrypted; null otherwise (or with no key).
 */
export function twoStepKeyEntry(setup: { twoStepKey: Buffer | undefined; encrypted: boolean }): Buffer | null {
  if (!setup.encrypted || !setup.twoStepKey) return null;
  const entry = { format: ENTRY_FORMAT, version: 1, key: setup.twoStepKey.toString("base64url") };
  return Buffer.from(`${JSON.stringify(entry)}\n`);
}

/** The key back from an entry's bytes; CarriedKeyError when they are not one. */
export function readTwoStepKeyEntry(bytes: Buffer): Buffer {
  if (bytes.length > MAX_TWO_STEP_KEY_ENTRY_BYTES)
    throw new CarriedKeyError(`${TWO_STEP_KEY_ENTRY} is too large to be a key`);
  let json: unknown;
  try {
    json = JSON.parse(bytes.toString("utf8"));
  } catch {
    throw new CarriedKeyError(`${TWO_STEP_KEY_ENTRY} is not valid JSON`);
  }
  const parsed = entrySchema.safeParse(json);
  if (!parsed.success) throw new CarriedKeyError(`${TWO_STEP_KEY_ENTRY} does not hold a two-step key`);
  return Buffer.from(parsed.data.key, "base64url");
}

export type { TwoStepAfterRestore };

/**
 * Once the restored rows are in and migrated: re-seals two-step with `installationKey` from the key the backup
 * carried (null: none).
 */
export function carryTwoStepThroughRestore(
  db: Kysely<DatabaseSchema>,
  keys: { carried: Buffer | null; installationKey: Buffer },
): Promise<TwoStepAfterRestore> {
  return resealTwoStep(db, { carried: keys.carried, installation: keys.installationKey });
}
