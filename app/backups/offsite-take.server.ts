import { once } from "node:events";
import { createReadStream, createWriteStream, type WriteStream } from "node:fs";
import fs from "node:fs/promises";
import path from "node:path";
import { createInterface } from "node:readline";
import { finished } from "node:stream/promises";
import packageJson from "../../package.json";
import { readSnapshot } from "~/db/snapshot.server";
import type { AppServices } from "~/services.server";
import type { ObjectStorage } from "~/storage/storage.server";
import { BACKUP_TABLES, objectsNamedBy } from "./backup-tables.server";
import { createLineChunker } from "./offsite-chunks.server";
import {
  COPIES_PREFIX,
  COPY_FORMAT,
  COPY_FORMAT_VERSION,
  newCopyName,
  type CopyManifest,
  type FileLine,
} from "./offsite-manifest.server";
import { encryptBytes, objectIdOf, objectKey, OBJECTS_PREFIX, sealData, sealFileTo } from "./offsite-objects.server";
import { listCopies, readFileList, readManifest, type OffsiteRepository } from "./offsite-repository.server";

/**
 * Takes one copy into the off-site store (decision 0060): a snapshot of the
 * tables (one read transaction, as a backup's), cut into chunks of JSON lines;
 * the files the rows name; the list of those files; then the manifest, last.
 * Only objects the store does not hold yet are sent. A file already in the
 * newest copy under the same key and size is not even read again: stored keys
 * are never rewritten with other content (variants are named by their
 * content, originals and enquiry photos by a random id).
 * The caller holds a backup lease, so no file the snapshot names is deleted meanwhile.
 */
export type CopyServices = Pick<AppServices, "db" | "storage" | "logger">;

export type CopyFigures = {
  name: string;
  at: string;
  /** Bytes written to the store by this copy, and how many objects. */
  bytesSent: number;
  objectsSent: number;
  /** What the copy holds: the database's JSON lines and the files, as they are on the server. */
  tableBytes: number;
  rows: number;
  files: number;
  fileBytes: number;
  /** Files read and sealed this time (new, or not in the newest copy). */
  filesRead: number;
  missingObjects: number;
};

export type TakeCopyOptions = {
  at: Date;
  /** Holds the table files and each sealed file for a moment (DATA_DIR/backups). */
  workDir: string;
  signal?: AbortSignal;
  /** Secrets an encrypted copy carries (carried-secrets.server.ts). */
  carried?: Record<string, string>;
};

type TableFile = { file: string; stream: WriteStream; rows: number; bytes: number };

