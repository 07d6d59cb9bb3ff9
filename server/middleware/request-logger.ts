import type { RequestHandler } from "express";
import { requestLineLogger, type Logger } from "~/lib/logger.server";

export type RequestLogLine = { method: string; url: string; status: number; startedAt: bigint; ip: string | undefined };

/**
 * One structured line per request: no query strings, cookies or bodies, so no secrets. The path
 * and address are clipped by the logger's serializers (a 4 KB junk path logs 256 characters).
 */
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
