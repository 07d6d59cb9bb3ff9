import fs from "node:fs/promises";
import path from "node:path";
import type { Database } from "~/db/database.server";
import { recordActivitySafely } from "~/activity/activity-log.server";
import { queueSecurityNotice } from "~/notifications/security-notices.server";
import type { AppServices } from "~/services.server";
import { endEverySession, ensureAdministrator, verifyCredentials } from "./auth.server";
import { clearSignInLimits } from "./sign-in.server";

/** The first start's random password goes to a private file (never the console, which is logged). */
export function initialPasswordPath(dataDir: string): string {
  return path.join(dataDir, "secrets", "initial-admin-password");
}

/** Deletes the first-start password file, if it is there. */
export async function forgetInitialPassword(dataDir: string): Promise<boolean> {
  try {
    await fs.unlink(initialPasswordPath(dataDir));
    return true;
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === "ENOENT") return false;
    throw error;
  }
}

/** The username and password the first-start file holds; null when there is no such file (or it says nothing). */
async function readInitialPasswordFile(dataDir: string): Promise<{ username: string; password: string } | null> {
  let text: string;
  try {
    text = await fs.readFile(initialPasswordPath(dataDir), "utf8");
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === "ENOENT") return null;
    throw error;
  }
  const username = /^username: (.+)$/m.exec(text)?.[1];
  const password = /^password: (.+)$/m.exec(text)?.[1];
  return username && password ? { username, password } : { username: "", password: "" };
}

/** True when the first-start password file no longer signs in to `db`'s administrator. */
export async function initialPasswordIsStale(db: Database, dataDir: string): Promise<boolean> {
  const stored = await readInitialPasswordFile(dataDir);
  if (!stored) return false;
  return !stored.username || (await verifyCredentials({ db }, stored.username, stored.password)) === null;
}

async function writeInitialPassword(dataDir: string, username: string, password: string): Promise<string> {
  const file = initialPasswordPath(dataDir);
  await fs.mkdir(path.dirname(file), { recursive: true, mode: 0o700 });
  // Unlinked first: the mode of writeFile only applies to a file it creates.
  await forgetInitialPassword(dataDir);
  await fs.writeFile(
    file,
    `username: ${username}\npassword: ${password}\n\n` +
      `Sign in at /admin and change this password (dashboard: Change password, or npm run admin:password).\n` +
      `This file is deleted when you do.\n`,
    { mode: 0o600, flag: "wx" },
  );
  return file;
}

/** Start-up refused: with PostgreSQL, the first administrator must come from the environment. */
export class AdministratorRequiredError extends Error {
  override name = "AdministratorRequiredError";
}

/** With DATABASE_URL each instance has its own disk, so a generated password would be lost (decision 0044). */
async function requireAdministratorSource(services: Pick<AppServices, "db" | "env">): Promise<void> {
  const { env } = services;
  if (!env.DATABASE_URL || (env.ADMIN_USERNAME && env.ADMIN_PASSWORD)) return;
  if (await services.db.selectFrom("users").select("id").limit(1).executeTakeFirst()) return;
  throw new AdministratorRequiredError(
    "There is no administrator yet, and with DATABASE_URL set the first one is not given a generated password " +
      "(it would be kept on this instance's disk only).\n" +
      "Set ADMIN_USERNAME and ADMIN_PASSWORD (at least 8 characters) for the first start, then start the server again. " +
      "Once the administrator exists they may be removed.",
  );
}

