import fs from "node:fs";

/** At most this much log text waits for a slow reader; lines past it are dropped and counted. */
const LOG_BUFFER_BYTES = 4 * 1024 * 1024;
/** At exit, the lines still waiting get this long to reach a reader that has stopped reading. */
const EXIT_FLUSH_DEADLINE_MS = 1000;
/** A write the reader refused is tried again after 1 ms, backing off to this while it keeps refusing. */
const MAX_RETRY_DELAY_MS = 100;

export type LogDestination = {
  /** Queues one line; it is written with the others of this event-loop turn, in one write. */
  write(line: string): void;
  /** Writes what is queued now, waiting for a full pipe until `deadlineMs` has passed, then gives up. */
  flushSync(deadlineMs: number): void;
  /** Called once the reader has caught up after lines were dropped, with how many were. */
  onCaughtUp?: (dropped: number) => void;
  /** Bytes queued and not yet written. */
  readonly queuedBytes: number;
};

/** How a destination writes and waits: the system's, or a test's that moves its own clock. */
export type LogDestinationIo = {
  writeSync(fd: number, data: Buffer): number;
  now(): number;
  /** Blocks the thread for `ms` (the process is exiting: nothing else may run). */
  pauseSync(ms: number): void;
};

const pauseCell = new Int32Array(new SharedArrayBuffer(4));
const systemIo: LogDestinationIo = {
  writeSync: (fd, data) => fs.writeSync(fd, data),
  now: () => Date.now(),
  pauseSync: (ms) => void Atomics.wait(pauseCell, 0, 0, ms),
};

/**
 * Log lines to a file descriptor, bounded: a slow reader never grows memory or holds the exit (decision 0049).
 * A pipe or socket must be non-blocking (see `stdoutLogDestination`).
 */
export function createLogDestination(
  fd: number,
  limits: { maxBytes?: number } = {},
  io: LogDestinationIo = systemIo,
): LogDestination {
  const maxBytes = limits.maxBytes ?? LOG_BUFFER_BYTES;
  let lines: string[] = [];
  let linesBytes = 0;
  // A batch the reader took only part of: what is left of it goes first.
  let unwritten: Buffer | null = null;
  let dropped = 0;
  let broken = false;
  let scheduled = false;
  let retryDelay = 0;

  const queuedBytes = () => linesBytes + (unwritten?.length ?? 0);

  /** Writes what is queued, a batch at a time; false when the reader would not take it all now. */
  function writeQueued(): boolean {
    for (;;) {
      if (!unwritten) {
        if (!lines.length) return true;
        unwritten = Buffer.from(lines.join(""));
        lines = [];
        linesBytes = 0;
      }
      try {
        const written = io.writeSync(fd, unwritten);
        if (written < unwritten.length) {
          unwritten = unwritten.subarray(written);
          return false;
        }
        unwritten = null;
      } catch (error) {
        if ((error as NodeJS.ErrnoException).code === "EAGAIN") return false;
        // EPIPE and the like: the reader is gone, and nothing can be logged about it.
        broken = true;
        unwritten = null;
        lines = [];
        linesBytes = 0;
        return true;
      }
    }
  }

  function flush() {
    scheduled = false;
    if (broken) return;
    if (!writeQueued()) {
      retryDelay = Math.min(MAX_RETRY_DELAY_MS, Math.max(1, retryDelay * 2));
      scheduled = true;
      setTimeout(flush, retryDelay).unref();
      return;
    }
    retryDelay = 0;
    if (dropped > 0) {
      const count = dropped;
      dropped = 0;
      destination.onCaughtUp?.(count);
    }
  }

  const destination: LogDestination = {
    write(line) {
      if (broken) return;
      const bytes = Buffer.byteLength(line);
      if (queuedBytes() + bytes > maxBytes) {
        dropped += 1;
        return;
      }
      lines.push(line);
      linesBytes += bytes;
      if (!scheduled) {
        scheduled = true;
        setImmediate(flush);
      }
    },
    flushSync(deadlineMs) {
      const deadline = io.now() + deadlineMs;
      while (!broken && !writeQueued() && io.now() < deadline) io.pauseSync(10);
    },
    get queuedBytes() {
      return queuedBytes();
    },
  };
  return destination;
}

let stdout: LogDestination | undefined;

/** Standard output, flushed at exit; opening `process.stdout` first makes a pipe non-blocking (EAGAIN, no stall). */
export function stdoutLogDestination(): LogDestination {
  if (stdout) return stdout;
  void process.stdout;
  const destination = createLogDestination(process.stdout.fd ?? 1);
  process.on("exit", () => flushAtExit(destination));
  stdout = destination;
  return destination;
}

/** What the exit hook does: the lines still queued get EXIT_FLUSH_DEADLINE_MS, then the process goes. */
export function flushAtExit(destination: LogDestination): void {
  destination.flushSync(EXIT_FLUSH_DEADLINE_MS);
}
