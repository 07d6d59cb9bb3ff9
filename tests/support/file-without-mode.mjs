// Preloaded (NODE_OPTIONS=--import) into a script by the file-mode tests: on exit, creates
// UNMODED_FILE with no mode given, as any library inside the script might, so its mode shows the
// umask the script runs under.
import { writeFileSync } from "node:fs";

process.on("exit", () => {
  if (process.env.UNMODED_FILE) writeFileSync(process.env.UNMODED_FILE, "made without a mode");
});
