/** The system Chromium (Debian's package) and the flags it needs on these machines; nothing is downloaded. */
export const CHROMIUM_PATH = process.env.CHROMIUM_PATH || "/usr/bin/chromium";

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
