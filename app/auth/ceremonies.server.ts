import { createHash, randomBytes } from "node:crypto";
import type { Database } from "~/db/database.server";
import type { Clock } from "~/lib/clock";

/** Sign-in steps spanning two requests (decision 0053), in the database, tied to a cookie token (SHA-256 stored). */
export const CEREMONY_LIFETIME_MS = 5 * 60_000;
/** Ended ceremonies are kept this long, so a late answer is told "expired" rather than "unknown". */
const KEPT_AFTER_EXPIRY_MS = 60 * 60_000;

export type CeremonyKind =
  /** Adding a passkey, on the dashboard. */
  | "passkey-registration"
  /** Signing in with a passkey, on the login page. */
  | "passkey-sign-in"
  /** Confirming it is the owner with a passkey instead of the password (turning two-step off…). */
  | "passkey-confirmation"
  /** A right password, waiting for the two-step code. */
  | "two-step-sign-in";

/** Each kind has its own cookie, so a passkey prompt left open does not end a pending two-step sign-in. */
export const CEREMONY_COOKIES: Record<CeremonyKind, string> = {
  "passkey-registration": "cornerstone_passkey_add",
  "passkey-sign-in": "cornerstone_passkey_sign_in",
  "passkey-confirmation": "cornerstone_passkey_confirm",
  "two-step-sign-in": "cornerstone_two_step",
};

export type Ceremony = {
  id: string;
  kind: CeremonyKind;
  challenge: string | null;
  userId: string | null;
  attempts: number;
};

type Services = { db: Database; clock: Clock };

const idOf = (token: string) => createHash("sha256").update(token).digest("hex");

/** Begins a ceremony; the returned token goes into the kind's cookie. */
export async function beginCeremony(
  services: Services,
  ceremony: { kind: CeremonyKind; challenge?: string; userId?: string },
): Promise<string> {
  const now = services.clock.now();
  await services.db
    .deleteFrom("auth_ceremonies")
    .where("expires_at", "<", new Date(now.getTime() - KEPT_AFTER_EXPIRY_MS).toISOString())
    .execute();
  const token = randomBytes(32).toString("base64url");
  await services.db
    .insertInto("auth_ceremonies")
    .values({
      id: idOf(token),
      kind: ceremony.kind,
      challenge: ceremony.challenge ?? null,
      user_id: ceremony.userId ?? null,
      created_at: now.toISOString(),
      expires_at: new Date(now.getTime() + CEREMONY_LIFETIME_MS).toISOString(),
    })
    .execute();
  return token;
}

export type CeremonyLookup = { status: "found"; ceremony: Ceremony } | { status: "expired" } | { status: "unknown" };

/**
 * Reads a ceremony. `take` ends it in the same atomic DELETE … RETURNING, so a challenge can never be answered
 * twice, even on two instances at once; without it a pending two-step sign-in survives a wrong code.
 */
export async function readCeremony(
  services: Services,
  kind: CeremonyKind,
  token: string | undefined,
  { take }: { take: boolean },
): Promise<CeremonyLookup> {
  if (!token || token.length > 100) return { status: "unknown" };
  const table = "auth_ceremonies";
  const row = await (
    take
      ? services.db.deleteFrom(table).where("id", "=", idOf(token)).where("kind", "=", kind).returningAll()
      : services.db.selectFrom(table).selectAll().where("id", "=", idOf(token)).where("kind", "=", kind)
  ).executeTakeFirst();
  if (!row) return { status: "unknown" };
  if (row.expires_at <= services.clock.now().toISOString()) return { status: "expired" };
  return {
    status: "found",
    ceremony: { id: row.id, kind, challenge: row.challenge, userId: row.user_id, attempts: Number(row.attempts) },
  };
}

/** Admits attempt number 1… up to `maxAttempts` (atomic, so simultaneous attempts cannot slip past), else null. */
export async function claimCeremonyAttempt(
  services: Services,
  ceremony: Ceremony,
  maxAttempts: number,
): Promise<number | null> {
  const row = await services.db
    .updateTable("auth_ceremonies")
    .set((eb) => ({ attempts: eb("attempts", "+", 1) }))
    .where("id", "=", ceremony.id)
    .where("attempts", "<", maxAttempts)
    .returning("attempts")
    .executeTakeFirst();
  return row ? Number(row.attempts) : null;
}

export async function endCeremony(services: Services, ceremony: Pick<Ceremony, "id">): Promise<void> {
  await services.db.deleteFrom("auth_ceremonies").where("id", "=", ceremony.id).execute();
}

/** Ends every ceremony (`npm run admin:password -- --reset-2fa`). */
export async function endEveryCeremony(services: { db: Database }): Promise<number> {
  const result = await services.db.deleteFrom("auth_ceremonies").executeTakeFirst();
  return Number(result.numDeletedRows);
}
