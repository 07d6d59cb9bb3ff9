import { createHmac, randomBytes, timingSafeEqual } from "node:crypto";
import { constants as fsConstants, createReadStream } from "node:fs";
import { mkdir, open, readdir, rename, stat, unlink } from "node:fs/promises";
import path from "node:path";
import { Readable, Transform, type TransformCallback } from "node:stream";
import { pipeline } from "node:stream/promises";

/**
 * Object storage behind one small interface: local disk (this file) or an
 * S3-compatible bucket (s3-storage.server.ts), chosen by openObjectStorage().
 * Routes and the image pipeline never know which.
 */
export interface ObjectStorage {
  /**
   * How an upload's bytes arrive: "via-server" PUTs to this server's
   * /api/uploads/:id, which streams them here and checks them on the way;
   * "direct" PUTs go straight to the bucket, and registration checks them.
   */
  readonly uploadMode: "via-server" | "direct";
  /** Origins the browser must be allowed to connect to (CSP connect-src) for uploads. */
  readonly uploadOrigins: readonly string[];
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
  /**
   * Copies a local file of any size into the object at key (a backup archive:
   * S3 streams it in one PutObject of known length, up to S3's 5 GB limit).
   * An abort stops the copy; a copy that fails leaves no object at key.
   */
  writeFile(key: string, file: string, options?: { signal?: AbortSignal }): Promise<{ bytes: number }>;
  /** Every object whose key starts with `prefix` (e.g. "backups/"), sorted by key. */
  list(prefix: string): Promise<{ key: string; bytes: number }[]>;
  /** Returns a readable stream, or null when missing. Consume or destroy the stream: it holds a file handle. */
  read(key: string): Promise<{ stream: Readable; bytes: number } | null>;
  exists(key: string): Promise<boolean>;
  /** The object's size (S3: a HEAD request), or null when missing. */
  stat(key: string): Promise<{ bytes: number } | null>;
  /** At most the first `length` bytes (S3: a ranged GET), or null when missing. */
  readHead(key: string, length: number): Promise<Buffer | null>;
  /** Moves an object to another key, replacing what is there. Rejects when `from` is missing. */
  move(from: string, to: string): Promise<void>;
  /** Idempotent: deleting a missing key is fine. */
  delete(key: string): Promise<void>;
  /**
   * A URL a client can PUT one object to, and the key it lands at. Local:
   * the same-origin relative URL `/api/uploads/<objectId>?expires=<unixMs>&signature=<hex hmac-sha256>`
   * writing `originals/<objectId>`. S3: a presigned PUT for `incoming/<objectId>`.
   */
  createUploadTarget(objectId: string, expiresAt: Date): Promise<{ uploadURL: string; key: string }>;
  /**
   * The object id in an upload URL this storage issued, or null (another host,
   * another path, junk). `ownOrigins`: the origins this site is reached at.
   */
  objectIdFromUploadUrl(url: URL, ownOrigins: readonly string[]): string | null;
  /** Verifies a signed upload URL's (objectId, expires, signature) in constant time. Only "via-server" storage issues such URLs. */
  verifyUploadTarget(
    objectId: string,
    expires: string,
    signature: string,
    now?: Date,
  ): "ok" | "expired" | "invalid";
  /**
   * The start-up check: writes, reads back and deletes a probe object (S3:
   * and checks the bucket's CORS rule lets `siteOrigin` PUT; null skips that
   * for the scripts, which take no uploads). Rejects with StorageCheckError,
   * whose message says what to fix.
   */
  check(options: { siteOrigin: string | null }): Promise<void>;
  /** Releases connections. */
  close(): Promise<void>;
}

