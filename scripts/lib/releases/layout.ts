/**
 * The releases of a deployed checkout (docs/DEPLOY.md, step 11; decision 0059): each one a full copy
 * of the code with its own node_modules and build in releases/<short commit>/, and the link
 * `current` to the live one, which the systemd unit runs. releases/releases.json remembers the order
 * they went live in and the backup taken before each.
 */
import { createHash } from "node:crypto";
import fs from "node:fs/promises";
import path from "node:path";

export const RELEASES_DIR = "releases";
export const CURRENT_LINK = "current";
const STATE_FILE = "releases.json";
/** The live release and the two before it stay; older ones are deleted. */
export const KEEP_RELEASES = 3;
/** How many went-live records the state file keeps. */
const HISTORY_LENGTH = 20;

export type ReleaseRecord = {
  /** The folder's name: the commit, short. */
  name: string;
  commit: string;
  /** When it went live (ISO 8601). */
  liveSince: string;
  /** The backup taken just before it went live (step 1), which brings back the data as the one before it knew them. */
  backup: string | null;
};

export type ReleaseState = {
  /** Oldest first; the live release is the last. */
  history: ReleaseRecord[];
};

export function releasesDir(checkout: string): string {
  return path.join(checkout, RELEASES_DIR);
}

/** The service user's copy of the upstream repository, which step 2 fetches into and exports from. */
export function sourceMirror(checkout: string): string {
  return path.join(checkout, RELEASES_DIR, ".source.git");
}

export function releaseDir(checkout: string, name: string): string {
  return path.join(checkout, RELEASES_DIR, name);
}

/** The live release's folder name, or null before the first `npm run update`. */
export async function liveRelease(checkout: string): Promise<string | null> {
  try {
    return path.basename(await fs.readlink(path.join(checkout, CURRENT_LINK)));
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === "ENOENT") return null;
    throw error;
  }
}

export async function readState(checkout: string): Promise<ReleaseState> {
  try {
    const parsed = JSON.parse(
      await fs.readFile(path.join(releasesDir(checkout), STATE_FILE), "utf8"),
    ) as Partial<ReleaseState>;
    return { history: parsed.history ?? [] };
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === "ENOENT") return { history: [] };
    throw error;
  }
}

/** Written whole, then renamed into place: a crash leaves the old file or the new one. */
export async function writeState(checkout: string, state: ReleaseState): Promise<void> {
  const file = path.join(releasesDir(checkout), STATE_FILE);
  const trimmed = { ...state, history: state.history.slice(-HISTORY_LENGTH) };
  await fs.writeFile(`${file}.next`, `${JSON.stringify(trimmed, null, 2)}\n`);
  await fs.rename(`${file}.next`, file);
}

/**
 * Points `current` at a release in one step: a new link is made beside it and renamed over it, so
 * the link is never missing. Relative, so the checkout can move.
 */
export async function switchCurrent(checkout: string, name: string): Promise<void> {
  const link = path.join(checkout, CURRENT_LINK);
  const next = `${link}.next`;
  await fs.rm(next, { force: true });
  await fs.symlink(path.join(RELEASES_DIR, name), next);
  await fs.rename(next, link);
}

/** The release that went live before the live one, when its folder is still there. */
export async function previousRelease(
  checkout: string,
  state: ReleaseState,
  live: string,
): Promise<ReleaseRecord | null> {
  const earlier = state.history.filter((record) => record.name !== live);
  const previous = earlier.at(-1);
  if (!previous) return null;
  const present = await fs.stat(releaseDir(checkout, previous.name)).then(
    () => true,
    () => false,
  );
  return present ? previous : null;
}

/**
 * Deletes the release folders beyond the last KEEP_RELEASES to have gone live (the live one always
 * stays), and any other release folder there (one switched away from). Returns their names.
 */
export async function pruneReleases(checkout: string, state: ReleaseState, live: string): Promise<string[]> {
  const keep = new Set([live]);
  for (const record of [...state.history].reverse()) {
    if (keep.size >= KEEP_RELEASES) break;
    keep.add(record.name);
  }
  const removed: string[] = [];
  for (const entry of await fs.readdir(releasesDir(checkout), { withFileTypes: true })) {
    if (!entry.isDirectory() || keep.has(entry.name) || entry.name.startsWith(".")) continue;
    await fs.rm(path.join(releasesDir(checkout), entry.name), { recursive: true, force: true });
    removed.push(entry.name);
  }
  return removed.sort();
}

/** SHA-256 of a folder's package-lock.json, or null without one. */
export async function lockFileHash(dir: string): Promise<string | null> {
  try {
    return createHash("sha256")
      .update(await fs.readFile(path.join(dir, "package-lock.json")))
      .digest("hex");
  } catch {
    return null;
  }
}

/** The lock that keeps two `npm run update`s apart: the other one's process id, or how to let go of it. */
export async function takeUpdateLock(checkout: string): Promise<{ heldBy: number } | { release: () => Promise<void> }> {
  const file = path.join(releasesDir(checkout), ".update.lock");
  await fs.mkdir(releasesDir(checkout), { recursive: true });
  for (let attempt = 0; attempt < 2; attempt++) {
    try {
      await fs.writeFile(file, `${process.pid}\n`, { flag: "wx" });
      return { release: () => fs.rm(file, { force: true }) };
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code !== "EEXIST") throw error;
      const holder = Number((await fs.readFile(file, "utf8").catch(() => "")).trim());
      if (holder && isRunning(holder)) return { heldBy: holder };
      // Left by an update that was killed: taken over.
      await fs.rm(file, { force: true });
    }
  }
  throw new Error(`could not take ${file}`);
}

function isRunning(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (error) {
    return (error as NodeJS.ErrnoException).code === "EPERM";
  }
}
