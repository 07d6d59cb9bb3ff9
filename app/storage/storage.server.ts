import { createHmac, randomBytes, timingSafeEqual } from "node:crypto";
import { constants as fsConstants } from "node:fs";
import { mkdir, open, rename, stat, unlink } from "node:fs/promises";
import path from "node:path";
import { Transform, type Readable, type TransformCallback } from "node:stream";
import { pipeline } from "node:stream/promises";

/**
 * Object storage behind one small interface, so the local-disk implementation
 * can later be swapped for S3/R2 without touching routes or the image pipeline.
 */
export interface ObjectStorage {
  /**
   * Streams body into the object at key. Rejects with ObjectTooLargeError (and
   * leaves nothing behind, not even a temp file) once more than maxBytes
   * arrive. Writes to a temp file then renames atomically. Returns bytes
   * written and the first 32 bytes (for magic-number sniffing).
   * On any failure body is destroyed (stream.pipeline), so pass an HTTP
   * request through a PassThrough if you still want to answer on it, and
   * forward the request's abort to that PassThrough or the write never ends.
   */
  write(
    key: string,
    body: NodeJS.ReadableStream | Readable,
    options?: { maxBytes?: number },
  ): Promise<{ bytes: number; head: Buffer }>;
  /** Returns a readable stream, or null when missing. Consume or destroy the stream: it holds a file handle. */
  read(key: string): Promise<{ stream: Readable; bytes: number } | null>;
  exists(key: string): Promise<boolean>;
  /** Idempotent: deleting a missing key is fine. */
  delete(key: string): Promise<void>;
  /**
   * A URL a client can PUT one object to. Local implementation: same-origin
   * relative URL `/api/uploads/<objectId>?expires=<unixMs>&signature=<hex hmac-sha256>`.
   */
  createUploadTarget(objectId: string, expiresAt: Date): { uploadURL: string };
  /** Verifies a signed upload URL's (objectId, expires, signature) in constant time. */
  verifyUploadTarget(
    objectId: string,
    expires: string,
    signature: string,
    now?: Date,
  ): "ok" | "expired" | "invalid";
}

export class ObjectTooLargeError extends Error {
  override name = "ObjectTooLargeError";
  constructor(readonly maxBytes?: number) {
    super(maxBytes === undefined ? "Object is too large" : `Object exceeds the limit of ${maxBytes} bytes`);
  }
}

export class InvalidStorageKeyError extends Error {
  override name = "InvalidStorageKeyError";
}

export const HEAD_BYTES = 32;

// Lower-case segments of [a-z0-9._-]; a segment may not start with "." so
// keys can never name our temp files (".<name>.<random>.tmp") or dotfiles.
const SEGMENT = /^[a-z0-9_-][a-z0-9._-]*$/;
const MAX_KEY_LENGTH = 512;

/** Throws InvalidStorageKeyError unless key is a safe relative object key. */
export function assertValidKey(key: string): void {
  if (
    typeof key !== "string" ||
    key.length === 0 ||
    key.length > MAX_KEY_LENGTH ||
    key.includes("..") ||
    !key.split("/").every((segment) => SEGMENT.test(segment))
  ) {
    throw new InvalidStorageKeyError(`Invalid storage key: ${JSON.stringify(key)}`);
  }
}

/** An object id is one key segment (it becomes `originals/<id>`). */
export function isValidObjectId(objectId: string): boolean {
  return (
    typeof objectId === "string" &&
    objectId.length <= 128 &&
    !objectId.includes("..") &&
    SEGMENT.test(objectId)
  );
}

/** Counts bytes as they pass, keeps the first HEAD_BYTES, and fails past the limit. */
class CountingTransform extends Transform {
  bytes = 0;
  private headChunks: Buffer[] = [];
  private headLength = 0;

  constructor(private readonly maxBytes: number) {
    super();
  }

  get head(): Buffer {
    return Buffer.concat(this.headChunks, this.headLength);
  }

  override _transform(chunk: unknown, encoding: BufferEncoding, callback: TransformCallback): void {
    const buffer = Buffer.isBuffer(chunk)
      ? chunk
      : typeof chunk === "string"
        ? Buffer.from(chunk, encoding)
        : Buffer.from(chunk as Uint8Array);
    this.bytes += buffer.length;
    if (this.bytes > this.maxBytes) {
      callback(new ObjectTooLargeError(this.maxBytes));
      return;
    }
    if (this.headLength < HEAD_BYTES) {
      const part = buffer.subarray(0, HEAD_BYTES - this.headLength);
      // Copy: the source may reuse its chunk buffers.
      this.headChunks.push(Buffer.from(part));
      this.headLength += part.length;
    }
    callback(null, buffer);
  }
}

