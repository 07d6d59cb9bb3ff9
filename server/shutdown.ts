import type { Server } from "node:http";
import type { Logger } from "~/lib/logger.server";

/** On SIGTERM or SIGINT, requests in flight get this long to finish. */
export const SHUTDOWN_GRACE_MS = 10_000;

/**
 * Stops the server gracefully: it takes no new connections, idle keep-alive
 * ones close at once and busy ones after their response; whatever is still
 * open a second before the grace period ends is closed. Then `close` runs
 * (the database), and `exit` with 0, or 1 if closing failed. A second signal
 * changes nothing. The returned function resolves once `exit` was called.
 */
export function createShutdown(
  server: Server,
  options: {
    logger: Logger;
    close: () => Promise<void>;
    exit?: (code: number) => void;
    /** Tests pass a few milliseconds; the server uses a second less than the grace period. */
    forceCloseAfterMs?: number;
  },
): (signal: string) => Promise<void> {
  const { logger, close } = options;
  const exit = options.exit ?? ((code: number) => process.exit(code));
  const forceCloseAfterMs = options.forceCloseAfterMs ?? SHUTDOWN_GRACE_MS - 1000;
  let stopping: Promise<void> | null = null;

  return (signal) => {
    stopping ??= new Promise<void>((resolve) => {
      logger.info({ signal }, "shutting down: finishing requests in flight");
      const force = setTimeout(() => {
        logger.warn("requests still open after the grace period; closing them");
        server.closeAllConnections();
      }, forceCloseAfterMs);
      force.unref();
      // Keep-alive connections go as soon as their last response is out.
      const sweep = setInterval(() => server.closeIdleConnections(), 100);
      sweep.unref();
      server.close(async () => {
        clearTimeout(force);
        clearInterval(sweep);
        let code = 0;
        try {
          await close();
          logger.info("stopped");
        } catch (error) {
          logger.error({ err: error }, "shutdown: closing failed");
          code = 1;
        }
        exit(code);
        resolve();
      });
      server.closeIdleConnections();
    });
    return stopping;
  };
}
