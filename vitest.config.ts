import { fileURLToPath } from "node:url";
import { configDefaults, defineConfig } from "vitest/config";
import { filesTagged } from "./tests/support/file-tags";

const alias = { "~": fileURLToPath(new URL("./app", import.meta.url)) };

/**
 * API test files that never read TEST_BACKEND state `// @same-on-every-backend` (tests/support/file-tags.ts):
 * `npm run test:api:postgres` leaves them out rather than run them twice.
 */
const SAME_ON_EVERY_BACKEND = filesTagged("tests/api", ".test.ts", "@same-on-every-backend");
const secondBackendRun = process.env.TEST_BACKEND === "postgres-s3";

/** Two files at a time: most API tests wait on child processes, a socket or a timer, not the CPU. */
const WORKERS = Number(process.env.TEST_WORKERS || 2);

export default defineConfig({
  resolve: { alias },
  test: {
    maxWorkers: WORKERS,
    projects: [
      {
        resolve: { alias },
        test: {
          name: "node",
          environment: "node",
          include: ["app/**/*.test.ts", "server/**/*.test.ts", "scripts/**/*.test.ts", "tests/api/**/*.test.ts"],
          // Each worker imports the app once for all its files, not once a file: importing it took
          // about a quarter of this project's CPU. No file changes a module's state for the next
          // (no module mocks); TEST_ISOLATE=1 gives every file its own modules again.
          isolate: process.env.TEST_ISOLATE === "1",
          exclude: [...configDefaults.exclude, ...(secondBackendRun ? SAME_ON_EVERY_BACKEND : [])],
          // Two files run at once, and many tests start servers and scripts: a generous ceiling, never an assertion.
          testTimeout: 60_000,
          // Setting up a test context (a database, a bucket, a signed-in administrator) can take a few
          // seconds on a busy 2-core machine.
          hookTimeout: 60_000,
          // The back ends the API tests run on, chosen by TEST_BACKEND (tests/support/vitest-backends.ts).
          globalSetup: ["./tests/support/vitest-backends.ts"],
        },
      },
      {
        resolve: { alias },
        test: {
          name: "components",
          environment: "jsdom",
          include: ["app/**/*.test.tsx"],
          setupFiles: ["./tests/setup-components.ts"],
        },
      },
    ],
  },
});
