/** Why the build under `root` must be made again, or null when the one on disk is newer than every input. */
export function rebuildReason(root: string): string | null;
