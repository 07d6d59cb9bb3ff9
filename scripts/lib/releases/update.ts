/**
 * `npm run update`: the seven steps, in order (docs/DEPLOY.md, step 11; decision 0059). A step
 * that fails stops the update with its own exit code and names the step; until step 6 nothing the
 * live site uses has changed, and after it a failed restart or health check switches back.
 */
import fs from "node:fs/promises";
import os from "node:os";
import path from "node:path";
import { carryAssets } from "./assets";
import { exportCommit, git, linkCopy, shell, takeBack } from "./commands";
import {
  EXIT,
  SYSTEMD_RESTART,
  envFileArgs,
  resetCheckout,
  restartAndCheck,
  switchBack,
  syncCheckoutModules,
  type UpdateContext,
} from "./context";
import {
  liveRelease,
  lockFileHash,
  pruneReleases,
  readState,
  releaseDir,
  switchCurrent,
  writeState,
  type ReleaseState,
} from "./layout";
import { describePlan, mayWrite, planServiceFiles, type ServicePlan } from "./service-files";

const STEPS = ["backup", "fetch", "install", "build", "assets", "switch", "restart"] as const;

class StepFailed extends Error {}

/**
 * A server set up by the earlier guide runs the checkout's own build: it becomes the first release,
 * by hard links (its build and node_modules are not copied), and `current` points at it.
 */
export async function adoptCheckoutBuild(context: UpdateContext, state: ReleaseState): Promise<string> {
  const { checkout } = context;
  const commit = await git(checkout, ["rev-parse", "HEAD"], context.run);
  const name = await git(checkout, ["rev-parse", "--short", "HEAD"], context.run);
  for (const needed of ["build/server/index.js", "node_modules"]) {
    await fs.access(path.join(checkout, needed)).catch(() => {
      throw new Error(`${path.join(checkout, needed)} is missing: run npm ci and npm run build in ${checkout} first`);
    });
  }
  const dir = releaseDir(checkout, name);
  await fs.rm(dir, { recursive: true, force: true });
  await exportCommit(checkout, commit, dir);
  await linkCopy(path.join(checkout, "build"), path.join(dir, "build"), context.run);
  await linkCopy(path.join(checkout, "node_modules"), path.join(dir, "node_modules"), context.run);
  state.history.push({ name, commit, liveSince: context.clock.now().toISOString(), backup: null });
  state.checkoutModulesLock ??= await lockFileHash(checkout);
  await writeState(checkout, state);
  await switchCurrent(checkout, name);
  context.log(
    `  ${path.join(checkout, "build")} is now release ${name} (releases/${name}/), and current points at it.`,
  );
  return name;
}

/** The unit and Caddyfile lines this server still needs; written when root may. Returns whether the restart may go ahead. */
async function convertServiceFiles(
  context: UpdateContext,
  plan: ServicePlan,
): Promise<{ proceed: boolean; restartCommand?: string }> {
  const items = [plan.unit, plan.socket, plan.caddy].filter((item) => item !== null);
  if (!items.length) return { proceed: true };
  context.log("This server was set up before releases: these lines change (docs/DEPLOY.md, step 11):");
  for (const line of describePlan(plan)) context.log(line);
  const writable = await Promise.all(items.map((item) => mayWrite(item.file)));
  if (!writable.every(Boolean)) {
    context.log("Not changed: this runs as a user who may not write them. Change them as root, then:");
    context.log(
      `  systemctl daemon-reload && systemctl stop cornerstone && systemctl start cornerstone${plan.caddy ? " && systemctl reload caddy" : ""}`,
    );
    // Under systemd the old unit would start the old build again: the restart waits for the change.
    return { proceed: context.restartCommand !== null };
  }
  for (const item of items) {
    const before = await fs.readFile(item.file, "utf8").catch(() => null);
    await fs.writeFile(item.file, item.text);
    if (item === plan.caddy) {
      const checked = await context.run(["caddy", "adapt", "--config", item.file, "--adapter", "caddyfile"], {
        cwd: context.checkout,
        quiet: true,
      });
      if (checked.status !== 0) {
        if (before !== null) await fs.writeFile(item.file, before);
        context.log(
          `  Caddy does not accept the changed ${item.file}, so it was left as it was: ${checked.output.trim().split("\n").at(-1)}`,
        );
        continue;
      }
    }
    context.log(`  Changed ${item.file}.`);
  }
  if (context.restartCommand !== null) {
    context.log("  Reload your service manager and Caddy for them to take effect.");
    return { proceed: true };
  }
  for (const command of [
    "systemctl daemon-reload",
    ...(plan.socket ? ["systemctl enable cornerstone.socket"] : []),
    ...(plan.caddy ? ["systemctl reload caddy"] : []),
  ]) {
    await context.run(shell(command), { cwd: context.checkout });
  }
  // The socket can only take the port once the old process has let it go.
  return {
    proceed: true,
    restartCommand: plan.unit || plan.socket ? "systemctl stop cornerstone && systemctl start cornerstone" : undefined,
  };
}

