import { readdirSync, readFileSync } from "node:fs";
import path from "node:path";

/**
 * Where a test file runs is a rule the file states about itself, on a line of its own at its top
 * (docs/TESTING.md): `// @same-on-every-backend`, `// @desktop-only`, `// @phone-only`, each with its reason.
 */
export type FileTag = "@same-on-every-backend" | "@desktop-only" | "@phone-only";

/** The files in `dir` ending in `suffix` whose opening comment lines state `tag`. */
export function filesTagged(dir: string, suffix: string, tag: FileTag): string[] {
  return readdirSync(dir)
    .filter((name) => name.endsWith(suffix))
    .map((name) => path.join(dir, name))
    .filter((file) => {
      const opening = readFileSync(file, "utf8").match(/^(?:\/\/.*\n)*/)![0];
      return opening.split("\n").some((line) => line === `// ${tag}` || line.startsWith(`// ${tag}:`));
    });
}

/** A pattern matching exactly these files, by name, for Playwright's testIgnore. */
export const onlyThese = (files: string[]) =>
  new RegExp(`/(${files.map((file) => path.basename(file).replace(/\./g, "\\.")).join("|") || "(?!)"})$`);