export async function takeOffsiteCopy(
  services: CopyServices,
  repo: OffsiteRepository,
  options: TakeCopyOptions,
): Promise<CopyFigures> {
  const { store, keys } = repo;
  const signal = options.signal;
  const sent = { bytes: 0, objects: 0 };
  // What the store holds now: anything missing (lost, or never finished) is sent again.
  const present = new Set((await store.list(OBJECTS_PREFIX)).map((object) => object.key.slice(OBJECTS_PREFIX.length)));
  const previous = await newestFileList(services, repo);

  const putData = async (chunk: Buffer) => {
    const id = objectIdOf(keys, "data", chunk);
    if (!present.has(id)) {
      const { sealed } = await sealData(keys, chunk);
      sent.bytes += await store.put(objectKey(id), { bytes: sealed }, { signal });
      sent.objects += 1;
      present.add(id);
    }
    return { id, bytes: chunk.length };
  };

  await fs.mkdir(options.workDir, { recursive: true, mode: 0o700 });
  const work = await fs.mkdtemp(path.join(options.workDir, ".offsite-"));
  const tableFiles = new Map<string, TableFile>();
  try {
    // 1. The tables, from one read transaction, into JSON-lines files (the transaction ends before anything is sent).
    const named = new Set<string>();
    const tableOf = new Map(BACKUP_TABLES.map((table) => [table.name, table]));
    const open = (table: string) => {
      const entry = {
        file: path.join(work, `${table}.jsonl`),
        stream: createWriteStream(path.join(work, `${table}.jsonl`), { mode: 0o600 }),
        rows: 0,
        bytes: 0,
      };
      tableFiles.set(table, entry);
      return entry;
    };
    const snapshot = await readSnapshot(
      services.db,
      BACKUP_TABLES.map((table) => table.name),
      async (table, row) => {
        const target = tableFiles.get(table) ?? open(table);
        const line = `${JSON.stringify(row)}\n`;
        target.rows += 1;
        target.bytes += Buffer.byteLength(line);
        if (!target.stream.write(line)) await once(target.stream, "drain");
        for (const key of objectsNamedBy(tableOf.get(table)!, row).keys()) named.add(key);
      },
    );
    for (const table of BACKUP_TABLES) {
      if (!snapshot.missingTables.includes(table.name) && !tableFiles.has(table.name)) open(table.name);
    }
    await Promise.all([...tableFiles.values()].map((table) => finished(table.stream.end())));
    signal?.throwIfAborted();

    // 2. Each table in chunks.
    const tables: CopyManifest["tables"] = {};
    for (const [table, written] of tableFiles) {
      const chunker = createLineChunker(keys.namingKey);
      const chunks: CopyManifest["tables"][string]["chunks"] = [];
      for await (const line of createInterface({ input: createReadStream(written.file), crlfDelay: Infinity })) {
        for (const chunk of chunker.push(line)) chunks.push(await putData(chunk));
      }
      for (const chunk of chunker.end()) chunks.push(await putData(chunk));
      tables[table] = { rows: written.rows, bytes: written.bytes, chunks };
    }

    // 3. The files the rows name.
    const keysNamed = [...named].sort();
    const sizes = await storedSizes(services.storage, keysNamed);
    const lines: FileLine[] = [];
    const missingObjects: string[] = [];
    let filesRead = 0;
    for (const [index, key] of keysNamed.entries()) {
      signal?.throwIfAborted();
      const bytes = sizes.get(key) ?? (await services.storage.stat(key))?.bytes;
      const known = previous.get(key);
      if (bytes !== undefined && known && known.bytes === bytes && present.has(known.id)) {
        lines.push(known);
        continue;
      }
      const object = bytes === undefined ? null : await services.storage.read(key);
      if (!object) {
        missingObjects.push(key);
        continue;
      }
      const sealedFile = path.join(work, `file-${index}`);
      const sealed = await sealFileTo(keys, object.stream, sealedFile);
      filesRead += 1;
      if (!present.has(sealed.id)) {
        sent.bytes += await store.put(objectKey(sealed.id), { file: sealedFile }, { signal });
        sent.objects += 1;
        present.add(sealed.id);
      }
      await fs.rm(sealedFile, { force: true });
      lines.push({ key, id: sealed.id, bytes: sealed.bytes });
    }

    // 4. The list of files, chunked the same way (it changes only when files do).
    const chunker = createLineChunker(keys.namingKey);
    const listChunks: CopyManifest["files"]["chunks"] = [];
    for (const line of lines)
      for (const chunk of chunker.push(JSON.stringify(line))) listChunks.push(await putData(chunk));
    for (const chunk of chunker.end()) listChunks.push(await putData(chunk));

    // 5. The manifest, last: until it is there, the copy does not exist.
    signal?.throwIfAborted();
    const name = newCopyName(options.at);
    const fileBytes = lines.reduce((sum, line) => sum + line.bytes, 0);
    const manifest: CopyManifest = {
      format: COPY_FORMAT,
      formatVersion: COPY_FORMAT_VERSION,
      name,
      createdAt: options.at.toISOString(),
      appVersion: packageJson.version,
      schema: { migration: snapshot.migration },
      tables,
      files: { count: lines.length, bytes: fileBytes, chunks: listChunks },
      missingObjects,
      carried: options.carried ?? {},
    };
    sent.bytes += await store.put(
      `${COPIES_PREFIX}${name}`,
      { bytes: await encryptBytes(keys, Buffer.from(JSON.stringify(manifest))) },
      { signal },
    );
    sent.objects += 1;
    const tableValues = Object.values(tables);
    return {
      name,
      at: manifest.createdAt,
      bytesSent: sent.bytes,
      objectsSent: sent.objects,
      tableBytes: tableValues.reduce((sum, table) => sum + table.bytes, 0),
      rows: tableValues.reduce((sum, table) => sum + table.rows, 0),
      files: lines.length,
      fileBytes,
      filesRead,
      missingObjects: missingObjects.length,
    };
  } finally {
    for (const table of tableFiles.values()) table.stream.destroy();
    await fs.rm(work, { recursive: true, force: true });
  }
}

/** The newest copy's files by key (what need not be read again); empty when there is none, or it cannot be read. */
async function newestFileList(services: CopyServices, repo: OffsiteRepository): Promise<Map<string, FileLine>> {
  const newest = (await listCopies(repo.store)).at(-1);
  if (!newest) return new Map();
  try {
    return new Map((await readFileList(repo, await readManifest(repo, newest.name))).map((line) => [line.key, line]));
  } catch (error) {
    // Every file is read and named afresh; only the ones the store lacks are sent.
    services.logger.warn(
      { err: error, copy: newest.name },
      "the newest off-site copy could not be read; every file is checked again",
    );
    return new Map();
  }
}

/** Each named key's size in storage, from one listing per top-level folder (not one request per file). */
async function storedSizes(storage: ObjectStorage, keys: readonly string[]): Promise<Map<string, number>> {
  const sizes = new Map<string, number>();
  const folders = new Set(keys.map((key) => `${key.split("/")[0]}/`));
  for (const folder of folders) for (const object of await storage.list(folder)) sizes.set(object.key, object.bytes);
  return sizes;
}
