import { createRequire } from "node:module";
import { fileURLToPath, pathToFileURL } from "node:url";
import type { ImageWorkerEntry } from "~/images/image-worker.server";

/**
 * The image worker run from its TypeScript source with tsx's loader: for
 * `npm run dev`, Vitest and scripts. Production uses the built file instead
 * (server/index.ts). Never imported by the production bundle: tsx is a
 * development dependency.
 */
export function imageWorkerFromSource(): ImageWorkerEntry {
  const tsx = createRequire(import.meta.url).resolve("tsx");
  return {
    file: fileURLToPath(new URL("./image-worker.ts", import.meta.url)),
    execArgv: ["--import", pathToFileURL(tsx).href],
  };
}
