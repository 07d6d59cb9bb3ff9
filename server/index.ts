// Production entry. Vite bundles this file with the React Router build, so the
// API and the pages share one module graph (see docs/decisions/0002).
import path from "node:path";
import { fileURLToPath } from "node:url";
import * as build from "virtual:react-router/server-build";
import { startServer } from "./start";

await startServer({
  build,
  mode: "production",
  clientAssetsDir: path.resolve(path.dirname(fileURLToPath(import.meta.url)), "../client"),
  // Built beside this bundle from server/image-worker.ts (vite.config.ts).
  imageWorker: { file: fileURLToPath(new URL("./image-worker.js", import.meta.url)), execArgv: [] },
  offsiteCopy: { file: fileURLToPath(new URL("./offsite-copy.js", import.meta.url)), execArgv: [] },
});