async function unlinkIfPresent(file: string): Promise<void> {
  try {
    await unlink(file);
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code !== "ENOENT") throw error;
  }
}

function sign(secret: string, objectId: string, expires: string): string {
  return createHmac("sha256", secret).update(`upload\n${objectId}\n${expires}`).digest("hex");
}

export function createLocalStorage(options: { rootDir: string; signingSecret: string }): ObjectStorage {
  const rootDir = path.resolve(options.rootDir);
  const { signingSecret } = options;
  // Matches UPLOAD_SIGNING_SECRET's rule in env.server.ts.
  if (typeof signingSecret !== "string" || signingSecret.length < 32) {
    throw new Error("signingSecret must be at least 32 characters");
  }

  function resolveKey(key: string): string {
    assertValidKey(key);
    const file = path.resolve(rootDir, ...key.split("/"));
    // Belt and braces: the key rules above already rule out escaping rootDir.
    if (!file.startsWith(rootDir + path.sep)) {
      throw new InvalidStorageKeyError(`Invalid storage key: ${JSON.stringify(key)}`);
    }
    return file;
  }

  return {
    async write(key, body, writeOptions = {}) {
      const file = resolveKey(key);
      const maxBytes = writeOptions.maxBytes ?? Number.POSITIVE_INFINITY;
      await mkdir(path.dirname(file), { recursive: true });
      // Same directory as the target so the rename is atomic (same filesystem).
      const temp = path.join(
        path.dirname(file),
        `.${path.basename(file)}.${randomBytes(8).toString("hex")}.tmp`,
      );
      // Open before streaming so the temp file exists by the time any error
      // can happen; otherwise a late open could recreate it after cleanup.
      const handle = await open(
        temp,
        fsConstants.O_WRONLY | fsConstants.O_CREAT | fsConstants.O_EXCL,
        0o600,
      );
      const counter = new CountingTransform(maxBytes);
      try {
        await pipeline(body as Readable, counter, handle.createWriteStream());
        await rename(temp, file);
      } catch (error) {
        await handle.close().catch(() => {});
        await unlinkIfPresent(temp);
        throw error;
      }
      return { bytes: counter.bytes, head: counter.head };
    },

    async read(key) {
      const file = resolveKey(key);
      let handle;
      try {
        handle = await open(file, "r");
      } catch (error) {
        const code = (error as NodeJS.ErrnoException).code;
        if (code === "ENOENT" || code === "EISDIR") return null;
        throw error;
      }
      try {
        // Stat the open handle, not the path, so size and content agree even
        // if the key is replaced meanwhile.
        const info = await handle.stat();
        if (!info.isFile()) {
          await handle.close();
          return null;
        }
        return { stream: handle.createReadStream(), bytes: info.size };
      } catch (error) {
        await handle.close().catch(() => {});
        throw error;
      }
    },

    async exists(key) {
      const file = resolveKey(key);
      try {
        return (await stat(file)).isFile();
      } catch (error) {
        if ((error as NodeJS.ErrnoException).code === "ENOENT") return false;
        throw error;
      }
    },

    async delete(key) {
      await unlinkIfPresent(resolveKey(key));
    },

    createUploadTarget(objectId, expiresAt) {
      if (!isValidObjectId(objectId)) {
        throw new InvalidStorageKeyError(`Invalid object id: ${JSON.stringify(objectId)}`);
      }
      const expires = String(expiresAt.getTime());
      if (!/^\d{1,15}$/.test(expires)) throw new Error("expiresAt must be a valid date");
      const signature = sign(signingSecret, objectId, expires);
      const query = new URLSearchParams({ expires, signature });
      return { uploadURL: `/api/uploads/${encodeURIComponent(objectId)}?${query}` };
    },

    verifyUploadTarget(objectId, expires, signature, now = new Date()) {
      if (
        !isValidObjectId(objectId) ||
        typeof expires !== "string" ||
        !/^\d{1,15}$/.test(expires) ||
        typeof signature !== "string" ||
        !/^[0-9a-f]{64}$/.test(signature)
      ) {
        return "invalid";
      }
      const expected = Buffer.from(sign(signingSecret, objectId, expires), "hex");
      const given = Buffer.from(signature, "hex");
      if (!timingSafeEqual(expected, given)) return "invalid";
      // Signature first: an expired URL only reports "expired" if it is genuine.
      return now.getTime() > Number(expires) ? "expired" : "ok";
    },
  };
}
