/**
 * `npm run update -- --rollback`: back to the release that was live before this one. Refused when
 * the database has had a migration since, which the earlier release does not know (it would refuse
 * to start on it): the message names the backup taken before the update, which brings the data back.
 */
import path from "node:path";
import { EXIT, envFileArgs, migrationsUnknownTo, restartAndCheck, switchBack, type UpdateContext } from "./context";
import { liveRelease, previousRelease, readState, releaseDir, switchCurrent, writeState } from "./layout";

export async function runRollback(context: UpdateContext): Promise<number> {
  const { checkout, log } = context;
  const live = await liveRelease(checkout);
  const state = await readState(checkout);
  const previous = live ? await previousRelease(checkout, state, live) : null;
  if (!live || !previous) {
    log(
      `There is no earlier release to go back to${live ? `: ${live} is the only one in ${path.join(checkout, "releases")}` : " (npm run update has not made any yet)"}.`,
    );
    return EXIT.nothingToRollBackTo;
  }
  const liveRecord = state.history.findLast((record) => record.name === live);
  const changed = await migrationsUnknownTo(context, releaseDir(checkout, live), releaseDir(checkout, previous.name));
  if ("error" in changed) {
    log(
      `Not going back: could not read the database's migrations, to tell whether ${previous.name} may run on it (${changed.error}).`,
    );
    return EXIT.rollbackRefused;
  }
  if (changed.names.length) {
    const backup = liveRecord?.backup;
    const runAs = context.dataDirUser ? `runuser -u ${context.dataDirUser} -- ` : "";
    const env = envFileArgs(context).join(" ");
    log(
      `Not going back to ${previous.name}: since it was live the database had ${changed.names.join(", ")}, which ${previous.name} does not know ` +
        `(it would refuse to start). ${backup ? `The backup taken just before the update, ${backup}, has the data as ${previous.name} knew them` : "No backup from before the update is on record"}.`,
    );
    if (backup) {
      log("To go back with that backup (what changed since it was taken is lost), as root:");
      log("  systemctl stop cornerstone");
      log(`  cd ${releaseDir(checkout, previous.name)}`);
      log(`  ${runAs}npm run restore -- ${backup}${env ? ` ${env}` : ""}`);
      log(`  cd ${checkout}`);
      log(`  npm run update -- --rollback${env ? ` ${env}` : ""}`);
    }
    return EXIT.rollbackRefused;
  }

  log(`Going back to ${previous.name} (from ${live}).`);
  await switchCurrent(checkout, previous.name);
  state.history = state.history.filter((record) => record.name !== live);
  await writeState(checkout, state);
  const outcome = await restartAndCheck(context);
  if (outcome !== "healthy") {
    log(
      `${previous.name} did not ${outcome === "restart-failed" ? "restart" : `answer ${context.healthUrl} in time`}: switching back to ${live}.`,
    );
    state.history.push(
      liveRecord ?? { name: live, commit: previous.commit, liveSince: context.clock.now().toISOString(), backup: null },
    );
    return switchBack(context, state, {
      from: previous.name,
      to: { name: live, commit: liveRecord?.commit ?? previous.commit },
      backup: null,
      failure: outcome === "restart-failed" ? EXIT.restart : EXIT.unhealthy,
      returningToNewer: true,
    });
  }
  log(`Rolled back: ${previous.name} is live. ${live} stays in releases/ until the next update.`);
  return EXIT.ok;
}
