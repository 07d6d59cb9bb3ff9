import { createHash } from "node:crypto";
import { createReadStream } from "node:fs";
import fs from "node:fs/promises";
import path from "node:path";
import { once, type EventEmitter } from "node:events";
import { PassThrough, Transform, type Readable, type Writable } from "node:stream";
import { pipeline } from "node:stream/promises";
import zlib from "node:zlib";
import tar from "tar-stream";
import { formatBytes } from "./backup-status";
import { BACKUP_TABLES } from "./backup-tables.server";
import {
  BackupArchiveError,
  classifyEntryName,
  GZIP_OPTIONS,
  MANIFEST_NAME,
  MAX_MANIFEST_BYTES,
  MAX_TWO_STEP_KEY_ENTRY_BYTES,
  tableFileName,
  type ArchiveEntryKind,
  type BackupManifest,
  type ManifestFiles,
} from "./backup-format.server";

/** Writing and reading the backup archive (names and manifest: ./backup-format.server.ts, decision 0025). */

export type ArchiveWriter = {
  /** Adds an entry of known size from a stream, hashing it on the way. */
  addStream(name: string, source: Readable, bytes: number): Promise<void>;
  addFile(name: string, file: string, bytes: number): Promise<void>;
  /** Adds manifest.json (with every file's size and hash) and ends the archive. */
  finish(manifest: Omit<BackupManifest, "files">): Promise<BackupManifest>;
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
      const manifest: BackupManifest = { ...partial, files };
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

const TABLE_ORDER = new Map(BACKUP_TABLES.map((table, index) => [tableFileName(table.name), index]));
type EntryHeader = { name: string; type?: string | null; size?: number };

/** A folder's files as the archive's entries, in its order: tables, the carried key, objects, manifest.json last. */
async function* folderEntries(
  dir: string,
): AsyncGenerator<{ header: EntryHeader; content: () => AsyncIterable<unknown> }> {
  const found = (await fs.readdir(dir, { recursive: true, withFileTypes: true })).filter(
    (entry) => !entry.isDirectory(),
  );
  const named = found.map((entry) => {
    const file = path.join(entry.parentPath, entry.name);
    return { entry, file, name: path.relative(dir, file).split(path.sep).join("/") };
  });
  // Tables in the registry's order (a row's parents first), the carried key, the objects, manifest.json last.
  const rank = (name: string) =>
    name === MANIFEST_NAME
      ? 1e9
      : name.startsWith("objects/")
        ? 1e8
        : name.startsWith("keys/")
          ? 1e7
          : (TABLE_ORDER.get(name) ?? 1e6);
  named.sort((a, b) => rank(a.name) - rank(b.name) || (a.name < b.name ? -1 : 1));
  for (const { entry, file, name } of named) {
    const type = entry.isFile() ? "file" : entry.isSymbolicLink() ? "symbolic link" : "special";
    const size = entry.isFile() ? (await fs.stat(file)).size : 0;
    yield { header: { name, type, size }, content: () => createReadStream(file) };
  }
}

/**
 * Streams the entries in order, each name checked and hashed as read (damage: BackupArchiveError; onEntry's own
 * errors pass unchanged; onEntry must consume the stream). `file` may be a folder of the same entries (restic's).
 */
export async function readArchive(
  file: string,
  onEntry: (entry: ArchiveEntry) => Promise<void>,
  /** An object entry larger than this is refused from its header, before a byte of it is read. */
  limits: { maxObjectBytes?: number } = {},
): Promise<{ hashes: ManifestFiles; manifestText: string | null; order: string[] }> {
  const hashes: ManifestFiles = {};
  const order: string[] = [];
  const seenNames = new Set<string>();
  let manifestText: string | null = null;
  let consumerError: { error: unknown } | null = null;

  async function readEntry({ name, type, size }: EntryHeader, content: () => AsyncIterable<unknown>) {
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
      for await (const chunk of content()) chunks.push(chunk as Buffer);
      manifestText = Buffer.concat(chunks).toString("utf8");
      return;
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
    for await (const chunk of content()) {
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

  if ((await fs.stat(file).catch(() => null))?.isDirectory()) {
    try {
      for await (const { header, content } of folderEntries(file)) await readEntry(header, content);
    } catch (error) {
      if (
        (consumerError && error === (consumerError as { error: unknown }).error) ||
        error instanceof BackupArchiveError
      )
        throw error;
      throw describeReadError(error);
    }
    return { hashes, manifestText, order };
  }
  const extract = tar.extract();
  let feedError: unknown = null;
  const feeding = pipeline(createReadStream(file), zlib.createGunzip(), extract).catch((error: unknown) => {
    feedError ??= error;
  });
  try {
    for await (const entry of extract) await readEntry(entry.header, () => entry);
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
