/**
 * Step 5 of `npm run update`: the live release's hashed assets are copied into the new release, so a
 * page the old server sent just before the restart still finds its scripts on the new server. Names
 * carry a hash of their content and never collide; a name the new build has already is its own file.
 * Each copied asset expires 7 days after it was last live (the last time a live release built it):
 * the first update after that leaves it behind.
 *
 * Plain JavaScript, run by `node` as the service's user (`node assets.mjs LIVE NEXT NOW`, printing
 * the outcome as JSON): both releases are that user's, so root never reads or writes through them.
 */
import fs from "node:fs/promises";
import path from "node:path";
import { fileURLToPath } from "node:url";

/** Where a build keeps its hashed assets (served under /assets/ with a year's immutable caching). */
const ASSETS_DIR = "build/client/assets";
/** In the release's folder (not under build/client, which is served): each carried asset's last time live. */
const CARRIED_FILE = ".carried-assets.json";
const CARRIED_ASSET_LIFETIME_MS = 7 * 24 * 60 * 60 * 1000;

/** @param {string} release @returns {Promise<Record<string, string>>} */
async function readCarried(release) {
  try {
    return JSON.parse(await fs.readFile(path.join(release, CARRIED_FILE), "utf8"));
  } catch (error) {
    if (error.code === "ENOENT") return {};
    throw error;
  }
}

/**
 * Copies `live`'s assets into `next` (both release folders): its own ones, live until now, and those
 * it carried itself from earlier releases while they are younger than CARRIED_ASSET_LIFETIME_MS.
 * @param {string} live @param {string} next @param {Date} now
 */
async function carryAssets(live, next, now) {
  const nextAssets = path.join(next, ASSETS_DIR);
  const own = new Set(
    await fs.readdir(nextAssets).catch((error) => {
      if (error.code === "ENOENT") throw new Error(`the new build has no ${ASSETS_DIR} (did npm run build finish?)`);
      throw error;
    }),
  );
  const liveAssets = path.join(live, ASSETS_DIR);
  const liveCarried = await readCarried(live);
  /** @type {Record<string, string>} */
  const carried = {};
  const expired = [];
  let copied = 0;
  let kept = 0;
  // Files only, never through a link a build left (it could point anywhere).
  const liveFiles = (await fs.readdir(liveAssets, { withFileTypes: true }).catch(() => [])).filter((entry) =>
    entry.isFile(),
  );
  for (const name of liveFiles.map((entry) => entry.name).sort()) {
    if (own.has(name)) {
      kept += 1;
      continue;
    }
    const lastLive = liveCarried[name] ?? now.toISOString();
    if (new Date(lastLive).getTime() + CARRIED_ASSET_LIFETIME_MS <= now.getTime()) {
      expired.push(name);
      continue;
    }
    await fs.copyFile(path.join(liveAssets, name), path.join(nextAssets, name));
    carried[name] = lastLive;
    copied += 1;
  }
  // A link a build left in its place is replaced, not written through.
  await fs.rm(path.join(next, CARRIED_FILE), { force: true });
  await fs.writeFile(path.join(next, CARRIED_FILE), `${JSON.stringify(carried, null, 2)}\n`);
  return { copied, kept, expired };
}

if (process.argv[1] === fileURLToPath(import.meta.url)) {
  const [live, next, now] = process.argv.slice(2);
  carryAssets(live, next, new Date(now)).then(
    (outcome) => console.log(JSON.stringify(outcome)),
    (error) => {
      console.error(error.message);
      process.exit(1);
    },
  );
}
