import { createHash } from "node:crypto";
import { createReadStream } from "node:fs";
import { once, type EventEmitter } from "node:events";
import { PassThrough, Transform, type Readable, type Writable } from "node:stream";
import { pipeline } from "node:stream/promises";
import zlib from "node:zlib";
import tar from "tar-stream";
import { formatBytes } from "./backup-status";
import {
  ARCHIVE_FORMAT,
  ARCHIVE_FORMAT_VERSION,
  BackupArchiveError,
  classifyEntryName,
  GZIP_OPTIONS,
  MANIFEST_NAME,
  MAX_MANIFEST_BYTES,
  MAX_TWO_STEP_KEY_ENTRY_BYTES,
  type ArchiveEntryKind,
  type BackupManifest,
  type ManifestFiles,
} from "./backup-format.server";

/**
 * Writing and reading the backup archive, whose names and manifest are in
 * ./backup-format.server.ts (decision 0025).
 */

// ---------------------------------------------------------------------------------------------
// Writing

export type ArchiveWriter = {
  /** Adds an entry of known size from a stream, hashing it on the way. */
  addStream(name: string, source: Readable, bytes: number): Promise<void>;
  addFile(name: string, file: string, bytes: number): Promise<void>;
  /** Adds manifest.json (with every file's size and hash) and ends the archive. */
  finish(manifest: Omit<BackupManifest, "files" | "format" | "formatVersion">): Promise<BackupManifest>;
  /** Bytes of the compressed archive written so far. */
  readonly archiveBytes: number;
};

export function createArchiveWriter(output: Writable, options: { mtime: Date; signal?: AbortSignal }): ArchiveWriter {
  const pack = tar.pack();
  const files: ManifestFiles = {};
  let archiveBytes = 0;
  const counter = new Transform({
    transform(chunk: Buffer, _encoding, callback) {
      archiveBytes += chunk.length;
      callback(null, chunk);
    },
  });
  const done = pipeline(pack, zlib.createGzip(GZIP_OPTIONS), counter, output, { signal: options.signal });
  // Settles only on failure; raced against every wait below, so a broken output never leaves one hanging.
  const failed = new Promise<never>((_resolve, reject) => {
    done.catch(reject);
  });
  failed.catch(() => {});

  const header = (name: string, size: number) => ({
    name,
    size,
    mode: 0o600,
    mtime: options.mtime,
    type: "file" as const,
  });

  async function addStream(name: string, source: Readable, bytes: number): Promise<void> {
    if (files[name]) throw new Error(`Duplicate archive entry: ${name}`);
    const hash = createHash("sha256");
    let settle!: (error?: Error | null) => void;
    const entryFinished = new Promise<void>((resolve, reject) => {
      settle = (error) => (error ? reject(error) : resolve());
    });
    entryFinished.catch(() => {});
    const entry = pack.entry(header(name, bytes), (error) => settle(error));
    // Its failure arrives through the callback above; an 'error' event with no listener would throw.
    entry.on("error", () => {});
    let written = 0;
    try {
      for await (const chunk of source) {
        options.signal?.throwIfAborted();
        const buffer = chunk as Buffer;
        written += buffer.length;
        // The header promised `bytes`: more would corrupt the archive.
        if (written > bytes) throw new Error(`${name} grew while it was being backed up`);
        hash.update(buffer);
        if (!entry.write(buffer))
          await Promise.race([once(entry as unknown as EventEmitter, "drain"), failed, entryFinished]);
      }
      if (written !== bytes) throw new Error(`${name} changed size while it was being backed up`);
      entry.end(undefined);
      await Promise.race([entryFinished, failed]);
    } catch (error) {
      source.destroy();
      entry.destroy(error as Error);
      throw error;
    }
    files[name] = { bytes, sha256: hash.digest("hex") };
  }

  return {
    addStream,
    addFile: (name, file, bytes) => addStream(name, createReadStream(file), bytes),
    async finish(partial) {
      const manifest: BackupManifest = {
        format: ARCHIVE_FORMAT,
        formatVersion: ARCHIVE_FORMAT_VERSION,
        ...partial,
        files,
      };
      const body = Buffer.from(`${JSON.stringify(manifest, null, 2)}\n`);
      await Promise.race([
        new Promise<void>((resolve, reject) => {
          pack.entry(header(MANIFEST_NAME, body.length), body, (error) => (error ? reject(error) : resolve()));
        }),
        failed,
      ]);
      pack.finalize();
      await done;
      return manifest;
    },
    get archiveBytes() {
      return archiveBytes;
    },
  };
}

// ---------------------------------------------------------------------------------------------
// Reading

const TAR_BLOCK = 512;

/**
 * When the archive was made, read from its first bytes alone (the gzip'd start of the tar): the
 * first entry's header carries the backup's start time (createArchiveWriter's mtime), the same
 * instant as manifest.createdAt, to the second. Null when the bytes do not start a Cornerstone
 * archive. Inside an encrypted backup this time is as trustworthy as the passphrase.
 */