export class StorageCheckError extends Error {
  override name = "StorageCheckError";
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

/**
 * Reads a whole stream into memory, failing with ObjectTooLargeError past
 * maxBytes (for stores that need the length before the first byte).
 */
export async function collectStream(
  body: NodeJS.ReadableStream | Readable,
  maxBytes = Number.POSITIVE_INFINITY,
): Promise<{ data: Buffer; head: Buffer }> {
  const counter = new CountingTransform(maxBytes);
  const chunks: Buffer[] = [];
  await pipeline(body as Readable, counter, async (source: AsyncIterable<Buffer>) => {
    for await (const chunk of source) chunks.push(chunk);
  });
  return { data: Buffer.concat(chunks, counter.bytes), head: counter.head };
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

  const storage: ObjectStorage = {
    uploadMode: "via-server",
    uploadOrigins: [],

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

    async writeFile(key, file, options = {}) {
      const { bytes } = await storage.write(key, createReadStream(file, { signal: options.signal }));
      return { bytes };
    },

    async list(prefix) {
      const found: { key: string; bytes: number }[] = [];
      const entries = await readdir(rootDir, { recursive: true, withFileTypes: true }).catch((error: NodeJS.ErrnoException) => {
        if (error.code === "ENOENT") return [];
        throw error;
      });
      for (const entry of entries) {
        // Temp files start with "."; keys never do.
        if (!entry.isFile() || entry.name.startsWith(".")) continue;
        const key = path.relative(rootDir, path.join(entry.parentPath, entry.name)).split(path.sep).join("/");
        if (!key.startsWith(prefix)) continue;
        const info = await stat(path.join(entry.parentPath, entry.name)).catch(() => null);
        if (info) found.push({ key, bytes: info.size });
      }
      return found.sort((a, b) => (a.key < b.key ? -1 : a.key > b.key ? 1 : 0));
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

    async stat(key) {
      try {
        const info = await stat(resolveKey(key));
        return info.isFile() ? { bytes: info.size } : null;
      } catch (error) {
        if ((error as NodeJS.ErrnoException).code === "ENOENT") return null;
        throw error;
      }
    },

    async readHead(key, length) {
      let handle;
      try {
        handle = await open(resolveKey(key), "r");
      } catch (error) {
        const code = (error as NodeJS.ErrnoException).code;
        if (code === "ENOENT" || code === "EISDIR") return null;
        throw error;
      }
      try {
        const buffer = Buffer.alloc(length);
        const { bytesRead } = await handle.read(buffer, 0, length, 0);
        return buffer.subarray(0, bytesRead);
      } finally {
        await handle.close();
      }
    },

    async move(from, to) {
      const source = resolveKey(from);
      const target = resolveKey(to);
      await mkdir(path.dirname(target), { recursive: true });
      await rename(source, target);
    },

    async delete(key) {
      await unlinkIfPresent(resolveKey(key));
    },

    async createUploadTarget(objectId, expiresAt) {
      if (!isValidObjectId(objectId)) {
        throw new InvalidStorageKeyError(`Invalid object id: ${JSON.stringify(objectId)}`);
      }
      const expires = String(expiresAt.getTime());
      if (!/^\d{1,15}$/.test(expires)) throw new Error("expiresAt must be a valid date");
      const signature = sign(signingSecret, objectId, expires);
      const query = new URLSearchParams({ expires, signature });
      return { uploadURL: `/api/uploads/${encodeURIComponent(objectId)}?${query}`, key: `originals/${objectId}` };
    },

    objectIdFromUploadUrl(url, ownOrigins) {
      if (!ownOrigins.includes(url.origin)) return null;
      const match = /^\/api\/uploads\/([a-z0-9-]{1,128})$/.exec(url.pathname);
      return match ? match[1]! : null;
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

    async check() {
      const probe = `healthcheck/${randomBytes(8).toString("hex")}`;
      try {
        await storage.write(probe, Readable.from([Buffer.from("ok")]));
        const head = await storage.readHead(probe, 2);
        if (head?.toString() !== "ok") throw new Error("the probe file read back differently");
      } catch (error) {
        throw new StorageCheckError(
          `Cannot write and read files in ${rootDir}: ${error instanceof Error ? error.message : String(error)}\n` +
            "Check that DATA_DIR is on a writable disk with free space.",
        );
      } finally {
        await storage.delete(probe).catch(() => {});
      }
    },

    async close() {},
  };
  return storage;
}
