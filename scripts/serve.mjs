// npm run serve: the production server. In a deployed checkout where `npm run update` keeps releases,
// it serves the live one (current/, docs/DEPLOY.md step 11); anywhere else this checkout's own build/.
import { existsSync, realpathSync } from "node:fs";
import path from "node:path";
import { fileURLToPath, pathToFileURL } from "node:url";

const SERVER_ENTRY = "build/server/index.js";
const checkout = path.resolve(path.dirname(fileURLToPath(import.meta.url)), "..");
const current = path.join(checkout, "current");
const released = existsSync(current);
const entry = path.join(released ? current : checkout, SERVER_ENTRY);
if (!existsSync(entry)) {
  console.error(
    released
      ? `The live release has no build (${entry} is missing): run npm run update, or npm run update -- --rollback.`
      : `There is no build to serve (${entry} is missing): run npm run build first, or npm start.`,
  );
  process.exit(1);
}
// By its real path: the release keeps serving its own assets and worker after `current` moves on.
await import(pathToFileURL(realpathSync(entry)).href);