export async function runUpdate(context: UpdateContext, options: { noRestart: boolean }): Promise<number> {
  const { checkout, log } = context;
  const state = await readState(checkout);
  let live = await liveRelease(checkout);
  if (live === null) {
    log("First update here: the build this server runs becomes the first release.");
    try {
      live = await adoptCheckoutBuild(context, state);
    } catch (error) {
      log(
        `Preparing failed: ${(error as Error).message}. Nothing was changed on the live site. (exit code ${EXIT.prepare})`,
      );
      return EXIT.prepare;
    }
  }
  const liveDir = releaseDir(checkout, live);
  const liveRecord = state.history.findLast((record) => record.name === live);
  const liveCommit = liveRecord?.commit ?? (await git(checkout, ["rev-parse", "HEAD"], context.run));
  const headBefore = await git(checkout, ["rev-parse", "HEAD"], context.run);
  let step = 0;
  let newName: string | null = null;
  const begin = (title: string) => {
    step += 1;
    log(`Step ${step} of ${STEPS.length}, ${STEPS[step - 1]}: ${title}`);
  };
  const check = (result: { status: number }, what: string) => {
    if (result.status !== 0) throw new StepFailed(`${what} exited with ${result.status}`);
  };

  // The new code and its dependencies' install scripts run as the service's user, never as root.
  const builder = context.dataDirUser;
  log(
    builder
      ? `As ${builder} (DATA_DIR's owner): the backup, npm ci and the build; as root: git, the switch and the restart.`
      : `Everything runs as ${os.userInfo().username}.`,
  );
  const removeRelease = async (dir: string) => {
    if (builder) await takeBack(dir, context.run).catch(() => {});
    await fs.rm(dir, { recursive: true, force: true });
  };
  let backup: string | null = null;
  try {
    begin(`npm run backup${context.envFile ? ` -- --env-file ${context.envFile}` : ""}`);
    const backedUp = await context.run(["npm", "run", "backup", "--", ...envFileArgs(context)], {
      cwd: liveDir,
      asUser: context.dataDirUser,
    });
    check(backedUp, "npm run backup");
    backup = /Backup written: (\S+)/.exec(backedUp.output)?.[1] ?? null;
    if (!backup) throw new StepFailed("npm run backup did not say where it wrote the backup");
    log(`  The backup taken before this update: ${backup}`);

    begin("git pull --ff-only");
    check(await context.run(["git", "pull", "--ff-only"], { cwd: checkout }), "git pull --ff-only");
    const commit = await git(checkout, ["rev-parse", "HEAD"], context.run);
    newName = await git(checkout, ["rev-parse", "--short", "HEAD"], context.run);
    if (commit === liveCommit || newName === live) {
      log(`Already up to date: ${live} is live. Nothing else to do.`);
      return EXIT.ok;
    }
    const newDir = releaseDir(checkout, newName);
    await removeRelease(newDir);
    await exportCommit(checkout, commit, newDir);
    // The builder may write the release's top folder and node_modules (npm's cache, Vite's temporary files), nothing of root's.
    const handOver = async (dir: string) => {
      if (builder)
        check(await context.run(["chown", `${builder}:`, dir], { cwd: "/", quiet: true }), `chown ${builder}: ${dir}`);
    };
    await handOver(newDir);
    log(`  ${commit.slice(0, 12)} is in releases/${newName}/`);
    const asBuilder = { cwd: newDir, asUser: builder, env: { npm_config_cache: path.join(newDir, ".npm-cache") } };

    begin("node_modules");
    if ((await lockFileHash(liveDir)) === (await lockFileHash(newDir))) {
      await linkCopy(path.join(liveDir, "node_modules"), path.join(newDir, "node_modules"), context.run);
      await handOver(path.join(newDir, "node_modules"));
      log(`  package-lock.json is unchanged: node_modules are ${live}'s, hard-linked (no download, no extra room).`);
    } else {
      log("  package-lock.json changed: npm ci");
      check(await context.run(["npm", "ci", "--include=dev", "--no-audit", "--no-fund"], asBuilder), "npm ci");
    }

    begin("npm run build");
    check(await context.run(["npm", "run", "build"], asBuilder), "npm run build");
    if (builder) await takeBack(newDir, context.run);
    await fs.rm(asBuilder.env.npm_config_cache, { recursive: true, force: true });

    begin(`the hashed assets of ${live}`);
    const carried = await carryAssets(liveDir, newDir, context.clock.now());
    log(
      `  Copied ${carried.copied} of ${live}'s assets (pages it served keep their scripts)${carried.expired.length ? `; ${carried.expired.length} older than 7 days left behind` : ""}.`,
    );

    begin(`current → releases/${newName}`);
    state.history.push({ name: newName, commit, liveSince: context.clock.now().toISOString(), backup });
    await writeState(checkout, state);
    await switchCurrent(checkout, newName);
  } catch (error) {
    const message = error instanceof StepFailed ? error.message : (error as Error).message;
    log(`Step ${step} of ${STEPS.length} (${STEPS[step - 1]}) failed: ${message}.`);
    if (newName && newName !== live) await removeRelease(releaseDir(checkout, newName));
    state.history = state.history.filter((record) => record.name !== newName);
    await writeState(checkout, state).catch(() => {});
    await switchCurrent(checkout, live).catch(() => {});
    await resetCheckout(context, headBefore).catch(() => {});
    log(`Nothing was switched: ${live} is still live. (exit code ${EXIT[STEPS[step - 1]!]})`);
    return EXIT[STEPS[step - 1]!];
  }

  const plan = await planServiceFiles(checkout, context.serviceFiles, context.listen);
  const converted = await convertServiceFiles(context, plan);
  if (options.noRestart || !converted.proceed) {
    await syncCheckoutModules(context, state, newName);
    log(
      `Switched: ${newName} is current. Not restarted${options.noRestart ? " (--no-restart)" : ""}: run ${converted.restartCommand ?? context.restartCommand ?? SYSTEMD_RESTART} to serve it.`,
    );
    return EXIT.ok;
  }

  begin("the service");
  const outcome = await restartAndCheck(context, { command: converted.restartCommand });
  const previous = { name: live, commit: liveCommit };
  if (outcome === "restart-failed") {
    log(`Step 7 of 7 (restart) failed: the restart command did not succeed. Switching back to ${live}.`);
    return switchBack(context, state, { from: newName, to: previous, backup, failure: EXIT.restart });
  }
  if (outcome === "unhealthy") {
    log(
      `${newName} did not answer ${context.healthUrl} with 200 within ${Math.round(context.healthTimeoutMs / 1000)} s. Switching back to ${live}.`,
    );
    return switchBack(context, state, { from: newName, to: previous, backup, failure: EXIT.unhealthy });
  }
  const removed = await pruneReleases(checkout, state, newName);
  await syncCheckoutModules(context, state, newName);
  log(
    `Updated: ${newName} is live (it was ${live}).${removed.length ? ` Deleted the older release(s) ${removed.join(", ")}.` : ""}`,
  );
  log(`The backup taken before: ${backup}`);
  return EXIT.ok;
}
