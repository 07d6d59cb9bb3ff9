import { createRequire } from "node:module";
import { fileURLToPath, pathToFileURL } from "node:url";
import type { ImageWorkerEntry } from "~/images/image-worker.server";

/** A child process's entry run from TypeScript with tsx (dev, tests, scripts); production uses the build. */
export function entryFromSource(file: string): { file: string; execArgv: string[] } {
  const tsx = createRequire(import.meta.url).resolve("tsx");
  return { file: fileURLToPath(new URL(file, import.meta.url)), execArgv: ["--import", pathToFileURL(tsx).href] };
}

/** The image worker, and the off-site copy process, from their source. */
export const imageWorkerFromSource = (): ImageWorkerEntry => entryFromSource("./image-worker.ts");
export const offsiteCopyFromSource = () => entryFromSource("./offsite-copy.ts");
