import { test as base, expect, type Page } from "@playwright/test";
import { seedDataDir, type SeedSpec } from "../support/seed";
import { startTestServer, TEST_ADMIN, type TestServer } from "../support/test-server";

export { expect, TEST_ADMIN };

export type ServerSetup = {
  /** Images and content to store before the server starts. */
  seed?: SeedSpec;
  env?: Record<string, string>;
  /** Tests with different names get different servers (a clean slate). */
  name?: string;
};

type WorkerFixtures = { serverPool: { get(key: string, setup: ServerSetup): Promise<TestServer> } };
type TestFixtures = { serverSetup: ServerSetup; server: TestServer; pageErrors: string[] };

let ipCounter = 0;

/**
 * One production server per test file (and setup), started on demand in each
 * worker with its own temporary data directory, so files never share state.
 */
export const test = base.extend<TestFixtures, WorkerFixtures>({
  serverPool: [
    async ({}, use) => {
      let current = null as { key: string; server: TestServer } | null;
      await use({
        async get(key, setup) {
          if (current?.key === key) return current.server;
          await current?.server.stop();
          current = null;
          const server = await startTestServer({
            env: setup.env,
            prepare: setup.seed ? (dataDir) => seedDataDir(dataDir, setup.seed!) : undefined,
          });
          current = { key, server };
          return server;
        },
      });
      await current?.server.stop();
    },
    { scope: "worker" },
  ],
  serverSetup: [{}, { option: true }],
  server: async ({ serverPool, serverSetup }, use, testInfo) => {
    const key = `${testInfo.project.name}::${testInfo.file}::${JSON.stringify(serverSetup)}`;
    await use(await serverPool.get(key, serverSetup));
  },
  baseURL: async ({ server }, use) => use(server.url),
  // Each test is its own visitor, so per-IP limits never leak between tests.
  extraHTTPHeaders: async ({}, use, testInfo) => {
    ipCounter += 1;
    await use({
      "x-forwarded-for": `10.${testInfo.workerIndex % 250}.${Math.floor(ipCounter / 250) % 250}.${(ipCounter % 250) + 1}`,
    });
  },
  // Fail on uncaught page errors and hydration warnings.
  pageErrors: [
    async ({ page }, use) => {
      const errors: string[] = [];
      page.on("pageerror", (error) => errors.push(`pageerror: ${error.message}`));
      page.on("console", (message) => {
        if (message.type() !== "error") return;
        const text = message.text();
        // The browser reports every non-2xx fetch; tests provoke some on purpose.
        if (/Failed to load resource/.test(text)) return;
        // Playwright's trace recorder re-reads an image that failed to decode (a test's broken file, shown as an
        // upload thumbnail) from its blob: URL, which the CSP's connect-src refuses. Without tracing it never appears.
        if (
          /^Connecting to 'blob:[^']*' violates the following Content Security Policy directive: "connect-src/.test(
            text,
          )
        )
          return;
        errors.push(`console.error: ${text}`);
      });
      // Pages' own files (scripts, styles, images) must never fail to load.
      page.on("response", (response) => {
        const { pathname } = new URL(response.url());
        if (response.status() >= 400 && /^\/(assets|media)\//.test(pathname)) {
          errors.push(`${response.status()} for ${pathname}`);
        }
      });
      await use(errors);
      expect(errors, "the page logged errors").toEqual([]);
    },
    { auto: true },
  ],
});

/** Signs in through the login form. */
export async function signIn(page: Page) {
  await page.goto("/admin");
  await page.getByLabel("Username").fill(TEST_ADMIN.username);
  await page.getByLabel("Password").fill(TEST_ADMIN.password);
  await page.getByRole("button", { name: "Sign In" }).click();
  await expect(page.getByRole("heading", { name: "Website Management" })).toBeVisible();
}

/** Whether the test runs in the phone project. */
export function isPhone(testInfo: { project: { name: string } }) {
  return testInfo.project.name === "phone";
}

/** Waits until React has hydrated the page (app/root.tsx marks it), so clicks reach their handlers. */
export async function hydrated(page: Page) {
  // The contact form's island hydrates when the form comes near the screen (docs/decisions/0055).
  const contactIsland = page.locator("#contact-island");
  if (await contactIsland.count()) await contactIsland.scrollIntoViewIfNeeded();
  await page.locator("html[data-hydrated]").waitFor({ state: "attached" });
}

/**
 * The header's phone menu button: the <summary> of a <details>, which has no ARIA role of its own in
 * Playwright's computation (Chromium exposes it as a disclosure triangle with the <details>' state).
 */
export function menuButton(page: Page) {
  return page.locator("summary[data-menu-button]");
}
