// Development entry (npm run dev): Vite serves the app with hot reload.
import type { ServerBuild } from "react-router";
import { createServer } from "vite";
import { imageWorkerFromSource, offsiteCopyFromSource } from "./child-process-sources";
import { startServer } from "./start";

const vite = await createServer({ server: { middlewareMode: true }, appType: "custom" });

await startServer({
  build: () => vite.ssrLoadModule("virtual:react-router/server-build") as Promise<ServerBuild>,
  mode: "development",
  devMiddleware: vite.middlewares,
  imageWorker: imageWorkerFromSource(),
  offsiteCopy: offsiteCopyFromSource(),
});
