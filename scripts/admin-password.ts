// npm run admin:password [-- --username NAME] [--keep NAME] [--env-file /etc/cornerstone/cornerstone.env]
// npm run admin:password -- --reset-2fa [--env-file …]
//   The phone is lost: turns two-step verification off, removes every passkey, ends every
//   session and pending sign-in step, clears every lock-out. No new password needed.
// Sets the administrator's password: typed at a hidden prompt, or piped on stdin
// (echo 'new password' | npm run admin:password). Signs out every session, clears
// every sign-in lock-out and deletes the first-start password file.
// --keep NAME: for a database that holds several users (the server refuses to start
// then), keeps NAME and deletes the others with their sessions, before anything else.
import { recordActivitySafely } from "~/activity/activity-log.server";
import { endEverySession, setAdministratorCredentials } from "~/auth/auth.server";
import { endEveryCeremony } from "~/auth/ceremonies.server";
import { removeEveryPasskey } from "~/auth/passkeys.server";
import { turnOffTwoStep } from "~/auth/two-step.server";
import { forgetInitialPassword } from "~/auth/initial-admin.server";
import { newPasswordSchema } from "~/auth/password-schema";
import { clearSignInLimits } from "~/auth/sign-in.server";
import { keepOnlyAdministrator } from "~/auth/single-administrator.server";
import type { Database } from "~/db/database.server";
import { parseEnv } from "~/env.server";
import { createLogger } from "~/lib/logger.server";
import { queueSecurityNotice } from "~/notifications/security-notices.server";
import { openServices } from "../server/bootstrap";
import { applyEnvFileArgument } from "./lib/env-file";
import { hiddenPrompt as prompt } from "./lib/hidden-prompt";

async function readPiped(): Promise<string> {
  let text = "";
  for await (const chunk of process.stdin) text += chunk;
  return text.split(/\r?\n/)[0] ?? "";
}

/** The value after `--name`; undefined when absent. Throws when the value is missing. */
function optionValue(args: string[], name: string): string | undefined {
  const index = args.indexOf(name);
  if (index < 0) return undefined;
  const value = args[index + 1];
  if (!value || value.startsWith("--")) throw new Error(`${name} needs a username after it; nothing was changed.`);
  return value;
}

/** `--reset-2fa`: back in with the password alone. */
async function resetTwoStep() {
  const services = await openServices(parseEnv(), createLogger({ level: "warn" }), { checkBrowserUploads: false });
  try {
    const wasOn =
      (await services.db.selectFrom("two_factor").select("user_id").where("enabled_at", "is not", null).execute())
        .length > 0;
    const names = (await services.db.selectFrom("passkeys").select("name").execute()).map((row) => row.name);
    await turnOffTwoStep(services);
    const passkeys = await removeEveryPasskey(services);
    const sessions = await endEverySession(services);
    await endEveryCeremony(services);
    await clearSignInLimits(services.db);
    await recordActivitySafely(services, {
      kind: "two-step.turned-off",
      outcome: "success",
      detail: { via: "server" },
    });
    // The owner hears of it, as of every change to the sign-in (sent by the running server's outbox).
    if (wasOn) await queueSecurityNotice(services, { kind: "two-step-off", userAgent: "" });
    if (names.length)
      await queueSecurityNotice(services, { kind: "passkey-removed", passkeyNames: names, userAgent: "" });
    console.log(
      `Two-step verification is off and ${passkeys} passkey(s) were removed. ` +
        `${sessions} session(s) and every pending sign-in were ended, and every sign-in lock-out was cleared. ` +
        "Sign in with the password, then turn two-step verification on again under Your Account.",
    );
  } finally {
    await services.close();
  }
}

async function main() {
  // The service's settings, read as systemd reads them (decision 0050).
  const args = applyEnvFileArgument(process.argv.slice(2));
  if (args.includes("--reset-2fa")) {
    if (args.length > 1) throw new Error("--reset-2fa takes no other option but --env-file; nothing was changed.");
    return resetTwoStep();
  }
  const username = optionValue(args, "--username");
  const keep = optionValue(args, "--keep");

  let password: string;
  if (process.stdin.isTTY) {
    password = await prompt("New admin password: ");
    if ((await prompt("Repeat it: ")) !== password) throw new Error("The two passwords differ; nothing was changed.");
  } else {
    password = await readPiped();
  }
  const checked = newPasswordSchema.safeParse(password);
  if (!checked.success) throw new Error(`${checked.error.issues[0]?.message}; nothing was changed.`);

  const env = parseEnv();
  // Before the migrations: migration 0008 refuses a database that holds several users.
  let removed: string[] = [];
  const beforeMigrations = async (db: Database) => {
    if (keep) removed = await keepOnlyAdministrator(db, keep);
  };
  const services = await openServices(env, createLogger({ level: "warn" }), {
    beforeMigrations,
    checkBrowserUploads: false,
  });
  try {
    await setAdministratorCredentials(services, { username, password });
    await clearSignInLimits(services.db);
    await forgetInitialPassword(env.DATA_DIR);
    await recordActivitySafely(services, {
      kind: "account.password-changed",
      outcome: "success",
      detail: { via: "server" },
    });
    await queueSecurityNotice(services, { kind: "password-changed", userAgent: "" });
  } finally {
    await services.close();
  }
  if (removed.length) {
    const names = removed.map((name) => JSON.stringify(name)).join(", ");
    console.log(`Kept ${JSON.stringify(keep)}; deleted the other users and their sessions: ${names}.`);
  }
  console.log(
    `The admin password was changed${username ? ` (username: ${username})` : ""}. ` +
      "All sessions were signed out and every sign-in lock-out was cleared.",
  );
}

main().catch((error: Error) => {
  console.error(error.message);
  process.exit(1);
});
