// npm run admin:password [-- --username NAME]
// Sets the administrator's password: typed at a hidden prompt, or piped on stdin
// (echo 'new password' | npm run admin:password). Signs out every session, clears
// every sign-in lock-out and deletes the first-start password file.
import { setAdministratorCredentials } from "~/auth/auth.server";
import { forgetInitialPassword } from "~/auth/initial-admin.server";
import { newPasswordSchema } from "~/auth/password-schema";
import { clearSignInLimits } from "~/auth/sign-in.server";
import { parseEnv } from "~/env.server";
import { createLogger } from "~/lib/logger.server";
import { openServices } from "../server/bootstrap";
import { hiddenPrompt as prompt } from "./lib/hidden-prompt";

async function readPiped(): Promise<string> {
  let text = "";
  for await (const chunk of process.stdin) text += chunk;
  return text.split(/\r?\n/)[0] ?? "";
}

async function main() {
  const args = process.argv.slice(2);
  const usernameIndex = args.indexOf("--username");
  const username = usernameIndex >= 0 ? args[usernameIndex + 1] : undefined;

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
  const services = await openServices(env, createLogger({ level: "warn" }));
  try {
    await setAdministratorCredentials(services, { username, password });
    await clearSignInLimits(services.db);
    await forgetInitialPassword(env.DATA_DIR);
  } finally {
    await services.close();
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
