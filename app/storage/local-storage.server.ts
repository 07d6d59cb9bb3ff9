import { createHmac, randomBytes, timingSafeEqual } from "node:crypto";
import { constants as fsConstants, createReadStream } from "node:fs";
import { mkdir, open, readdir, rename, stat, unlink } from "node:fs/promises";
import path from "node:path";
import { Readable } from "node:stream";
import { pipeline } from "node:stream/promises";
import { createLocalPartUploads } from "./local-part-uploads.server";
import { InvalidStorageKeyError, StorageCheckError } from "./storage-errors.server";
import { assertValidKey, isValidObjectId } from "./storage-keys.server";
import type { DeclaredUpload, ObjectStorage, UploadUrlParams } from "./storage.server";
import { CountingTransform } from "./stream-limits.server";

async function unlinkIfPresent(file: string): Promise<void> {
  try {
    await unlink(file);
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code !== "ENOENT") throw error;
  }
}

/** A handle on the file, or null when it is missing or a folder. */
async function openIfPresent(file: string) {
  try {
    return await open(file, "r");
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code;
    if (code === "ENOENT" || code === "EISDIR") return null;
    throw error;
  }
}

/** The declaration, when there is one, is part of what is signed: a URL for one file fits no other. */
function sign(secret: string, objectId: string, expires: string, declared?: { size: string; type: string }): string {
  const message = [`upload`, objectId, expires, ...(declared ? [declared.size, declared.type] : [])].join("\n");
  return createHmac("sha256", secret).update(message).digest("hex");
}

// Printable, no spaces or line breaks (which separate the signed fields).
const MEDIA_TYPE = /^[\x21-\x7e]{1,100}$/;

/** A declared size and type as they appear in a URL, or null when absent; "malformed" for half or junk. */
function declarationIn(
  params: Pick<UploadUrlParams, "size" | "type">,
): { size: string; type: string } | null | "malformed" {
  const { size, type } = params;
  if (size === undefined && type === undefined) return null;
  if (typeof size !== "string" || typeof type !== "string" || !/^\d{1,9}$/.test(size) || !MEDIA_TYPE.test(type))
    return "malformed";
  return { size, type };
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
      const temp = path.join(path.dirname(file), `.${path.basename(file)}.${randomBytes(8).toString("hex")}.tmp`);
      // Opened before streaming, so no late open can recreate it after cleanup.
      const handle = await open(temp, fsConstants.O_WRONLY | fsConstants.O_CREAT | fsConstants.O_EXCL, 0o600);
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
      // Only the prefix's folder is walked ("variants/" need not walk originals/); its keys are filtered below all the same.
      const folder = path.resolve(rootDir, prefix.slice(0, prefix.lastIndexOf("/") + 1));
      const start = folder === rootDir || folder.startsWith(`${rootDir}${path.sep}`) ? folder : rootDir;
      const entries = await readdir(start, { recursive: true, withFileTypes: true }).catch(
        (error: NodeJS.ErrnoException) => {
          if (error.code === "ENOENT") return [];
          throw error;
        },
      );
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
      const handle = await openIfPresent(resolveKey(key));
      if (!handle) return null;
      try {
        // The open handle's size, not the path's: they agree even if the key is replaced meanwhile.
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

    exists: async (key) => (await storage.stat(key)) !== null,

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
      const handle = await openIfPresent(resolveKey(key));
      if (!handle) return null;
      try {
        const buffer = Buffer.alloc(length);
        const { bytesRead } = await handle.read(buffer, 0, length, 0);
        return buffer.subarray(0, bytesRead);
      } finally {
        await handle.close();
      }
    },

    // The disk keeps no media type: /media/ derives it from the variant's name.
    async move(from, to) {
      const source = resolveKey(from);
      const target = resolveKey(to);
      await mkdir(path.dirname(target), { recursive: true });
      await rename(source, target);
    },

    async delete(key) {
      await unlinkIfPresent(resolveKey(key));
    },

    async createUploadTarget(objectId, expiresAt, declared?: DeclaredUpload) {
      if (!isValidObjectId(objectId)) {
        throw new InvalidStorageKeyError(`Invalid object id: ${JSON.stringify(objectId)}`);
      }
      const expires = String(expiresAt.getTime());
      if (!/^\d{1,15}$/.test(expires)) throw new Error("expiresAt must be a valid date");
      const declaration = declared ? { size: String(declared.bytes), type: declared.contentType } : undefined;
      if (declaration && declarationIn(declaration) === "malformed")
        throw new Error("declared must be a byte count and a media type");
      const signature = sign(signingSecret, objectId, expires, declaration);
      const query = new URLSearchParams({ expires, ...declaration, signature });
      return { uploadURL: `/api/uploads/${encodeURIComponent(objectId)}?${query}`, key: `originals/${objectId}` };
    },

    objectIdFromUploadUrl(url, ownOrigins) {
      if (!ownOrigins.includes(url.origin)) return null;
      const match = /^\/api\/uploads\/([a-z0-9-]{1,128})$/.exec(url.pathname);
      return match ? match[1]! : null;
    },

    verifyUploadTarget(objectId, params, now = new Date()) {
      const { expires, signature } = params;
      const declaration = declarationIn(params);
      if (
        !isValidObjectId(objectId) ||
        typeof expires !== "string" ||
        !/^\d{1,15}$/.test(expires) ||
        typeof signature !== "string" ||
        !/^[0-9a-f]{64}$/.test(signature) ||
        declaration === "malformed"
      ) {
        return "invalid";
      }
      const expected = Buffer.from(sign(signingSecret, objectId, expires, declaration ?? undefined), "hex");
      const given = Buffer.from(signature, "hex");
      if (!timingSafeEqual(expected, given)) return "invalid";
      // Signature first: an expired URL only reports "expired" if it is genuine.
      return now.getTime() > Number(expires) ? "expired" : "ok";
    },

    anonymousUrl: () => null,

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

    // Through this storage's own write, read and delete (called only once `storage` exists).
    parts: createLocalPartUploads({
      write: (key, body, options) => storage.write(key, body, options),
      read: (key) => storage.read(key),
      delete: (key) => storage.delete(key),
    }),

    async close() {},
  };
  return storage;
}
