// Whether `npm start` may serve the build on disk as it is (decision 0050): the build is
// kept when it is newer than every input it was made from, so an unchanged checkout starts at once.
import fs from "node:fs";
import path from "node:path";

/** Folders whose every file goes into the build. */
const SOURCE_FOLDERS = ["app", "server", "public"];
/** Single files that change what the build makes: the lock file and the build's configuration. */
const BUILD_INPUT_FILES = [
  "package-lock.json",
  "package.json",
  "vite.config.ts",
  "react-router.config.ts",
  "tsconfig.json",
  "scripts/precompress-assets.mjs",
];
/** The server bundle, written last by `react-router build`. */
const SERVER_ENTRY = "build/server/index.js";
/** The client's bundles, written before the server's (their precompressed copies come later). */
const CLIENT_ASSETS = "build/client/assets";

function mtimeOf(file) {
  try {
    return fs.statSync(file).mtimeMs;
  } catch {
    return null;
  }
}

/** The newest input file under `root`, with its modification time. */
function newestInput(root) {
  let newest = { file: null, mtimeMs: -Infinity };
  const consider = (file) => {
    const mtimeMs = mtimeOf(file);
    if (mtimeMs !== null && mtimeMs > newest.mtimeMs) newest = { file, mtimeMs };
  };
  for (const file of BUILD_INPUT_FILES) consider(path.join(root, file));
  for (const folder of SOURCE_FOLDERS) {
    const entries = fs.readdirSync(path.join(root, folder), { recursive: true, withFileTypes: true });
    for (const entry of entries) if (entry.isFile()) consider(path.join(entry.parentPath, entry.name));
  }
  return newest;
}

/**
 * Why the build under `root` must be made again, or null when the one on disk is newer than
 * every input (then `npm start` skips the build).
 */
export function rebuildReason(root) {
  const serverEntry = mtimeOf(path.join(root, SERVER_ENTRY));
  let assets = [];
  try {
    assets = fs.readdirSync(path.join(root, CLIENT_ASSETS)).filter((name) => !/\.(?:br|gz)$/.test(name));
  } catch {
    // No client build.
  }
  if (serverEntry === null || assets.length === 0) return "there is no complete build yet";
  // The build's oldest output: every input older than that went into it.
  const builtAt = Math.min(
    serverEntry,
    ...assets.map((name) => mtimeOf(path.join(root, CLIENT_ASSETS, name)) ?? -Infinity),
  );
  const newest = newestInput(root);
  if (newest.mtimeMs >= builtAt) return `${path.relative(root, newest.file)} changed after the last build`;
  return null;
}
