// npm run update [-- --env-file /etc/cornerstone/cornerstone.env] [--restart-command "CMD"] [--no-restart]
//                [--rollback] [--first-release] [--health-timeout SECONDS]
//                [--unit-file PATH] [--socket-file PATH] [--caddyfile PATH]
// Updates a deployed checkout without a failed request (docs/DEPLOY.md, step 11; decision 0059):
// backup, git fetch into a new release folder, install, build (these as the service's user), the
// previous release's hashed assets, switch `current`, restart, and switch back when /healthz does not answer.
// --rollback goes back to the previous release; --first-release makes the first one from the
// checkout's build (docs/DEPLOY.md, step 4). Run it as root in the checkout (/opt/cornerstone).
import { spawnSync } from "node:child_process";
import { realpathSync } from "node:fs";
import path from "node:path";
import { InvalidEnvironmentError, parseEnv } from "~/env.server";
import { systemClock } from "~/lib/clock";
import { dataDirUser, runCommand } from "./lib/releases/commands";
import { EXIT, type UpdateContext } from "./lib/releases/context";
import { probeHttp } from "./lib/releases/health";
import { HEALTH_TIMEOUT_MS } from "./lib/releases/health";
import { liveRelease, readState, takeUpdateLock } from "./lib/releases/layout";
import { runRollback } from "./lib/releases/rollback";
import { SYSTEM_SERVICE_FILES } from "./lib/releases/service-files";
import { adoptCheckoutBuild, runUpdate } from "./lib/releases/update";
import { EnvFileError, applyEnvFileArgument, takeEnvFileArgument } from "./lib/env-file";

const FLAGS = new Set(["--no-restart", "--rollback", "--first-release"]);
const VALUED = new Set(["--restart-command", "--health-timeout", "--unit-file", "--socket-file", "--caddyfile"]);

class UsageError extends Error {}

function parseArguments(args: string[]): { flags: Set<string>; values: Map<string, string> } {
  const flags = new Set<string>();
  const values = new Map<string, string>();
  for (let i = 0; i < args.length; i++) {
    const arg = args[i]!;
    const [name, inline] = arg.includes("=")
      ? [arg.slice(0, arg.indexOf("=")), arg.slice(arg.indexOf("=") + 1)]
      : [arg, undefined];
    if (FLAGS.has(arg)) flags.add(arg);
    else if (VALUED.has(name)) {
      const value = inline ?? args[++i];
      if (value === undefined || value === "") throw new UsageError(`${name} needs a value`);
      values.set(name, value);
    } else throw new UsageError(`unknown option ${arg}`);
  }
  return { flags, values };
}

/** Where the service answers: its HOST, or the loopback address when it listens on every address. */
function healthUrlOf(host: string, port: number): string {
  const reachable = host === "0.0.0.0" || host === "::" ? "127.0.0.1" : host;
  return `http://${reachable.includes(":") ? `[${reachable}]` : reachable}:${port}/healthz`;
}

// The releases must be readable by the service's user, whatever umask root's shell has.
process.umask(0o022);

async function main(): Promise<number> {
  const checkout = process.cwd();
  const toplevel = spawnSync("git", ["rev-parse", "--show-toplevel"], {
    cwd: checkout,
    encoding: "utf8",
  }).stdout.trim();
  if (!toplevel || realpathSync(toplevel) !== realpathSync(checkout)) {
    throw new UsageError(
      `run it in the deployed checkout (the folder git cloned, /opt/cornerstone in the guide), not in ${checkout}`,
    );
  }
  const { envFile } = takeEnvFileArgument(process.argv.slice(2));
  // The service's settings, read for this script only: npm ci and the build keep the shell's environment.
  const settings: Record<string, string | undefined> = { ...process.env };
  const { flags, values } = parseArguments(applyEnvFileArgument(process.argv.slice(2), settings));
  const env = parseEnv(settings);
  const seconds = Number(values.get("--health-timeout") ?? HEALTH_TIMEOUT_MS / 1000);
  if (!Number.isFinite(seconds) || seconds <= 0)
    throw new UsageError("--health-timeout needs a number of seconds, such as 60");
  const context: UpdateContext = {
    checkout,
    envFile: envFile ? path.resolve(envFile) : null,
    dataDirUser: dataDirUser(env.DATA_DIR),
    healthUrl: healthUrlOf(env.HOST, env.PORT),
    healthTimeoutMs: seconds * 1000,
    restartCommand: values.get("--restart-command") ?? null,
    serviceFiles: {
      unitFile: values.get("--unit-file") ?? SYSTEM_SERVICE_FILES.unitFile,
      socketFile: values.get("--socket-file") ?? SYSTEM_SERVICE_FILES.socketFile,
      caddyfile: values.get("--caddyfile") ?? SYSTEM_SERVICE_FILES.caddyfile,
    },
    listen: { host: env.HOST, port: env.PORT },
    clock: systemClock,
    sleep: (ms) => new Promise((resolve) => setTimeout(resolve, ms)),
    probe: probeHttp,
    run: runCommand,
    log: (line) => console.log(line),
  };

  const lock = await takeUpdateLock(checkout);
  if ("heldBy" in lock) {
    console.error(`Another npm run update is running here (process ${lock.heldBy}): wait for it to finish.`);
    return EXIT.busy;
  }
  try {
    if (flags.has("--first-release")) {
      if (await liveRelease(checkout)) {
        console.error("There are releases here already: npm run update makes the next one.");
        return EXIT.usage;
      }
      const name = await adoptCheckoutBuild(context, await readState(checkout));
      console.log(`The first release is ${name}: the systemd unit runs ${path.join(checkout, "current")}.`);
      return EXIT.ok;
    }
    if (flags.has("--rollback")) return await runRollback(context);
    return await runUpdate(context, { noRestart: flags.has("--no-restart") });
  } finally {
    await lock.release();
  }
}

main().then(
  (code) => process.exit(code),
  (error: Error) => {
    if (error instanceof UsageError) console.error(`npm run update: ${error.message}. See docs/DEPLOY.md, step 11.`);
    else if (error instanceof InvalidEnvironmentError || error instanceof EnvFileError) console.error(error.message);
    else console.error(`The update stopped on an unexpected error: ${error.stack ?? error.message}`);
    process.exit(error instanceof UsageError ? EXIT.usage : 1);
  },
);
