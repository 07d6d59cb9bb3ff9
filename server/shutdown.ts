import type { Server } from "node:http";
import net from "node:net";
import type { Logger } from "~/lib/logger.server";

/** On SIGTERM or SIGINT, requests in flight get this long to finish. */
export const SHUTDOWN_GRACE_MS = 10_000;
/**
 * How long idle connections stay open after the signal: one accepted just before it may carry a
 * request not read yet, which closing it would lose (a proxy cannot send a form again).
 */
export const IDLE_SETTLE_MS = 500;

/**
 * Stops the server gracefully: it takes no new connections (under systemd the socket stays open in
 * systemd, and they wait there for the next process); every response from then on closes its
 * connection; idle connections close after IDLE_SETTLE_MS and busy ones after their response;
 * whatever is still open a second before the grace period ends is closed. Then `close` runs (the
 * database), and `exit` with 0, or 1 if closing failed. A second signal changes nothing. The
 * returned function resolves once `exit` was called.
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
      // Before the application's own listener: a client sends nothing more on a connection that closes.
      server.prependListener("request", (_req, res) => {
        if (!res.headersSent) res.setHeader("Connection", "close");
      });
      const force = setTimeout(() => {
        logger.warn("requests still open after the grace period; closing them");
        server.closeAllConnections();
      }, forceCloseAfterMs);
      force.unref();
      // Then keep-alive connections go as soon as their last response is out.
      let sweep: NodeJS.Timeout | undefined;
      const settle = setTimeout(() => {
        server.closeIdleConnections();
        sweep = setInterval(() => server.closeIdleConnections(), 100);
        sweep.unref();
      }, IDLE_SETTLE_MS);
      settle.unref();
      // net.Server's close stops listening and leaves the connections; http.Server's would also
      // close the idle ones at once.
      net.Server.prototype.close.call(server, async () => {
        clearTimeout(force);
        clearTimeout(settle);
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
    });
    return stopping;
  };
}
