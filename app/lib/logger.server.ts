import pino, { type DestinationStream, type Logger } from "pino";
import { stdoutLogDestination } from "./log-destination.server";

export type { Logger };

/** A value a client chose (a path, an address) keeps this many characters in a log line. */
const MAX_LOGGED_VALUE_LENGTH = 256;

/** Cuts a client-supplied value to MAX_LOGGED_VALUE_LENGTH characters, marked as cut. */
function clip(value: unknown): unknown {
  if (typeof value !== "string" || value.length <= MAX_LOGGED_VALUE_LENGTH) return value;
  return `${value.slice(0, MAX_LOGGED_VALUE_LENGTH)}…[truncated]`;
}

/** Each logger's sibling for request lines (see `requestLineLogger`). */
const requestLineLoggers = new WeakMap<Logger, Logger>();

/** Structured JSON logs (pino): bodies never logged, secrets redacted, client-chosen fields clipped. */
export function createLogger(options: { level: string; destination?: DestinationStream }): Logger {
  const stdout = options.destination || options.level === "silent" ? null : stdoutLogDestination();
  // A silent logger writes nothing: it needs no stream (and no exit hook).
  const destination = options.destination ?? stdout ?? { write: () => {} };
  const serializers = { path: clip, ip: clip, clientIp: clip };
  const logger = pino(
    {
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
      serializers,
    },
    destination,
  );
  // Request lines hold only method, path (no query), status, time and address: nothing to redact,
  // and redaction was most of what a line cost on the hottest path.
  requestLineLoggers.set(logger, pino({ level: options.level, base: undefined, serializers }, destination));
  if (stdout) {
    stdout.onCaughtUp = (dropped) => logger.warn({ dropped }, "log lines dropped: the log reader was too slow");
  }
  return logger;
}

/** The logger for one line per request: the same level and destination, without redaction. */
export function requestLineLogger(logger: Logger): Logger {
  return requestLineLoggers.get(logger) ?? logger;
}
