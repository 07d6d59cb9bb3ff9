// node scripts/build-checked.mjs: `npm run build`, then fails if it printed anything a clean build
// does not (a warning). `npm test` builds this way, so a new warning fails the test run.
import { spawn } from "node:child_process";
import { buildWarnings } from "./lib/build-log.mjs";

const child = spawn("npm", ["run", "build"], {
  stdio: ["ignore", "pipe", "pipe"],
  env: { ...process.env, FORCE_COLOR: "0" },
});
let output = "";
for (const stream of [child.stdout, child.stderr]) {
  stream.on("data", (chunk) => {
    output += chunk;
    (stream === child.stdout ? process.stdout : process.stderr).write(chunk);
  });
}
const status = await new Promise((resolve) => child.once("close", resolve));
if (status !== 0) process.exit(status ?? 1);
const warnings = buildWarnings(output);
if (warnings.length) {
  console.error(
    `\nThe build printed ${warnings.length} line(s) a clean build does not (warnings: fix each, or silence it with its reason in vite.config.ts or react-router.config.ts):`,
  );
  for (const line of warnings) console.error(`  ${line}`);
  process.exit(1);
}
console.log("The build printed no warnings.");
