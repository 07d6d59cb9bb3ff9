// The real server (server/start.ts: logger, request logging, shutdown) on the stand-in React Router
// build, run as a child process by the tests that need a whole process: `node --import tsx <this file>`.
import { imageWorkerFromSource, offsiteCopyFromSource } from "../../server/child-process-sources";
import { startServer } from "../../server/start";
import { fakeReactRouterBuild } from "./fake-react-router-build";

await startServer({
  build: fakeReactRouterBuild({ html: () => "<!doctype html><title>Page</title><p>A page</p>" }),
  mode: "production",
  imageWorker: imageWorkerFromSource(),
  offsiteCopy: offsiteCopyFromSource(),
});
