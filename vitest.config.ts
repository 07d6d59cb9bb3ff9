import { fileURLToPath } from "node:url";
import { defineConfig } from "vitest/config";

const alias = { "~": fileURLToPath(new URL("./app", import.meta.url)) };

export default defineConfig({
  resolve: { alias },
  test: {
    projects: [
      {
        resolve: { alias },
        test: {
          name: "node",
          environment: "node",
          include: ["app/**/*.test.ts", "server/**/*.test.ts", "scripts/**/*.test.ts", "tests/api/**/*.test.ts"],
          testTimeout: 30_000,
          // Setting up a test context (a database, a bucket, a signed-in administrator) can take a few
          // seconds on a busy 2-core machine.
          hookTimeout: 30_000,
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
