import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { SEED_CACHE_ENV } from "./seed";

/**
 * The browser tests run against the production build; `npm test` builds it first. The run's seeded
 * data directories are kept for its workers to copy (tests/support/seed.ts), and removed at its end.
 */
export default function globalSetup() {
  if (!fs.existsSync("build/server/index.js")) {
    throw new Error("No production build found. Run `npm run build` first (npm test does this for you).");
  }
  const cache = fs.mkdtempSync(path.join(os.tmpdir(), "cornerstone-seeds-"));
  process.env[SEED_CACHE_ENV] = cache;
  return () => fs.rmSync(cache, { recursive: true, force: true });
}
