import fs from "node:fs";
import path from "node:path";

/** Everything the site writes is for the service's user alone (originals may carry GPS positions). */
const PRIVATE_UMASK = 0o077;
export const PRIVATE_DIR_MODE = 0o700;
export const PRIVATE_FILE_MODE = 0o600;

/**
 * Umask 077, then DATA_DIR and everything in it 0700/0600, at every start, so a restored copy is tightened
 * too; symbolic links are never followed. Returns how many modes it changed.
 */
export function makeDataDirPrivate(dataDir: string): number {
  process.umask(PRIVATE_UMASK);
  fs.mkdirSync(dataDir, { recursive: true, mode: PRIVATE_DIR_MODE });
  let changed = 0;
  // A running server renames its temp files away meanwhile (a script such as the backup runs beside it).
  const unlessGone = <T>(step: () => T): T | [] => {
    try {
      return step();
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code === "ENOENT") return [];
      throw error;
    }
  };
  const tighten = (target: string, mode: number) =>
    unlessGone(() => {
      if ((fs.lstatSync(target).mode & 0o777) === mode) return;
      fs.chmodSync(target, mode);
      changed += 1;
    });
  const walk = (dir: string) => {
    tighten(dir, PRIVATE_DIR_MODE);
    for (const entry of unlessGone(() => fs.readdirSync(dir, { withFileTypes: true }))) {
      const target = path.join(dir, entry.name);
      if (entry.isDirectory()) walk(target);
      else if (entry.isFile()) tighten(target, PRIVATE_FILE_MODE);
    }
  };
  walk(dataDir);
  return changed;
}
