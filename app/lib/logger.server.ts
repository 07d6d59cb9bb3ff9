import pino, { type Logger } from "pino";

export type { Logger };

/** Structured logs. Secrets never reach them: see the redact list. */
export function createLogger(options: { level: string; pretty?: boolean }): Logger {
  return pino({
    level: options.level,
    base: undefined,
    redact: {
      paths: [
        "password",
        "*.password",
        "req.headers.cookie",
        "req.headers.authorization",
        'res.headers["set-cookie"]',
      ],
      censor: "[redacted]",
    },
    ...(options.pretty ? { transport: undefined } : {}),
  });
}
