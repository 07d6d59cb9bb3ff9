import { createServer, type Server } from "node:http";
import type { RequestHandler } from "express";
import { prepareAdministrator } from "~/auth/initial-admin.server";
import type { OffsiteCopyEntry } from "~/backups/offsite-copy-process.server";
import { forkedCopyRunner } from "~/backups/offsite-schedule.server";
import { InvalidEnvironmentError, describeTrustProxy, parseEnv, passedListenSocket } from "~/env.server";
import type { ImageWorkerEntry } from "~/images/image-worker.server";
import { DatabaseLockedError, lockDatabase } from "~/db/database-lock.server";
import { DataDirLockedError, lockDataDir } from "~/lib/data-dir-lock.server";
import { createLogger } from "~/lib/logger.server";
import { createRequestListener } from "./app";
import { backgroundTasks, stopOrder } from "./background-tasks";
import { isStartupCheckError, openServices } from "./bootstrap";
import { createPageCache } from "./page-cache";
import type { ReactRouterBuild } from "./react-router-handler";
import { createShutdown } from "./shutdown";

/** Headers within 20 s; no deadline for a whole request (a 20 MB photo at 750 kbit/s takes 224 s): request-bounds.ts's rules. */
const SERVER_TIMEOUTS = { headersTimeout: 20_000, requestTimeout: 0, connectionsCheckingInterval: 5_000 };

/** Validates the environment, prepares the data directory, and serves until told to stop. */
export async function startServer(options: {
  build: ReactRouterBuild;
  mode: "production" | "development";
  clientAssetsDir?: string;
  devMiddleware?: RequestHandler;
  /** The image worker's code: built in production, from source in development. */
  imageWorker: ImageWorkerEntry;
  /** The off-site copy process's code (decision 0070), the same way. */
  offsiteCopy: OffsiteCopyEntry;
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

  // Held until the process ends (however it ends): a restore refuses to run meanwhile.
  try {
    lockDataDir(env.DATA_DIR, "shared");
  } catch (error) {
    if (error instanceof DataDirLockedError) {
      console.error(`${error.message}: wait for it to finish, then start the server again.`);
      process.exit(1);
    }
    throw error;
  }

  const logger = createLogger({ level: env.LOG_LEVEL });
  // PostgreSQL: the same on the shared database, held on a connection of its own while the process lives.
  let lockFailure: unknown = null;
  if (env.DATABASE_URL) {
    try {
      await lockDatabase(env.DATABASE_URL, "shared", { logger });
    } catch (error) {
      if (error instanceof DatabaseLockedError) {
        console.error(`${error.message}: wait for it to finish, then start the server again.`);
        process.exit(1);
      }
      // Most likely unreachable: the start-up check below then says what to fix.
      lockFailure = error;
    }
  }
  // Development renders every page afresh, so edits to the code show at once.
  const pageCache = options.mode === "production" ? createPageCache() : undefined;
  const services = await openServices(env, logger, {
    onPublicContentChanged: () => pageCache?.clear(),
    imageWorker: options.imageWorker,
  }).catch((error: unknown) => {
    if (isStartupCheckError(error)) {
      // Refuse to start: the message says what to fix.
      console.error(error.message);
      process.exit(1);
    }
    throw error;
  });
  if (env.DATABASE_URL && lockFailure) {
    // The database answered the start-up check after all: never serve without the lock, or a
    // restore could run under this server.
    await lockDatabase(env.DATABASE_URL, "shared", { logger }).catch((error: unknown) => {
      console.error(
        error instanceof DatabaseLockedError
          ? `${error.message}: wait for it to finish, then start the server again.`
          : `Could not take the database's instance lock (${(error as Error).message}). Check DATABASE_URL and the database, then start the server again.`,
      );
      process.exit(1);
    });
  }
  await services.images.start();

  // A generated first password goes to a private file; only its path is printed.
  await prepareAdministrator(services, (text) => process.stdout.write(text)).catch(async (error: unknown) => {
    if (!isStartupCheckError(error)) throw error;
    console.error(error.message);
    await services.close();
    process.exit(1);
  });
  logger.info({ trustProxy: env.TRUST_PROXY }, describeTrustProxy(env.TRUST_PROXY));
  // Background work, one list (server/background-tasks.ts): most starts before the server listens.
  const tasks = backgroundTasks(services, { offsiteRunner: forkedCopyRunner(options.offsiteCopy, logger) });
  for (const task of tasks) if (!task.afterListening) await task.start();

  const listener = createRequestListener(services, {
    reactRouter: { build: options.build, mode: options.mode },
    clientAssetsDir: options.clientAssetsDir,
    devMiddleware: options.devMiddleware,
    pageCache,
  });

  // Under systemd with deploy/cornerstone.socket, the socket it holds across restarts; else HOST:PORT.
  const passedSocket = passedListenSocket();
  const server = createServer(SERVER_TIMEOUTS, listener);
  if (passedSocket === null) server.listen(env.PORT, env.HOST);
  else server.listen({ fd: passedSocket });
  const listeningOn =
    passedSocket === null ? `${env.HOST}:${env.PORT}` : "the socket systemd passed (cornerstone.socket)";
  await new Promise<void>((resolve, reject) => {
    server.once("listening", resolve);
    server.once("error", reject);
  }).catch((error: NodeJS.ErrnoException) => {
    logger.fatal({ err: error }, `cannot listen on ${listeningOn}`);
    process.exit(1);
  });
  if (passedSocket === null) {
    logger.info(
      { url: env.SITE_URL, port: env.PORT, dataDir: env.DATA_DIR },
      `serving on http://localhost:${env.PORT}`,
    );
  } else {
    const address = server.address();
    const where = address && typeof address === "object" ? `${address.address}:${address.port}` : String(address);
    logger.info(
      { url: env.SITE_URL, socket: where, dataDir: env.DATA_DIR },
      `serving on ${where}, the socket systemd keeps open across restarts`,
    );
  }

  for (const task of tasks) if (task.afterListening) await task.start();

  const stop = createShutdown(server, {
    logger,
    close: async () => {
      for (const task of stopOrder(tasks)) await task.stop();
      await services.close();
    },
  });
  process.on("SIGTERM", () => void stop("SIGTERM"));
  process.on("SIGINT", () => void stop("SIGINT"));
  return server;
}
