// The lines a clean `npm run build` prints; anything else is a warning a new user would see
// (the build prints none). Used by scripts/build-checked.mjs, which `npm test` runs.

/** Every line of a clean build, by shape (ANSI colours removed first). */
const CLEAN_LINES = [
  /^$/,
  // npm's own header: "> cornerstone@1.0.0 build" and the command it runs.
  /^> /,
  /^vite v[\d.]+ building \w+ environment for production\.\.\.$/,
  /^transforming\.\.\.$/,
  /^✓ \d+ modules transformed\.$/,
  /^rendering chunks\.\.\.$/,
  /^computing gzip size\.\.\.$/,
  /^build\/\S+\s+[\d.,]+ kB(?:\s*│\s*gzip:\s*[\d.,]+ kB)?(?:\s*│\s*map:\s*[\d.,]+ kB)?$/,
  /^✓ built in (\d+m )?[\d.]+m?s$/, // "744ms", "16.93s", "1m 4s" on a slow machine
  /^precompressed \d+ assets: .+$/,
];

// Colour codes (ESC [ … m), which the tools print even when asked not to.
// eslint-disable-next-line no-control-regex -- the escape character is what is matched
const ANSI = /\u001b\[[0-9;]*m/g;

/** The lines of `output` that a clean build does not print (its warnings), without colours. */
export function buildWarnings(output) {
  return output
    .split(/\r?\n/)
    .map((line) => line.replace(ANSI, "").trim())
    .filter((line) => !CLEAN_LINES.some((shape) => shape.test(line)));
}
