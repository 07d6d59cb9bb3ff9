// npm run admin:password [-- --username NAME] [--env-file /etc/cornerstone/cornerstone.env]
// Sets the administrator's password: typed at a hidden prompt, or piped on stdin
// (echo 'new password' | npm run admin:password). Signs out every session, clears
// every sign-in lock-out and deletes the first-start password file.
import readline from "node:readline";
import { Writable } from "node:stream";
import { setAdministratorCredentials } from "~/auth/auth.server";
import { forgetInitialPassword } from "~/auth/initial-admin.server";
import { newPasswordSchema } from "~/auth/password-schema";
import { clearSignInLimits } from "~/auth/sign-in.server";
import { parseEnv } from "~/env.server";
import { createLogger } from "~/lib/logger.server";
import { openServices } from "../server/bootstrap";
import { applyEnvFileArgument } from "./lib/env-file";

async function readPiped(): Promise<string> {
  let text = "";
  for await (const chunk of process.stdin) text += chunk;
  return text.split(/\r?\n/)[0] ?? "";
}

async function prompt(question: string): Promise<string> {
  let muted = false;
  const output = new Writable({
    write(chunk, _encoding, callback) {
      if (!muted) process.stdout.write(chunk);
      callback();
    },
  });
  const rl = readline.createInterface({ input: process.stdin, output, terminal: true });
  const answer = new Promise<string>((resolve) => rl.question(question, resolve));
  muted = true;
  const value = await answer;
  rl.close();
  process.stdout.write("\n");
  return value;
}

async function main() {
  // The service's settings, read as systemd reads them (decision 0050).
  const args = applyEnvFileArgument(process.argv.slice(2));
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
  const services = await openServices(env, createLogger({ level: "warn" }), { checkBrowserUploads: false });
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
