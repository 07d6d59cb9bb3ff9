import { fileURLToPath } from "node:url";
import { existsSync } from "node:fs";
import { configDefaults, defineConfig } from "vitest/config";

const alias = { "~": fileURLToPath(new URL("./app", import.meta.url)) };

/**
 * API test files that never read TEST_BACKEND: they choose their own engines (a SQLite file, the
 * throwaway PostgreSQL cluster by name, the disk) or run scripts on a data directory, so they run
 * the same in the SQLite and the PostgreSQL + S3 run. `npm run test:api:postgres` leaves them out
 * rather than run them twice. A file that starts to use the run's back end (tests/api/helpers.ts's
 * contexts, acquireBackend, defaultBackend, startProductionServerOnBackend) comes off this list.
 */
const SAME_ON_EVERY_BACKEND = [
  "backup-cli",
  "backup-restore",
  "heap-ceiling",
  "initial-admin",
  "log-backpressure",
  "offsite-defences",
  "offsite-schedule",
  "outbox-claims",
  "prerender-real",
  "restore-encryption-rules",
  "s3-signatures",
  "script-stdin",
  "shared-limits",
  "single-administrator",
  "two-step-backup",
].map((name) => `tests/api/${name}.test.ts`);
for (const file of SAME_ON_EVERY_BACKEND) {
  if (!existsSync(file))
    throw new Error(`vitest.config.ts lists ${file}, which is not there: update SAME_ON_EVERY_BACKEND`);
}
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
