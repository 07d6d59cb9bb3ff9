import fs from "node:fs";
import { defineConfig } from "@playwright/test";
import { CHROMIUM_FLAGS, CHROMIUM_PATH } from "./tests/support/chromium";

const chromiumPath = CHROMIUM_PATH;
if (!fs.existsSync(chromiumPath)) {
  // Fail loudly: browser tests are never skipped silently.
  throw new Error(
    `Chromium was not found at ${chromiumPath}.\n` +
      "Install it with:  sudo apt-get update && sudo apt-get install -y chromium\n" +
      "or point CHROMIUM_PATH at a Chromium or Chrome binary.",
  );
}

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
    trace: "retain-on-failure",
    screenshot: "only-on-failure",
    launchOptions: {
      executablePath: chromiumPath,
      args: CHROMIUM_FLAGS,
    },
  },
  projects: [
    {
      name: "phone",
      // Server behaviour (operations, headers, HTTPS, the proxy, SEO markup) does not depend on
      // the screen: run it once, on desktop, to keep the whole CI run well under 30 minutes.
      testIgnore: /(operations|scale-out|behind-caddy|https-site|security-headers|seo|degraded-render)\.spec\.ts/,
      use: {
        viewport: { width: 375, height: 812 },
        isMobile: true,
        hasTouch: true,
        userAgent:
          "Mozilla/5.0 (Linux; Android 14; Pixel 7) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/156.0.0.0 Mobile Safari/537.36",
      },
    },
    { name: "desktop", use: { viewport: { width: 1280, height: 800 } } },
  ],
});
