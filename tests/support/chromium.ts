import fs from "node:fs";

/** The system Chromium (Debian's package) and the flags it needs on these machines; nothing is downloaded. */
export const CHROMIUM_PATH = process.env.CHROMIUM_PATH || "/usr/bin/chromium";

/** Debian's `chromium-headless-shell`: the same Chromium release, built for headless use only. */
const HEADLESS_SHELL_PATH = "/usr/bin/chromium-headless-shell";

/**
 * The browser the Playwright tests drive: the headless shell where it is installed (`.ci/run` installs
 * it), as Playwright itself does by default; it has none of the desktop browser's window and UI layer,
 * and used a fifth less CPU over the same spec (docs/decisions/0069). Otherwise CHROMIUM_PATH.
 * `TEST_BROWSER_PATH` chooses another. Lighthouse, the benchmarks and the prerender test keep the full
 * browser (CHROMIUM_PATH): they measure or use what visitors' browsers do.
 */
export const TEST_BROWSER_PATH =
  process.env.TEST_BROWSER_PATH ||
  (fs.existsSync(HEADLESS_SHELL_PATH) && !process.env.CHROMIUM_PATH ? HEADLESS_SHELL_PATH : CHROMIUM_PATH);

export const CHROMIUM_FLAGS = [
  "--no-sandbox",
  "--disable-gpu",
  "--disable-quic",
  "--no-first-run",
  "--disable-background-networking",
  "--disable-component-update",
  "--disable-sync",
  // Nothing but the local server resolves: no stray requests to the internet.
  "--host-resolver-rules=MAP * ~NOTFOUND, EXCLUDE 127.0.0.1",
];
