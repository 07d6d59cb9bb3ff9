import { defineConfig } from "@playwright/test";
import { CHROMIUM_FLAGS, CHROMIUM_PATH } from "../support/chromium";

/**
 * `npm run screens`: the owner's screens at phone size, saved under
 * docs/screens/ so that a change to them shows in review. Not part of
 * `npm test` (it writes files instead of checking them).
 */
export default defineConfig({
  testDir: ".",
  globalSetup: "../support/global-setup.ts",
  timeout: 120_000,
  expect: { timeout: 15_000 },
  workers: 1,
  retries: 0,
  forbidOnly: true,
  reporter: [["list"]],
  use: {
    launchOptions: { executablePath: CHROMIUM_PATH, args: CHROMIUM_FLAGS },
    viewport: { width: 390, height: 844 },
    isMobile: true,
    hasTouch: true,
    userAgent:
      "Mozilla/5.0 (Linux; Android 14; Pixel 7) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/156.0.0.0 Mobile Safari/537.36",
  },
  projects: [{ name: "phone" }],
});
