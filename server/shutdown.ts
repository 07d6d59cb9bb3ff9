import type { Server } from "node:http";
import net from "node:net";
import { every } from "~/lib/every";
import type { Logger } from "~/lib/logger.server";

/** On SIGTERM or SIGINT, requests in flight get this long to finish. */
export const SHUTDOWN_GRACE_MS = 10_000;
/** Idle connections stay open this long after the signal: one may carry a request not read yet. */
export const IDLE_SETTLE_MS = 500;

/**
 * Stops the server gracefully (no new connections, each open one closes after its response, the rest at the
 * deadline), then runs `close` and `exit` (1 if closing failed). A second signal changes nothing.
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
      const sweep = every(100, async () => server.closeIdleConnections(), {
        runAtStart: true,
        onError: (error) => logger.error({ err: error }, "shutdown: closing idle connections failed"),
      });
      const settle = setTimeout(() => void sweep.start(), IDLE_SETTLE_MS);
      settle.unref();
      // net.Server's close leaves the connections open; http.Server's would close the idle ones at once.
      net.Server.prototype.close.call(server, async () => {
        clearTimeout(force);
        clearTimeout(settle);
        await sweep.stop();
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
