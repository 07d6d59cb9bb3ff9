import { mkdtemp, rm, writeFile } from "node:fs/promises";
import os from "node:os";
import path from "node:path";
import { Readable } from "node:stream";
import { afterAll, afterEach, beforeAll, describe, expect, it } from "vitest";
import { createLogger } from "~/lib/logger.server";
import { openObjectStorage, type StorageConfig } from "~/storage/open-storage.server";
import type { ObjectStorage } from "~/storage/storage.server";
import { imageWorkerFromSource } from "../../server/child-process-sources";
import { pngBomb } from "../../tests/fixtures/image-bombs";
import { makeImage, makeNoisyJpeg } from "../../tests/fixtures/images";
import { ImageRefusedError } from "./image-limits";
import {
  ImageUnreadableError,
  ImageWorkerCrashedError,
  createImageWorker,
  type ImageWorker,
} from "./image-worker.server";
import { ImageNotFoundError } from "./processed-image";

let rootDir: string;
let config: StorageConfig;
let storage: ObjectStorage;
let worker: ImageWorker | undefined;
let photo: Buffer;

beforeAll(async () => {
  rootDir = await mkdtemp(path.join(os.tmpdir(), "cornerstone-worker-"));
  config = { kind: "local", rootDir, signingSecret: "w".repeat(32) };
  storage = await openObjectStorage(config);
  // Detailed enough to take a while to process: time to crash the worker mid-job.
  photo = await makeNoisyJpeg(2400, 1800);
}, 60_000);

afterEach(async () => {
  await worker?.stop();
  worker = undefined;
});

afterAll(async () => {
  await rm(rootDir, { recursive: true, force: true });
});

async function store(image: Buffer): Promise<string> {
  const key = `originals/${Math.random().toString(36).slice(2)}`;
  await storage.write(key, Readable.from([image]));
  return key;
}

async function startWorker(options: { jobTimeoutMs?: number; logLines?: string[] } = {}): Promise<ImageWorker> {
  const { logLines, ...rest } = options;
  const logger = logLines
    ? createLogger({ level: "warn", destination: { write: (line: string) => void logLines.push(line) } })
    : createLogger({ level: "silent" });
  worker = createImageWorker({ entry: imageWorkerFromSource(), storage: config, logger, ...rest });
  await worker.start();
  return worker;
}

function processAlive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch {
    return false;
  }
}

