import type { RequestHandler } from "express";
import type { Logger } from "~/lib/logger.server";

/** One structured line per request: no query strings, cookies or bodies, so no secrets. */
export function requestLogger(logger: Logger): RequestHandler {
  return (req, res, next) => {
    if (!logger.isLevelEnabled("info")) return next();
    const start = process.hrtime.bigint();
    res.on("finish", () => {
      logger.info(
        {
          method: req.method,
          path: req.originalUrl.split("?")[0],
          status: res.statusCode,
          ms: Number((process.hrtime.bigint() - start) / 1000n) / 1000,
          ip: req.ip,
        },
        "request",
      );
    });
    next();
  };
}
