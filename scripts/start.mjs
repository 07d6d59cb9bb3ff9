// npm start: builds when the build on disk is missing or older than its inputs (app/, server/,
// public/, package-lock.json, the build configuration), then `npm run serve` (package.json) serves it.
// An unchanged checkout starts without the ~45 s build (decision 0050). In a deployed
// checkout with releases (current/, made by `npm run update`), serve runs the live release: no build here.
import { existsSync } from "node:fs";
import { spawnSync } from "node:child_process";
import { rebuildReason } from "./lib/build-freshness.mjs";

if (existsSync("current")) {
  console.log("Serving the live release in current/ (npm run update makes it): not building build/.");
  process.exit(0);
}
const reason = rebuildReason(process.cwd());
if (reason === null) {
  console.log(
    "The build in build/ is newer than every file it is made from: not building again (npm run build forces it).",
  );
} else {
  console.log(`Building, as ${reason}.`);
  const result = spawnSync("npm", ["run", "build"], { stdio: "inherit" });
  if (result.status !== 0) process.exit(result.status ?? 1);
}
