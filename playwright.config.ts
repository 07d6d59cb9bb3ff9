import fs from "node:fs";
import { defineConfig } from "@playwright/test";
import { CHROMIUM_FLAGS, TEST_BROWSER_PATH } from "./tests/support/chromium";
import { filesTagged, onlyThese } from "./tests/support/file-tags";

const chromiumPath = TEST_BROWSER_PATH;
if (!fs.existsSync(chromiumPath)) {
  // Fail loudly: browser tests are never skipped silently.
  throw new Error(
    `Chromium was not found at ${chromiumPath}.\n` +
      "Install it with:  sudo apt-get update && sudo apt-get install -y chromium chromium-headless-shell\n" +
      "or point TEST_BROWSER_PATH (or CHROMIUM_PATH) at a Chromium or Chrome binary.",
  );
}

/** Specs that run in one project only state it at their top (tests/support/file-tags.ts, docs/TESTING.md). */
const ONCE_ON_DESKTOP = onlyThese(filesTagged("tests/e2e", ".spec.ts", "@desktop-only"));
const ONCE_ON_THE_PHONE = onlyThese(filesTagged("tests/e2e", ".spec.ts", "@phone-only"));

export default defineConfig({
  testDir: "tests/e2e",
  globalSetup: "./tests/support/global-setup.ts",
  timeout: 60_000,
  expect: { timeout: 10_000 },
  fullyParallel: false,
  workers: process.env.PW_WORKERS ? Number(process.env.PW_WORKERS) : 2,
  retries: 0,
  forbidOnly: true,
  reporter: process.env.CI ? [["list"], ["html", { open: "never" }]] : [["list"]],
  use: {
    // A trace costs about a quarter more CPU on every test, passing or not: CI keeps the screenshot and
    // the error context of a failure, and PW_TRACE=retain-on-failure records traces when a failure needs one.
    trace: (process.env.PW_TRACE as "off" | "retain-on-failure" | "on" | undefined) ?? "off",
    screenshot: "only-on-failure",
    launchOptions: {
      executablePath: chromiumPath,
      args: CHROMIUM_FLAGS,
    },
  },
  // The desktop project comes first so that its long server specs (an update, the deployment guide)
  // start early, and the shorter phone specs fill in around them, rather than run alone at the end.
  projects: [
    { name: "desktop", testIgnore: ONCE_ON_THE_PHONE, use: { viewport: { width: 1280, height: 800 } } },
    {
      name: "phone",
      testIgnore: ONCE_ON_DESKTOP,
      use: {
        viewport: { width: 375, height: 812 },
        isMobile: true,
        hasTouch: true,
        userAgent:
          "Mozilla/5.0 (Linux; Android 14; Pixel 7) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/156.0.0.0 Mobile Safari/537.36",
      },
    },
  ],
});
