import { startScaledBackends, type ScaledBackends } from "../support/backends";
import { freePort, startTestServer } from "../support/test-server";
import { test as base } from "./fixtures";

export { expect, TEST_ADMIN, hydrated } from "./fixtures";

/**
 * Browser tests on the scaled-out back ends: each worker starts a throwaway
 * PostgreSQL cluster and S3 server when a test first needs them, and each
 * test's server gets a fresh database and bucket.
 */
export const test = base.extend<{ s3Endpoint: string; s3rverEndpoint: string }, { backends: ScaledBackends }>({
  backends: [
    async ({}, use) => {
      // Behind the verifying front: the browser's PUT must match what the server signed.
      const backends = await startScaledBackends({ verifySignatures: true });
      await use(backends);
      await backends.stop();
    },
    { scope: "worker" },
  ],
  server: async ({ backends }, use) => {
    const port = await freePort();
    const provisioned = await backends.provision([`http://127.0.0.1:${port}`]);
    const server = await startTestServer({ port, env: provisioned.env });
    await use(server);
    await server.stop();
    await provisioned.remove();
  },
  s3Endpoint: async ({ backends }, use) => use(backends.s3.endpoint),
  // s3rver itself, which reads out any object without a key (for checking what was stored).
  s3rverEndpoint: async ({ backends }, use) => use(backends.s3.s3rverEndpoint),
  // The base fixture adds X-Forwarded-For to every request, which would make the browser's
  // cross-origin PUT to the bucket ask CORS for a header a real browser never sends.
  // Each test has its own server here, so per-IP limits cannot leak between tests anyway.
  extraHTTPHeaders: async ({}, use) => use({}),
});
