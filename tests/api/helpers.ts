import fs from "node:fs/promises";
import os from "node:os";
import path from "node:path";
import supertest from "supertest";
import { parseEnv } from "~/env.server";
import type { Clock } from "~/lib/clock";
import { createLogger } from "~/lib/logger.server";
import { createApp } from "../../server/app";
import { openServices } from "../../server/bootstrap";
import { imageWorkerFromSource } from "../../server/image-worker-source";

/**
 * The real Express app (API only: no React Router build needed) over a real
 * SQLite file in a fresh temporary directory.
 */
export async function createTestContext(envOverrides: Record<string, string> = {}, options: { clock?: Clock } = {}) {
  const dataDir = await fs.mkdtemp(path.join(os.tmpdir(), "cornerstone-api-"));
  const env = parseEnv({ DATA_DIR: dataDir, LOG_LEVEL: "silent", NODE_ENV: "test", ...envOverrides });
  const logger = createLogger({ level: env.LOG_LEVEL });
  let publicChanges = 0;
  const services = await openServices(env, logger, {
    onPublicContentChanged: () => (publicChanges += 1),
    clock: options.clock,
    imageWorker: imageWorkerFromSource(),
  });
  await services.images.start();
  const app = createApp(services);
  return {
    app,
    services,
    dataDir,
    api: supertest(app),
    publicChanges: () => publicChanges,
    async close() {
      await services.images.stop();
      await services.db.destroy();
      await fs.rm(dataDir, { recursive: true, force: true });
    },
  };
}

export type TestContext = Awaited<ReturnType<typeof createTestContext>>;

export const ADMIN = { username: "owner", password: "a long test password" } as const;

/** A test context with an administrator, plus a signed-in agent (keeps the session cookie). */
export async function createAdminContext(envOverrides: Record<string, string> = {}, options: { clock?: Clock } = {}) {
  const ctx = await createTestContext({ ADMIN_USERNAME: ADMIN.username, ADMIN_PASSWORD: ADMIN.password, ...envOverrides }, options);
  const { ensureAdministrator } = await import("~/auth/auth.server");
  await ensureAdministrator(ctx.services, { username: ADMIN.username, password: ADMIN.password });
  const agent = supertest.agent(ctx.app);
  await agent.post("/api/login").send(ADMIN).expect(200);
  return { ...ctx, admin: agent };
}

export type AdminContext = Awaited<ReturnType<typeof createAdminContext>>;
