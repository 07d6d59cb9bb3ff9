import { fork, type ChildProcess } from "node:child_process";
import { access } from "node:fs/promises";
import type { Logger } from "~/lib/logger.server";
import type { StorageConfig } from "~/storage/open-storage.server";
import { ImageRefusedError } from "./image-limits";
import type {
  FromImageWorker,
  ImageJobDone,
  ImageJobKind,
  ImageJobRequest,
  ImageJobResult,
  ToImageWorker,
} from "./image-worker-protocol.server";
import { ImageNotFoundError, type ProcessedEnquiryPhoto, type ProcessedImage } from "./processed-image";

/**
 * The sharp pipeline runs in its own process (decision 0017), so a decode that blows up takes only the worker down.
 * One job at a time; forked for the first job, replaced after a death.
 */

/** Where the worker's code is: the built file in production, the TypeScript source (with tsx) in dev and tests. */
export type ImageWorkerEntry = {
  file: string;
  /** Node flags for the worker, e.g. tsx's loader when running from source. */
  execArgv: string[];
};

/** The worker ended while processing (a crash, a kill, or the job's time ran out). */
export class ImageWorkerCrashedError extends Error {
  override name = "ImageWorkerCrashedError";
}

/** The worker could not decode or encode the image. */
export class ImageUnreadableError extends Error {
  override name = "ImageUnreadableError";
}

/** Visitors' photos wait behind the owner's uploads in a queue of at most this many. */
export const VISITOR_QUEUE_LIMIT = 20;
export const WORKER_BUSY_MESSAGE = "Too many photos are being processed. Please try again in a minute.";

/** The visitors' queue is full: nothing was queued. */
export class ImageWorkerBusyError extends Error {
  override name = "ImageWorkerBusyError";
  constructor() {
    super(WORKER_BUSY_MESSAGE);
  }
}

export type ImageWorker = {
  /** Accepts jobs from now on; fails at once if the worker's code is missing. The process itself starts with the first job. */
  start(): Promise<void>;
  /** Ends the worker; jobs after this are refused. */
  stop(): Promise<void>;
  /** processImage in the worker; ImageRefusedError's message is for the uploader. */
  process(originalKey: string): Promise<ProcessedImage>;
  /** A visitor's photo file (the caller deletes it), after the owner's; ImageWorkerBusyError when the queue is full. */
  processEnquiryPhoto(file: string, keys: { thumbKey: string; viewKey: string }): Promise<ProcessedEnquiryPhoto>;
  /** The running worker's process id, the job it is on, and how many wait (for tests and diagnostics). */
  state(): { pid: number | undefined; processing: string | null; waiting: { owner: number; visitor: number } };
};

/** How the web process handles one kind of job: its message, its name in logs and state(), its result in the worker's answer. */
type JobKindHandling<K extends ImageJobKind> = {
  message(id: number, request: ImageJobRequest<K>): ToImageWorker;
  label(request: ImageJobRequest<K>): string;
  result(done: ImageJobDone): ImageJobResult<K> | undefined;
};

const jobKinds: { [K in ImageJobKind]: JobKindHandling<K> } = {
  "owner-photo": {
    message: (id, request) => ({ type: "job", kind: "owner-photo", id, request }),
    label: (request) => request.originalKey,
    result: (done) => (done.kind === "owner-photo" ? done.result : undefined),
  },
  "enquiry-photo": {
    message: (id, request) => ({ type: "job", kind: "enquiry-photo", id, request }),
    label: (request) => request.file,
    result: (done) => (done.kind === "enquiry-photo" ? done.result : undefined),
  },
};

/** A job that takes longer than this is taken as hung: the worker is killed and replaced. */
const DEFAULT_JOB_TIMEOUT_MS = 120_000;
/** How long a stopping worker may take before it is killed. */
const STOP_GRACE_MS = 5_000;
/** A worker that has not said "ready" by then is killed (and the job that needed it fails). */
const STARTUP_TIMEOUT_MS = 30_000;

type Job = {
  id: number;
  /** What the logs and state() name: the original's key or the photo's temp file. */
  label: string;
  started: boolean;
  /** Settles with the worker's answer, or with an error (a failure, a crash, a timeout). */
  settle(outcome: { done: ImageJobDone } | { error: Error }): void;
};

