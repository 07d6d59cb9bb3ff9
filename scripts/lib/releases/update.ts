/**
 * `npm run update`: the seven steps, in order (docs/DEPLOY.md, step 11; decision 0059). A step
 * that fails stops the update with its own exit code and names the step; until step 6 nothing the
 * live site uses has changed, and after it a failed restart or health check switches back.
 */
import fs from "node:fs/promises";
import os from "node:os";
import path from "node:path";
import { existsSync } from "node:fs";
import { fileURLToPath } from "node:url";
import { exportCommit, git, linkCopy, shell } from "./commands";
import { EXIT, SYSTEMD_RESTART, envFileArgs, restartAndCheck, switchBack, type UpdateContext } from "./context";
import {
  liveRelease,
  lockFileHash,
  pruneReleases,
  readState,
  releaseDir,
  releasesDir,
  sourceMirror,
  switchCurrent,
  writeState,
  type ReleaseState,
} from "./layout";
import { describePlan, mayWrite, planServiceFiles, type ServicePlan } from "./service-files";

const STEPS = ["backup", "fetch", "install", "build", "assets", "switch", "restart"] as const;

class StepFailed extends Error {}

const CARRY_ASSETS_SCRIPT = fileURLToPath(new URL("./assets.mjs", import.meta.url));

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
  await fs.mkdir(dir, { recursive: true });
  await exportCommit(checkout, commit, dir);
  await linkCopy(path.join(checkout, "build"), path.join(dir, "build"), context.run);
  await linkCopy(path.join(checkout, "node_modules"), path.join(dir, "node_modules"), context.run);
  state.history.push({ name, commit, liveSince: context.clock.now().toISOString(), backup: null });
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
  let step = 0;
  let newName: string | null = null;
  const begin = (title: string) => {
    step += 1;
    log(`Step ${step} of ${STEPS.length}, ${STEPS[step - 1]}: ${title}`);
  };
  const check = (result: { status: number }, what: string) => {
    if (result.status !== 0) throw new StepFailed(`${what} exited with ${result.status}`);
  };

  // What an update fetched runs only as the service's user; root runs nothing but its own checkout's code.
  const builder = context.dataDirUser;
  log(
    builder
      ? `As ${builder} (DATA_DIR's owner): the backup, git fetch, npm ci and the build; as root: the switch and the restart.`
      : `Everything runs as ${os.userInfo().username}.`,
  );
  const asBuilder = (cwd: string) => ({ cwd, asUser: builder, quiet: true });
  // The builder may write what root made for it: each folder is made in root's releases/ and handed over.
  const handOver = async (dir: string) => {
    if (builder)
      check(await context.run(["chown", `${builder}:`, dir], { cwd: "/", quiet: true }), `chown ${builder}: ${dir}`);
  };
  const removeRelease = async (dir: string) => {
    if (builder) await context.run(["rm", "-rf", "--", dir], asBuilder("/"));
    await fs.rm(dir, { recursive: true, force: true });
  };
  let backup: string | null = null;
  try {
    begin(`npm run backup${context.envFile ? ` -- --env-file ${context.envFile}` : ""}`);
    const backedUp = await context.run(["npm", "run", "backup", "--", ...envFileArgs(context)], {
      cwd: liveDir,
      asUser: builder,
    });
    check(backedUp, "npm run backup");
    backup = /Backup written: (\S+)/.exec(backedUp.output)?.[1] ?? null;
    if (!backup) throw new StepFailed("npm run backup did not say where it wrote the backup");
    log(`  The backup taken before this update: ${backup}`);

    // Into the builder's own copy of the repository: the checkout, whose code root runs, stays as it is.
    begin("git fetch, into releases/.source.git");
    const origin = await git(checkout, ["remote", "get-url", "origin"], context.run);
    const branch = await git(checkout, ["symbolic-ref", "--short", "HEAD"], context.run);
    const mirror = sourceMirror(checkout);
    if (!existsSync(path.join(mirror, "HEAD"))) {
      await fs.mkdir(mirror, { recursive: true });
      await handOver(mirror);
      check(await context.run(["git", "init", "--quiet", "--bare", mirror], asBuilder("/")), "git init --bare");
    }
    const fetched = await context.run(
      ["git", "fetch", "--quiet", "--no-tags", origin, `+refs/heads/${branch}:refs/heads/${branch}`],
      asBuilder(mirror),
    );
    if (fetched.status !== 0) throw new StepFailed(`git fetch failed: ${fetched.output.trim()}`);
    const commit = await git(mirror, ["rev-parse", `refs/heads/${branch}`], context.run, builder);
    newName = await git(mirror, ["rev-parse", "--short", commit], context.run, builder);
    if (commit === liveCommit || newName === live) {
      log(`Already up to date: ${live} is live. Nothing else to do.`);
      return EXIT.ok;
    }
    const forward = await context.run(["git", "merge-base", "--is-ancestor", liveCommit, commit], asBuilder(mirror));
    if (forward.status !== 0)
      throw new StepFailed(
        `${branch} no longer follows on from the live commit ${liveCommit.slice(0, 12)} (its history was rewritten)`,
      );
    const newDir = releaseDir(checkout, newName);
    await removeRelease(newDir);
    await fs.mkdir(newDir);
    await handOver(newDir);
    await exportCommit(mirror, commit, newDir, builder);
    log(`  ${commit.slice(0, 12)} is in releases/${newName}/`);
    const install = { cwd: newDir, asUser: builder, env: { npm_config_cache: path.join(newDir, ".npm-cache") } };

    begin("node_modules");
    if ((await lockFileHash(liveDir)) === (await lockFileHash(newDir))) {
      // Linked in root's releases/ and moved in whole: nothing is written through a link the builder left.
      const staged = path.join(releasesDir(checkout), `.node_modules-${newName}`);
      await fs.rm(staged, { recursive: true, force: true });
      await linkCopy(path.join(liveDir, "node_modules"), staged, context.run);
      await handOver(staged);
      await fs.rename(staged, path.join(newDir, "node_modules"));
      log(`  package-lock.json is unchanged: node_modules are ${live}'s, hard-linked (no download, no extra room).`);
    } else {
      log("  package-lock.json changed: npm ci");
      check(await context.run(["npm", "ci", "--include=dev", "--no-audit", "--no-fund"], install), "npm ci");
    }

    begin("npm run build");
    check(await context.run(["npm", "run", "build"], install), "npm run build");
    await context.run(["rm", "-rf", "--", install.env.npm_config_cache], asBuilder("/"));

    begin(`the hashed assets of ${live}`);
    // The script is root's copy, in root's releases/, read and run by the builder, whose files both releases are.
    const script = path.join(releasesDir(checkout), ".carry-assets.mjs");
    await fs.copyFile(CARRY_ASSETS_SCRIPT, script);
    const carry = await context.run(
      [process.execPath, script, liveDir, newDir, context.clock.now().toISOString()],
      asBuilder("/"),
    );
    if (carry.status !== 0)
      throw new StepFailed(carry.output.trim() || `copying the assets exited with ${carry.status}`);
    const carried = JSON.parse(carry.output.trim().split("\n").at(-1)!) as { copied: number; expired: string[] };
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
    log(`Nothing was switched: ${live} is still live. (exit code ${EXIT[STEPS[step - 1]!]})`);
    return EXIT[STEPS[step - 1]!];
  }

  const plan = await planServiceFiles(checkout, context.serviceFiles, context.listen);
  const converted = await convertServiceFiles(context, plan);
  if (options.noRestart || !converted.proceed) {
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
  log(
    `Updated: ${newName} is live (it was ${live}).${removed.length ? ` Deleted the older release(s) ${removed.join(", ")}.` : ""}`,
  );
  log(`The backup taken before: ${backup}`);
  return EXIT.ok;
}
