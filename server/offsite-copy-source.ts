import { createRequire } from "node:module";
import { fileURLToPath, pathToFileURL } from "node:url";
import type { OffsiteCopyEntry } from "~/backups/offsite-copy-process.server";

/**
 * The off-site copy process run from its TypeScript source with tsx's loader:
 * for `npm run dev`, Vitest and scripts. Production forks the built file
 * (server/index.ts). Never imported by the production bundle.
 */
export function offsiteCopyFromSource(): OffsiteCopyEntry {
  const tsx = createRequire(import.meta.url).resolve("tsx");
  return {
    file: fileURLToPath(new URL("./offsite-copy.ts", import.meta.url)),
    execArgv: ["--import", pathToFileURL(tsx).href],
  };
}
