import type { RequestHandler } from "express";
import { requestLineLogger, type Logger } from "~/lib/logger.server";

export type RequestLogLine = { method: string; url: string; status: number; startedAt: bigint; ip: string | undefined };

/** One line per request, without query, cookies or body; the logger clips path and address. */
export function logRequest(logger: Logger, line: RequestLogLine): void {
  const query = line.url.indexOf("?");
  requestLineLogger(logger).info(
    {
      method: line.method,
      path: query === -1 ? line.url : line.url.slice(0, query),
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
