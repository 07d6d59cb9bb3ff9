import { createServer, type Server } from "node:http";
import type { RequestHandler } from "express";
import { ensureAdministrator, pruneExpiredSessions } from "~/auth/auth.server";
import { InvalidEnvironmentError, parseEnv } from "~/env.server";
import { createLogger } from "~/lib/logger.server";
import { pruneStaleUploads } from "~/uploads/uploads.server";
import { createRequestListener } from "./app";
import { openServices } from "./bootstrap";
import { createPageCache } from "./page-cache";
import type { ReactRouterBuild } from "./react-router-handler";

/** On SIGTERM, requests in flight get this long to finish. */
const SHUTDOWN_GRACE_MS = 10_000;

/** Validates the environment, prepares the data directory, and serves until told to stop. */
export async function startServer(options: {
  build: ReactRouterBuild;
  mode: "production" | "development";
  clientAssetsDir?: string;
  devMiddleware?: RequestHandler;
}): Promise<Server> {
  let env;
  try {
    env = parseEnv();
  } catch (error) {
    if (error instanceof InvalidEnvironmentError) {
      console.error(error.message);
      process.exit(1);
    }
    throw error;
  }

  const logger = createLogger({ level: env.LOG_LEVEL });
  // Development renders every page afresh, so edits to the code show at once.
  const pageCache = options.mode === "production" ? createPageCache() : undefined;
  const services = await openServices(env, logger, { onPublicContentChanged: () => pageCache?.clear() });
  const { db } = services;

  const admin = await ensureAdministrator(services, { username: env.ADMIN_USERNAME, password: env.ADMIN_PASSWORD });
  if (admin.generatedPassword) {
    // Shown once, on the console only: it is never logged or stored in clear.
    process.stdout.write(
      `\n  An administrator was created for the admin area (/admin):\n` +
        `    username: ${admin.username}\n    password: ${admin.generatedPassword}\n` +
        `  Keep it safe; change it any time with: npm run admin:password\n\n`,
    );
  } else if (admin.action !== "unchanged") {
    logger.info({ username: admin.username }, `administrator ${admin.action} from ADMIN_USERNAME/ADMIN_PASSWORD`);
  }
  const housekeeping = async () => {
    try {
      await pruneExpiredSessions(services);
      await pruneStaleUploads(services);
    } catch (error) {
      logger.warn({ err: error }, "housekeeping failed");
    }
  };
  await housekeeping();
  setInterval(housekeeping, 60 * 60 * 1000).unref();
  // Visit counts: flushed every 10 s and at shutdown; each ended day's salt and visitor hashes deleted.
  await services.analytics.start();

  const listener = createRequestListener(services, {
    reactRouter: { build: options.build, mode: options.mode },
    clientAssetsDir: options.clientAssetsDir,
    devMiddleware: options.devMiddleware,
    pageCache,
  });

  const server = createServer(listener).listen(env.PORT, env.HOST);
  await new Promise<void>((resolve, reject) => {
    server.once("listening", resolve);
    server.once("error", reject);
  }).catch((error: NodeJS.ErrnoException) => {
    logger.fatal({ err: error }, `cannot listen on ${env.HOST}:${env.PORT}`);
    process.exit(1);
  });
  logger.info({ url: env.SITE_URL, port: env.PORT, dataDir: env.DATA_DIR }, `serving on http://localhost:${env.PORT}`);

  let stopping = false;
  const stop = (signal: string) => {
    if (stopping) return;
    stopping = true;
    logger.info({ signal }, "shutting down: finishing requests in flight");
    const force = setTimeout(() => {
      logger.warn("requests still open after the grace period; closing them");
      server.closeAllConnections();
    }, SHUTDOWN_GRACE_MS - 1000);
    force.unref();
    // Keep-alive connections go as soon as their last response is out.
    const sweep = setInterval(() => server.closeIdleConnections(), 100);
    sweep.unref();
    server.close(async () => {
      clearTimeout(force);
      clearInterval(sweep);
      await services.analytics.stop();
      await db.destroy();
      logger.info("stopped");
      process.exit(0);
    });
    server.closeIdleConnections();
  };
  process.on("SIGTERM", () => stop("SIGTERM"));
  process.on("SIGINT", () => stop("SIGINT"));
  return server;
}
