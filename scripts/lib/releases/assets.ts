/**
 * Step 5 of `npm run update`: the live release's hashed assets are copied into the new release, so a
 * page the old server sent just before the restart still finds its scripts on the new server. Names
 * carry a hash of their content and never collide; a name the new build has already is its own file.
 * Each copied asset expires 7 days after it was last live (the last time a live release built it):
 * the first update after that leaves it behind.
 */
import fs from "node:fs/promises";
import path from "node:path";

/** Where a build keeps its hashed assets (served under /assets/ with a year's immutable caching). */
export const ASSETS_DIR = "build/client/assets";
/** In the release's folder (not under build/client, which is served): each carried asset's last time live. */
const CARRIED_FILE = ".carried-assets.json";
export const CARRIED_ASSET_LIFETIME_MS = 7 * 24 * 60 * 60 * 1000;

type Carried = Record<string, string>;

async function readCarried(release: string): Promise<Carried> {
  try {
    return JSON.parse(await fs.readFile(path.join(release, CARRIED_FILE), "utf8")) as Carried;
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === "ENOENT") return {};
    throw error;
  }
}

export type CarriedAssets = { copied: number; kept: number; expired: string[] };

/**
 * Copies `live`'s assets into `next` (both release folders): its own ones, live until now, and those
 * it carried itself from earlier releases while they are younger than CARRIED_ASSET_LIFETIME_MS.
 */
export async function carryAssets(live: string, next: string, now: Date): Promise<CarriedAssets> {
  const nextAssets = path.join(next, ASSETS_DIR);
  const own = new Set(
    await fs.readdir(nextAssets).catch((error: NodeJS.ErrnoException) => {
      if (error.code === "ENOENT") throw new Error(`the new build has no ${ASSETS_DIR} (did npm run build finish?)`);
      throw error;
    }),
  );
  const liveAssets = path.join(live, ASSETS_DIR);
  const liveCarried = await readCarried(live);
  const carried: Carried = {};
  const expired: string[] = [];
  let copied = 0;
  let kept = 0;
  // Root copies files only, never through a link a build left (it could point anywhere).
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
