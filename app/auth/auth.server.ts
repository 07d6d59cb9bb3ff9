import { createHash, randomBytes, randomUUID } from "node:crypto";
import { hash, verify, type Options } from "@node-rs/argon2";
import { nowIso } from "~/db/database.server";
import type { AppServices } from "~/services.server";
import type { CurrentUser } from "./login-schema";

/** argon2id with the library's (OWASP-recommended) cost: 19 MiB, 2 passes. */
const ARGON2_OPTIONS: Options = { algorithm: 2 /* Argon2id */, memoryCost: 19_456, timeCost: 2, parallelism: 1 };

export const SESSION_COOKIE = "cornerstone_session";
export const SESSION_LIFETIME_MS = 30 * 24 * 60 * 60 * 1000;
export const GENERATED_PASSWORD_LENGTH = 24;

type Services = Pick<AppServices, "db">;

export function hashPassword(password: string): Promise<string> {
  return hash(password, ARGON2_OPTIONS);
}

// Verified against when the username is unknown, so both failures cost the same time.
let dummyHash: Promise<string> | undefined;
function getDummyHash() {
  dummyHash ??= hashPassword(randomBytes(16).toString("hex"));
  return dummyHash;
}

async function passwordMatches(passwordHash: string, password: string): Promise<boolean> {
  try {
    return await verify(passwordHash, password);
  } catch {
    return false;
  }
}

/** A random password for the first start: URL-safe, 24 characters (144 bits). */
export function generatePassword(): string {
  return randomBytes(18).toString("base64url");
}

/**
 * The single administrator. ADMIN_USERNAME/ADMIN_PASSWORD (when set) create
 * or update it; with neither set and nobody stored, `admin` gets a random
 * password, returned here once so the caller can print it.
 */
export async function ensureAdministrator(
  services: Services,
  credentials: { username?: string; password?: string },
): Promise<{ action: "created" | "updated" | "unchanged"; username: string; generatedPassword?: string }> {
  const existing = await services.db.selectFrom("users").selectAll().orderBy("created_at").executeTakeFirst();
  if (credentials.password) {
    const username = credentials.username ?? existing?.username ?? "admin";
    if (!existing) {
      await createUser(services, username, credentials.password);
      return { action: "created", username };
    }
    const samePassword = await passwordMatches(existing.password_hash, credentials.password);
    if (samePassword && existing.username === username) return { action: "unchanged", username };
    await setAdministratorCredentials(services, { username, password: samePassword ? undefined : credentials.password });
    return { action: "updated", username };
  }
  if (existing) return { action: "unchanged", username: existing.username };
  const generatedPassword = generatePassword();
  await createUser(services, "admin", generatedPassword);
  return { action: "created", username: "admin", generatedPassword };
}

async function createUser(services: Services, username: string, password: string) {
  const now = nowIso();
  await services.db
    .insertInto("users")
    .values({ id: randomUUID(), username, password_hash: await hashPassword(password), created_at: now, updated_at: now })
    .execute();
}

/**
 * Changes the administrator's username and/or password. A new password
 * signs every session out.
 */
export async function setAdministratorCredentials(
  services: Services,
  change: { username?: string; password?: string },
): Promise<void> {
  const existing = await services.db.selectFrom("users").selectAll().orderBy("created_at").executeTakeFirst();
  if (!existing) {
    if (!change.password) throw new Error("There is no administrator yet; a password is needed to create one");
    await createUser(services, change.username ?? "admin", change.password);
    return;
  }
  const passwordHash = change.password ? await hashPassword(change.password) : existing.password_hash;
  await services.db.transaction().execute(async (trx) => {
    await trx
      .updateTable("users")
      .set({ username: change.username ?? existing.username, password_hash: passwordHash, updated_at: nowIso() })
      .where("id", "=", existing.id)
      .execute();
    if (change.password) await trx.deleteFrom("sessions").where("user_id", "=", existing.id).execute();
  });
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
    await passwordMatches(await getDummyHash(), password);
    return null;
  }
  return (await passwordMatches(user.password_hash, password)) ? { id: user.id, username: user.username } : null;
}

function hashToken(token: string): string {
  return createHash("sha256").update(token).digest("hex");
}

/** A new session: the 256-bit token goes in the cookie, only its hash in the database. */
export async function createSession(
  services: Services,
  userId: string,
  now = new Date(),
): Promise<{ token: string; expiresAt: Date }> {
  const token = randomBytes(32).toString("base64url");
  const expiresAt = new Date(now.getTime() + SESSION_LIFETIME_MS);
  await services.db
    .insertInto("sessions")
    .values({ id: hashToken(token), user_id: userId, expires_at: expiresAt.toISOString(), created_at: now.toISOString() })
    .execute();
  return { token, expiresAt };
}

/** The signed-in user for a session token, or null when unknown or expired. */
export async function getSessionUser(services: Services, token: string, now = new Date()): Promise<CurrentUser | null> {
  if (!token || token.length > 100) return null;
  const row = await services.db
    .selectFrom("sessions")
    .innerJoin("users", "users.id", "sessions.user_id")
    .select(["users.id as id", "users.username as username"])
    .where("sessions.id", "=", hashToken(token))
    .where("sessions.expires_at", ">", now.toISOString())
    .executeTakeFirst();
  return row ?? null;
}

export async function deleteSession(services: Services, token: string): Promise<void> {
  if (!token) return;
  await services.db.deleteFrom("sessions").where("id", "=", hashToken(token)).execute();
}

export async function pruneExpiredSessions(services: Services, now = new Date()): Promise<number> {
  const result = await services.db.deleteFrom("sessions").where("expires_at", "<=", now.toISOString()).executeTakeFirst();
  return Number(result.numDeletedRows);
}
