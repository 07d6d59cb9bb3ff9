import { createRequire } from "node:module";
import { fileURLToPath, pathToFileURL } from "node:url";
import type { ImageWorkerEntry } from "~/images/image-worker.server";

/**
 * A child process's entry (`file` beside this one) run from its TypeScript source with tsx's
 * loader: for `npm run dev`, Vitest and scripts. Production uses the built files instead
 * (server/index.ts). Never imported by the production bundle: tsx is a development dependency.
 */
export function entryFromSource(file: string): { file: string; execArgv: string[] } {
  const tsx = createRequire(import.meta.url).resolve("tsx");
  return { file: fileURLToPath(new URL(file, import.meta.url)), execArgv: ["--import", pathToFileURL(tsx).href] };
}

/** The image worker from its source. */
export const imageWorkerFromSource = (): ImageWorkerEntry => entryFromSource("./image-worker.ts");
