import type { RequestHandler } from "express";
import type { Logger } from "~/lib/logger.server";

export type RequestLogLine = { method: string; url: string; status: number; startedAt: bigint; ip: string | undefined };

/** One structured line per request: no query strings, cookies or bodies, so no secrets. */
export function logRequest(logger: Logger, line: RequestLogLine): void {
  logger.info(
    {
      method: line.method,
      path: line.url.split("?")[0],
      status: line.status,
      ms: Number((process.hrtime.bigint() - line.startedAt) / 1000n) / 1000,
      ip: line.ip,
    },
    "request",
  );
}

export function requestLogger(logger: Logger): RequestHandler {
  return (req, res, next) => {
    if (!logger.isLevelEnabled("info")) return next();
    const startedAt = process.hrtime.bigint();
    res.on("finish", () => {
      logRequest(logger, { method: req.method, url: req.originalUrl, status: res.statusCode, startedAt, ip: req.ip });
    });
    next();
  };
}