describe("the image worker", () => {
  it("processes in its own process, reused from one job to the next, writing to the storage it was given", async () => {
    const images = await startWorker();
    expect(images.state().pid).toBeUndefined();
    const first = await images.process(await store(await makeImage("jpeg", { width: 1000, height: 700 })));
    const pid = images.state().pid;
    expect(pid).toBeGreaterThan(0);
    expect(pid).not.toBe(process.pid);
    expect([first.width, first.height]).toEqual([1000, 700]);
    expect(first.variants.avif.map((v) => v.width)).toEqual([480, 800]);
    for (const key of first.storageKeys) expect(await storage.exists(key)).toBe(true);

    const second = await images.process(await store(await makeImage("png", { width: 300, height: 200 })));
    expect(second.width).toBe(300);
    expect(images.state().pid).toBe(pid);
  });

  it("takes one job at a time, in order", async () => {
    const images = await startWorker();
    const keys = await Promise.all(
      [600, 700, 800].map(async (width) => store(await makeImage("jpeg", { width, height: 400 }))),
    );
    const results = await Promise.all(keys.map((key) => images.process(key)));
    expect(results.map((r) => r.width)).toEqual([600, 700, 800]);
  });

  it("passes a refusal on with its message, and keeps going", async () => {
    const images = await startWorker();
    const error = await images.process(await store(pngBomb(20_000, 20_000))).catch((e: unknown) => e);
    const pid = images.state().pid;
    expect(error).toBeInstanceOf(ImageRefusedError);
    expect((error as Error).message).toMatch(/^The image is too large \(400 megapixels/);
    expect((await images.process(await store(await makeImage("gif", { width: 90, height: 60 })))).width).toBe(90);
    expect(images.state().pid).toBe(pid);
  });

  it("tells a missing original from an unreadable one", async () => {
    const images = await startWorker();
    await expect(images.process("originals/not-there")).rejects.toBeInstanceOf(ImageNotFoundError);
    const junk = await store(Buffer.concat([Buffer.from([0xff, 0xd8, 0xff, 0xe0]), Buffer.alloc(200, 7)]));
    await expect(images.process(junk)).rejects.toBeInstanceOf(ImageUnreadableError);
  });

  it("survives its worker being killed mid-job: that job fails, the next one gets a new worker", async () => {
    const images = await startWorker();
    const key = await store(photo);
    const job = images.process(key);
    await expect.poll(() => images.state().processing, { interval: 5, timeout: 20_000 }).toBe(key);
    const firstPid = images.state().pid!;
    process.kill(firstPid, "SIGKILL");
    const error = await job.catch((e: unknown) => e);
    expect(error).toBeInstanceOf(ImageWorkerCrashedError);
    expect((error as Error).message).toMatch(/SIGKILL/);
    expect(images.state()).toEqual({ pid: undefined, processing: null, waiting: { owner: 0, visitor: 0 } });

    const next = await images.process(await store(await makeImage("webp", { width: 500, height: 300 })));
    expect(next.width).toBe(500);
    const secondPid = images.state().pid!;
    expect(secondPid).not.toBe(firstPid);
    expect(processAlive(firstPid)).toBe(false);
  });

  it("kills a worker whose job runs past the time limit (a hung decode), failing that job", async () => {
    const logLines: string[] = [];
    const images = await startWorker({ jobTimeoutMs: 50, logLines });
    await expect(images.process(await store(photo))).rejects.toBeInstanceOf(ImageWorkerCrashedError);
    const logged = logLines.map((line) => JSON.parse(line) as { msg: string; pid?: number });
    const timedOut = logged.find((entry) => entry.msg === "an image job took too long; killing the worker");
    expect(timedOut?.pid).toBeGreaterThan(0);
    expect(processAlive(timedOut!.pid!)).toBe(false);
    expect(logged.some((entry) => entry.msg === "the image worker exited")).toBe(true);
  });

  it("stops: the process ends and later jobs are refused", async () => {
    const images = await startWorker();
    await images.process(await store(await makeImage("jpeg")));
    const pid = images.state().pid!;
    await images.stop();
    expect(processAlive(pid)).toBe(false);
    await expect(images.process("originals/anything")).rejects.toThrow("not running");
  });

  it("fails the job when its worker dies while starting", async () => {
    const broken = path.join(rootDir, "broken-worker.mjs");
    await writeFile(broken, "process.exit(3);\n");
    worker = createImageWorker({
      entry: { file: broken, execArgv: [] },
      storage: config,
      logger: createLogger({ level: "silent" }),
    });
    await worker.start();
    await expect(worker.process("originals/anything")).rejects.toThrow("exited while starting (code 3");
  });

  it("takes a job's result only from an answer of the job's own kind", async () => {
    // A worker that answers every job as a visitor's photo.
    const confused = path.join(rootDir, "confused-worker.mjs");
    await writeFile(
      confused,
      [
        'process.on("message", (message) => {',
        '  if (message.type !== "job") return;',
        '  process.send({ type: "done", kind: "enquiry-photo", id: message.id, result: { width: 1, height: 1 }, peakRssMB: 1 });',
        "});",
        'process.on("disconnect", () => process.exit(0));',
        'process.send({ type: "ready" });',
        "",
      ].join("\n"),
    );
    worker = createImageWorker({
      entry: { file: confused, execArgv: [] },
      storage: config,
      logger: createLogger({ level: "silent" }),
    });
    await worker.start();
    await expect(worker.process("originals/anything")).rejects.toThrow(
      new ImageUnreadableError("The image worker answered an owner-photo job as enquiry-photo"),
    );
  });

  it("refuses jobs before it is started, and cannot start without an entry", async () => {
    const images = createImageWorker({ storage: config, logger: createLogger({ level: "silent" }) });
    await expect(images.process("originals/anything")).rejects.toThrow("not running");
    await expect(images.start()).rejects.toThrow("No image worker entry");
    const missing = createImageWorker({
      entry: { file: path.join(rootDir, "no-such-worker.js"), execArgv: [] },
      storage: config,
      logger: createLogger({ level: "silent" }),
    });
    await expect(missing.start()).rejects.toThrow("ENOENT");
  });
});