export function createImageWorker(options: {
  entry?: ImageWorkerEntry;
  storage: StorageConfig;
  logger: Logger;
  jobTimeoutMs?: number;
}): ImageWorker {
  const { entry, storage, logger } = options;
  const jobTimeoutMs = options.jobTimeoutMs ?? DEFAULT_JOB_TIMEOUT_MS;
  let running = false;
  let child: ChildProcess | null = null;
  let spawning: Promise<ChildProcess> | null = null;
  let current: Job | null = null;
  let nextId = 1;
  // One job at a time (the worker holds one decoded image, never two); the owner's go first.
  const ownerQueue: (() => void)[] = [];
  const visitorQueue: (() => void)[] = [];
  let busy = false;

  function pump() {
    if (busy) return;
    const next = ownerQueue.shift() ?? visitorQueue.shift();
    if (!next) return;
    busy = true;
    next();
  }

  function schedule<T>(queue: (() => void)[], task: () => Promise<T>): Promise<T> {
    return new Promise<T>((resolve, reject) => {
      queue.push(() => {
        task()
          .then(resolve, reject)
          .finally(() => {
            busy = false;
            pump();
          });
      });
      pump();
    });
  }

  function send(worker: ChildProcess, message: ToImageWorker) {
    // A closed channel shows up as the worker's exit, which settles the job.
    worker.send(message, (error) => {
      if (error) logger.warn({ err: error }, "could not reach the image worker");
    });
  }

  function onMessage(worker: ChildProcess, message: FromImageWorker) {
    const job = current;
    if (message.type === "ready" || !job || message.id !== job.id) return;
    if (message.type === "started") {
      job.started = true;
      return;
    }
    logger.debug(
      { pid: worker.pid, peakRssMB: message.peakRssMB, outcome: message.type },
      "image worker finished a job",
    );
    if (message.type === "done") return job.settle({ done: message });
    const error =
      message.reason === "refused"
        ? new ImageRefusedError(message.message)
        : message.reason === "not-found"
          ? new ImageNotFoundError(message.message)
          : new ImageUnreadableError(message.message);
    job.settle({ error });
  }

  function spawnWorker(): Promise<ChildProcess> {
    if (!entry) return Promise.reject(new Error("No image worker entry was given to openServices"));
    return new Promise<ChildProcess>((resolve, reject) => {
      const worker = fork(entry.file, [], { execArgv: entry.execArgv, stdio: ["ignore", "inherit", "inherit", "ipc"] });
      let ready = false;
      const startup = setTimeout(() => worker.kill("SIGKILL"), STARTUP_TIMEOUT_MS);
      worker.on("message", (message: FromImageWorker) => {
        if (message.type === "ready" && !ready) {
          ready = true;
          clearTimeout(startup);
          send(worker, { type: "init", storage });
          child = worker;
          resolve(worker);
          return;
        }
        onMessage(worker, message);
      });
      // "on", not "once": an unhandled second 'error' would end the web process.
      worker.on("error", (error) => {
        if (!ready) reject(error);
        else logger.warn({ err: error, pid: worker.pid }, "image worker error");
      });
      worker.once("exit", (code, signal) => {
        clearTimeout(startup);
        if (child === worker) child = null;
        if (!ready) {
          reject(new Error(`The image worker exited while starting (code ${code}, signal ${signal})`));
          return;
        }
        if (running) logger.warn({ pid: worker.pid, code, signal, job: current?.label }, "the image worker exited");
        current?.settle({
          error: new ImageWorkerCrashedError(`The image worker exited (code ${code}, signal ${signal})`),
        });
      });
    });
  }

  function liveWorker(): Promise<ChildProcess> {
    if (child && child.connected) return Promise.resolve(child);
    spawning ??= spawnWorker().finally(() => {
      spawning = null;
    });
    return spawning;
  }

  async function runJob<K extends ImageJobKind>(kind: K, request: ImageJobRequest<K>): Promise<ImageJobResult<K>> {
    if (!running) throw new Error("The image worker is not running");
    const worker = await liveWorker();
    const handling: JobKindHandling<K> = jobKinds[kind];
    const label = handling.label(request);
    return new Promise<ImageJobResult<K>>((resolve, reject) => {
      const timer = setTimeout(() => {
        logger.warn(
          { pid: worker.pid, job: label, timeoutMs: jobTimeoutMs },
          "an image job took too long; killing the worker",
        );
        worker.kill("SIGKILL");
      }, jobTimeoutMs);
      const job: Job = {
        id: nextId++,
        label,
        started: false,
        settle(outcome) {
          if (current !== job) return;
          current = null;
          clearTimeout(timer);
          if ("error" in outcome) return reject(outcome.error);
          const result = handling.result(outcome.done);
          if (result === undefined)
            reject(new ImageUnreadableError(`The image worker answered an ${kind} job as ${outcome.done.kind}`));
          else resolve(result);
        },
      };
      current = job;
      send(worker, handling.message(job.id, request));
    });
  }

  return {
    async start() {
      if (!entry) throw new Error("No image worker entry was given to openServices");
      await access(entry.file);
      running = true;
    },

    async stop() {
      running = false;
      const worker = child ?? (spawning ? await spawning.catch(() => null) : null);
      if (!worker || worker.exitCode !== null || worker.signalCode !== null) return;
      const exited = new Promise<void>((resolve) => worker.once("exit", () => resolve()));
      worker.kill("SIGTERM");
      const force = setTimeout(() => worker.kill("SIGKILL"), STOP_GRACE_MS);
      await exited;
      clearTimeout(force);
    },

    process(originalKey) {
      if (!running) return Promise.reject(new Error("The image worker is not running"));
      return schedule(ownerQueue, () => runJob("owner-photo", { originalKey }));
    },

    processEnquiryPhoto(file, keys) {
      if (!running) return Promise.reject(new Error("The image worker is not running"));
      if (visitorQueue.length >= VISITOR_QUEUE_LIMIT) return Promise.reject(new ImageWorkerBusyError());
      return schedule(visitorQueue, () => runJob("enquiry-photo", { file, ...keys }));
    },

    state() {
      return {
        pid: child?.pid,
        processing: current?.started ? current.label : null,
        waiting: { owner: ownerQueue.length, visitor: visitorQueue.length },
      };
    },
  };
}
