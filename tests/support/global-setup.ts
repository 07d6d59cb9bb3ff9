import fs from "node:fs";

/** The browser tests run against the production build; `npm test` builds it first. */
export default function globalSetup() {
  if (!fs.existsSync("build/server/index.js")) {
    throw new Error("No production build found. Run `npm run build` first (npm test does this for you).");
  }
}