/** At start-up: makes sure the administrator exists and says so; `print` reaches the console, never the logger. */
export async function prepareAdministrator(
  services: Pick<AppServices, "db" | "env" | "logger" | "clock" | "mail" | "outboxWake">,
  print: (text: string) => void,
): Promise<void> {
  const { env, logger } = services;
  await requireAdministratorSource(services);
  const result = await ensureAdministrator(services, {
    username: env.ADMIN_USERNAME,
    password: env.ADMIN_PASSWORD,
    reset: env.ADMIN_PASSWORD_RESET,
  });
  if (env.ADMIN_PASSWORD_RESET) {
    // Whatever changed (even nothing): a reset ends every session and every lock-out.
    await endEverySession(services);
    await clearSignInLimits(services.db);
  }
  switch (result.action) {
    case "created":
      if (result.generatedPassword) {
        await markPasswordTemporary(services.db, result.username);
        const file = await writeInitialPassword(env.DATA_DIR, result.username, result.generatedPassword);
        print(
          `\n  An administrator "${result.username}" was created for the admin area (/admin).\n` +
            `  Its password is in ${file} (readable by this user only).\n` +
            `  Sign in and change it; the file is deleted then.\n\n`,
        );
      } else {
        logger.info({ username: result.username }, "administrator created from ADMIN_USERNAME/ADMIN_PASSWORD");
      }
      return;
    case "updated":
      await forgetInitialPassword(env.DATA_DIR);
      await recordActivitySafely(services, {
        kind: "account.password-changed",
        outcome: "success",
        detail: { via: "server" },
      });
      await queueSecurityNotice(services, { kind: "password-changed", userAgent: "" });
      logger.warn(
        { username: result.username },
        "ADMIN_PASSWORD_RESET=1: the administrator's password was set from ADMIN_PASSWORD, every session signed out and every sign-in lock-out cleared. Remove ADMIN_PASSWORD_RESET, or the next start will apply ADMIN_PASSWORD again",
      );
      return;
    case "not-applied":
      logger.warn(
        { username: result.username },
        "ADMIN_PASSWORD is set but was not applied: the administrator already exists and its password was changed since. " +
          "To apply it, start once with ADMIN_PASSWORD_RESET=1 (or run npm run admin:password); otherwise remove ADMIN_PASSWORD",
      );
      return;
    case "unchanged":
      if (!(await fileExists(initialPasswordPath(env.DATA_DIR)))) return;
      if (await initialPasswordIsStale(services.db, env.DATA_DIR)) {
        // Its password no longer signs in (a restore brought another, say): nothing in it is true.
        await forgetInitialPassword(env.DATA_DIR);
        logger.info(
          { file: initialPasswordPath(env.DATA_DIR) },
          "removed the first-start admin password file: its password no longer signs in",
        );
        return;
      }
      await markUnchangedInitialPassword(services);
      logger.warn(
        { file: initialPasswordPath(env.DATA_DIR) },
        "the first-start admin password is still unchanged; sign in and change it to delete its file",
      );
      return;
  }
}

/** Decision 0051: a copy of the generated password's hash marks it temporary until any change. */
async function markPasswordTemporary(db: Database, username: string): Promise<void> {
  await db
    .updateTable("users")
    .set((eb) => ({ temporary_password_hash: eb.ref("password_hash") }))
    .where("username", "=", username)
    .execute();
}

/** Whether this user still has the password the first start generated. */
export async function usesTemporaryPassword(db: Database, userId: string): Promise<boolean> {
  const row = await db
    .selectFrom("users")
    .select("id")
    .where("id", "=", userId)
    .whereRef("temporary_password_hash", "=", "password_hash")
    .executeTakeFirst();
  return row !== undefined;
}

/** A site started before migration 0009: an unchanged password file's password is recorded as temporary. */
async function markUnchangedInitialPassword(services: Pick<AppServices, "db" | "env">): Promise<void> {
  const stored = await readInitialPasswordFile(services.env.DATA_DIR);
  if (!stored?.username) return;
  const { username, password } = stored;
  const unmarked = await services.db
    .selectFrom("users")
    .select("id")
    .where("username", "=", username)
    .where("temporary_password_hash", "is", null)
    .executeTakeFirst();
  if (unmarked && (await verifyCredentials(services, username, password)))
    await markPasswordTemporary(services.db, username);
}

async function fileExists(file: string): Promise<boolean> {
  try {
    await fs.access(file);
    return true;
  } catch {
    return false;
  }
}