export function archiveTimeFromStart(start: Buffer): Date | null {
  let tarStart: Buffer;
  try {
    // A part of a gzip stream: what it holds so far, without waiting for its end.
    tarStart = zlib.gunzipSync(start, { finishFlush: zlib.constants.Z_SYNC_FLUSH });
  } catch {
    return null;
  }
  if (tarStart.length < TAR_BLOCK) return null;
  const header = tarStart.subarray(0, TAR_BLOCK);
  const text = (from: number, to: number) => header.subarray(from, to).toString("latin1").replace(/\0.*$/s, "").trim();
  if (text(257, 262) !== "ustar") return null;
  // The header's checksum: the sum of its bytes, with the checksum field counted as spaces.
  let sum = 0;
  for (let i = 0; i < TAR_BLOCK; i++) sum += i >= 148 && i < 156 ? 0x20 : header[i]!;
  if (parseInt(text(148, 156), 8) !== sum) return null;
  try {
    classifyEntryName(text(0, 100));
  } catch {
    return null;
  }
  const seconds = parseInt(text(136, 148), 8);
  return Number.isFinite(seconds) ? new Date(seconds * 1000) : null;
}

export type ArchiveEntry = {
  name: string;
  kind: ArchiveEntryKind;
  bytes: number;
  /** The entry's content; read it to the end (or the archive stalls). */
  stream: Readable;
};

function describeReadError(error: unknown): BackupArchiveError {
  if (error instanceof BackupArchiveError) return error;
  const err = error as NodeJS.ErrnoException;
  if (err?.code === "ENOENT") return new BackupArchiveError(`The backup file does not exist: ${err.path ?? ""}`);
  if (err?.code === "EISDIR") return new BackupArchiveError("The backup path is a folder, not a backup file");
  if (err?.code === "Z_DATA_ERROR" || /incorrect header check|invalid/i.test(err?.message ?? "")) {
    return new BackupArchiveError("The file is not a Cornerstone backup: it is not gzip-compressed or it is corrupt");
  }
  if (err?.code === "Z_BUF_ERROR" || /unexpected end|premature close/i.test(err?.message ?? "")) {
    return new BackupArchiveError("The backup file is truncated: it ends part-way through");
  }
  return new BackupArchiveError(`The backup file could not be read: ${err?.message ?? String(error)}`);
}

/**
 * Streams the archive's entries in order, each checked against the allowed
 * names and hashed as it is read. A damaged archive is a BackupArchiveError;
 * an error thrown by onEntry comes out unchanged. onEntry must consume the
 * entry's stream.
 */
export async function readArchive(
  file: string,
  onEntry: (entry: ArchiveEntry) => Promise<void>,
  /** An object entry larger than this is refused from its header, before a byte of it is read. */
  limits: { maxObjectBytes?: number } = {},
): Promise<{ hashes: ManifestFiles; manifestText: string | null; order: string[] }> {
  const extract = tar.extract();
  const hashes: ManifestFiles = {};
  const order: string[] = [];
  const seenNames = new Set<string>();
  let manifestText: string | null = null;
  let feedError: unknown = null;
  let consumerError: { error: unknown } | null = null;
  const feeding = pipeline(createReadStream(file), zlib.createGunzip(), extract).catch((error: unknown) => {
    feedError ??= error;
  });
  try {
    for await (const entry of extract) {
      const { name, type, size } = entry.header;
      if (type !== "file") {
        throw new BackupArchiveError(
          `The archive holds a ${type ?? "special"} entry (${JSON.stringify(name)}); a backup only holds files. Nothing was restored from it.`,
        );
      }
      if (seenNames.has(name)) throw new BackupArchiveError(`The archive holds ${name} twice`);
      seenNames.add(name);
      const kind = classifyEntryName(name);
      const bytes = size ?? 0;
      if (kind.kind === "object" && limits.maxObjectBytes !== undefined && bytes > limits.maxObjectBytes) {
        throw new BackupArchiveError(
          `${name} is ${formatBytes(bytes)}, larger than any image file this site stores (at most ${formatBytes(limits.maxObjectBytes)})`,
        );
      }
      if (kind.kind === "two-step-key" && bytes > MAX_TWO_STEP_KEY_ENTRY_BYTES) {
        throw new BackupArchiveError(`${name} is ${formatBytes(bytes)}, far larger than the key it holds`);
      }
      order.push(name);
      if (kind.kind === "manifest") {
        if (bytes > MAX_MANIFEST_BYTES) throw new BackupArchiveError("manifest.json is implausibly large");
        const chunks: Buffer[] = [];
        for await (const chunk of entry) chunks.push(chunk as Buffer);
        manifestText = Buffer.concat(chunks).toString("utf8");
        continue;
      }
      const hash = createHash("sha256");
      let seen = 0;
      const tee = new PassThrough();
      const consumer = onEntry({ name, kind, bytes, stream: tee }).catch((error: unknown) => {
        consumerError = { error };
        // Thrown below; a consumer that failed before reading its stream left no listener for it.
        tee.on("error", () => {});
        tee.destroy(error as Error);
      });
      for await (const chunk of entry) {
        hash.update(chunk as Buffer);
        seen += (chunk as Buffer).length;
        if (consumerError) break;
        if (!tee.write(chunk)) await once(tee, "drain").catch(() => {});
      }
      tee.end();
      await consumer;
      if (consumerError) throw (consumerError as { error: unknown }).error;
      if (seen !== bytes) throw new BackupArchiveError(`${name} is truncated`);
      hashes[name] = { bytes: seen, sha256: hash.digest("hex") };
    }
  } catch (error) {
    extract.destroy();
    await feeding;
    if (consumerError && error === (consumerError as { error: unknown }).error) throw error;
    if (error instanceof BackupArchiveError) throw error;
    throw describeReadError(feedError ?? error);
  }
  await feeding;
  if (feedError) throw describeReadError(feedError);
  return { hashes, manifestText, order };
}
