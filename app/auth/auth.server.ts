import { createHash, randomBytes, randomUUID } from "node:crypto";
import { hash, verify, type Options } from "@node-rs/argon2";
import { lockForTransaction, type Database } from "~/db/database.server";
import { systemClock, type Clock } from "~/lib/clock";
import type { CurrentUser } from "./login-schema";

/** argon2id with the library's (OWASP-recommended) cost: 19 MiB, 2 passes. */
const ARGON2_OPTIONS: Options = { algorithm: 2 /* Argon2id */, memoryCost: 19_456, timeCost: 2, parallelism: 1 };

export const SESSION_COOKIE = "cornerstone_session";
/** The absolute limit: a session ends 30 days after sign-in, used or not. */
export const SESSION_LIFETIME_MS = 30 * 24 * 60 * 60 * 1000;
/** A session unused for 14 days ends too. */
const SESSION_IDLE_MS = 14 * 24 * 60 * 60 * 1000;
/** `last_used_at` is written at most this often per session, not at every request. */
const SESSION_TOUCH_INTERVAL_MS = 5 * 60 * 1000;
export const GENERATED_PASSWORD_LENGTH = 24;

/** Counts argon2 verifications, so tests count them instead of timing them. */
export type VerificationMeter = { verifications: number };

// What these functions need, named here rather than taken from AppServices, so
// that app/services.server.ts (which builds the sign-in guard) is not imported back.
type Services = {
  db: Database;
  clock?: Clock;
  /** When given, every argon2 verification is counted here. */
  meter?: VerificationMeter;
};

const nowOf = (services: Services) => (services.clock ?? systemClock).now();

export function hashPassword(password: string): Promise<string> {
  return hash(password, ARGON2_OPTIONS);
}

// Verified against when the username is unknown, so both failures cost the same time.
let dummyHash: Promise<string> | undefined;
function getDummyHash() {
  dummyHash ??= hashPassword(randomBytes(16).toString("hex"));
  return dummyHash;
}

async function passwordMatches(services: Services, passwordHash: string, password: string): Promise<boolean> {
  if (services.meter) services.meter.verifications += 1;
  try {
    return await verify(passwordHash, password);
  } catch {
    return false;
  }
}

/** A random password for the first start: URL-safe, 24 characters (144 bits). */
function generatePassword(): string {
  return randomBytes(18).toString("base64url");
}

/**
 * The single administrator. ADMIN_USERNAME/ADMIN_PASSWORD create it when nobody is stored and change it only
 * with `reset`, so a later password change is not undone at restart; with neither, `admin` gets a random
 * password, returned once.
 */
export async function ensureAdministrator(
  services: Services,
  credentials: { username?: string; password?: string; reset?: boolean },
): Promise<{
  action: "created" | "updated" | "unchanged" | "not-applied";
  username: string;
  generatedPassword?: string;
}> {
  let existing = await firstUser(services);
  if (!existing) {
    const username = credentials.password ? (credentials.username ?? "admin") : "admin";
    const generatedPassword = credentials.password ? undefined : generatePassword();
    if (await createFirstAdministrator(services, username, credentials.password ?? generatedPassword!)) {
      return generatedPassword ? { action: "created", username, generatedPassword } : { action: "created", username };
    }
    // Another instance, starting at the same time, created it first: carry on with theirs.
    existing = await firstUser(services);
    if (!existing) throw new Error("The administrator could not be created");
  }
  if (!credentials.password) return { action: "unchanged", username: existing.username };
  const username = credentials.username ?? existing.username;
  const samePassword = await passwordMatches(services, existing.password_hash, credentials.password);
  if (samePassword && existing.username === username) return { action: "unchanged", username };
  if (!credentials.reset) return { action: "not-applied", username: existing.username };
  await setAdministratorCredentials(services, { username, password: samePassword ? undefined : credentials.password });
  return { action: "updated", username };
}

function firstUser(services: Services) {
  return services.db.selectFrom("users").selectAll().orderBy("created_at").executeTakeFirst();
}

/** Creates the administrator under a lock, so two instances starting at once make one; false when one exists. */
async function createFirstAdministrator(services: Services, username: string, password: string): Promise<boolean> {
  // Hashed before the lock: argon2 takes a while, and nobody should wait on it.
  const passwordHash = await hashPassword(password);
  const now = nowOf(services).toISOString();
  try {
    return await services.db.transaction().execute(async (trx) => {
      await lockForTransaction(trx, "administrator");
      if (await trx.selectFrom("users").select("id").limit(1).executeTakeFirst()) return false;
      await trx
        .insertInto("users")
        .values({ id: randomUUID(), username, password_hash: passwordHash, created_at: now, updated_at: now })
        .execute();
      return true;
    });
  } catch (error) {
    if (await firstUser(services)) return false;
    throw error;
  }
}

