import pino, { type DestinationStream, type Logger } from "pino";

export type { Logger };

/** Structured JSON logs (pino). Secrets never reach them: nothing logs bodies, and these paths are redacted. */
export function createLogger(options: { level: string; destination?: DestinationStream }): Logger {
  return pino(
    {
      level: options.level,
      base: undefined,
      redact: {
        paths: ["password", "*.password", "req.headers.cookie", "req.headers.authorization", 'res.headers["set-cookie"]'],
        censor: "[redacted]",
      },
    },
    options.destination,
  );
}
