// Preloaded (NODE_OPTIONS=--import) into `npm run restore` by the restore memory tests: on exit,
// writes the process's peak resident memory (maxRSS, in KB) to PEAK_RSS_FILE.
import { writeFileSync } from "node:fs";

process.on("exit", () => {
  if (process.env.PEAK_RSS_FILE) writeFileSync(process.env.PEAK_RSS_FILE, String(process.resourceUsage().maxRSS));
});