/** A new password signs every session out except `keepSessionToken`'s (the dashboard's own). */
export async function setAdministratorCredentials(
  services: Services,
  change: { username?: string; password?: string; keepSessionToken?: string },
): Promise<void> {
  const existing = await services.db.selectFrom("users").selectAll().orderBy("created_at").executeTakeFirst();
  if (!existing) {
    if (!change.password) throw new Error("There is no administrator yet; a password is needed to create one");
    if (await createFirstAdministrator(services, change.username ?? "admin", change.password)) return;
    // Created meanwhile by someone else: the change applies to theirs.
    return setAdministratorCredentials(services, change);
  }
  const passwordHash = change.password ? await hashPassword(change.password) : existing.password_hash;
  await services.db.transaction().execute(async (trx) => {
    await trx
      .updateTable("users")
      .set({
        username: change.username ?? existing.username,
        password_hash: passwordHash,
        updated_at: nowOf(services).toISOString(),
      })
      .where("id", "=", existing.id)
      .execute();
    if (change.password) await endEverySession({ db: trx }, change.keepSessionToken);
  });
}

/** Signs every session out, whoever it belongs to, except `keepSessionToken`'s; returns how many. */
export async function endEverySession(services: Services, keepSessionToken?: string): Promise<number> {
  let sessions = services.db.deleteFrom("sessions");
  if (keepSessionToken) sessions = sessions.where("id", "!=", sessionIdOf(keepSessionToken));
  const result = await sessions.executeTakeFirst();
  return Number(result.numDeletedRows);
}

/** The user for these credentials, or null. Unknown names cost a full verify too. */
export async function verifyCredentials(
  services: Services,
  username: string,
  password: string,
): Promise<CurrentUser | null> {
  const user = await services.db
    .selectFrom("users")
    .select(["id", "username", "password_hash"])
    .where("username", "=", username)
    .executeTakeFirst();
  if (!user) {
    await passwordMatches(services, await getDummyHash(), password);
    return null;
  }
  return (await passwordMatches(services, user.password_hash, password))
    ? { id: user.id, username: user.username }
    : null;
}

/** A session's row id: the SHA-256 of its token (the token itself is never stored). */
export function sessionIdOf(token: string): string {
  return createHash("sha256").update(token).digest("hex");
}

/** A new session: the 256-bit token goes in the cookie, only its hash in the database. */
export async function createSession(
  services: Services,
  userId: string,
  now = nowOf(services),
  /** The passkey it signed in with ("Sign out everywhere" may keep that one). */
  passkeyId: string | null = null,
): Promise<{ token: string; id: string; expiresAt: Date }> {
  const token = randomBytes(32).toString("base64url");
  const id = sessionIdOf(token);
  const expiresAt = new Date(now.getTime() + SESSION_LIFETIME_MS);
  await services.db
    .insertInto("sessions")
    .values({
      id,
      user_id: userId,
      expires_at: expiresAt.toISOString(),
      created_at: now.toISOString(),
      last_used_at: now.toISOString(),
      // Named only when there is one, so a session can be made in a database from before the column.
      ...(passkeyId ? { passkey_id: passkeyId } : {}),
    })
    .execute();
  return { token, id, expiresAt };
}

/** The user for a session token, or null when unknown, over 30 days old or idle 14; marks it used every 5 min. */
export async function getSessionUser(
  services: Services,
  token: string,
  now = nowOf(services),
): Promise<CurrentUser | null> {
  if (!token || token.length > 100) return null;
  const id = sessionIdOf(token);
  const idleSince = new Date(now.getTime() - SESSION_IDLE_MS).toISOString();
  const row = await services.db
    .selectFrom("sessions")
    .innerJoin("users", "users.id", "sessions.user_id")
    .select((eb) => [
      "users.id as id",
      "users.username as username",
      eb.fn.coalesce("sessions.last_used_at", "sessions.created_at").as("last_used_at"),
    ])
    .where("sessions.id", "=", id)
    .where("sessions.expires_at", ">", now.toISOString())
    .where((eb) => eb(eb.fn.coalesce("sessions.last_used_at", "sessions.created_at"), ">", idleSince))
    .executeTakeFirst();
  if (!row) return null;
  const touchBefore = new Date(now.getTime() - SESSION_TOUCH_INTERVAL_MS).toISOString();
  if (row.last_used_at < touchBefore) {
    // Conditional, so concurrent requests write it once.
    await services.db
      .updateTable("sessions")
      .set({ last_used_at: now.toISOString() })
      .where("id", "=", id)
      .where((eb) => eb.or([eb("last_used_at", "is", null), eb("last_used_at", "<", touchBefore)]))
      .execute();
  }
  return { id: row.id, username: row.username };
}

export async function deleteSession(services: Services, token: string): Promise<void> {
  if (!token) return;
  await services.db.deleteFrom("sessions").where("id", "=", sessionIdOf(token)).execute();
}

/** Ends every session of this user ("Sign out everywhere"); returns how many. */
export async function deleteUserSessions(services: Services, userId: string): Promise<number> {
  const result = await services.db.deleteFrom("sessions").where("user_id", "=", userId).executeTakeFirst();
  return Number(result.numDeletedRows);
}

/** Deletes sessions past their 30 days or unused for 14. */
export async function pruneExpiredSessions(services: Services, now = nowOf(services)): Promise<number> {
  const idleSince = new Date(now.getTime() - SESSION_IDLE_MS).toISOString();
  const result = await services.db
    .deleteFrom("sessions")
    .where((eb) =>
      eb.or([
        eb("expires_at", "<=", now.toISOString()),
        eb(eb.fn.coalesce("last_used_at", "created_at"), "<=", idleSince),
      ]),
    )
    .executeTakeFirst();
  return Number(result.numDeletedRows);
}
