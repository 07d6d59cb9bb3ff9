import { createHash } from "node:crypto";
import { createReadStream, createWriteStream } from "node:fs";
import fs from "node:fs/promises";
import os from "node:os";
import path from "node:path";
import { pipeline } from "node:stream/promises";
import zlib from "node:zlib";
import tar from "tar-stream";
import { migrateTo, openDatabase } from "~/db/database.server";

/**
 * Tests' tools for backup archives: read every entry of one, and write a
 * changed copy (optionally with a manifest whose checksums match again, to
 * build archives that pass the checksum test but break some other rule).
 */
export type RawEntry = { name: string; type: string; data: Buffer };

export async function readEntries(file: string): Promise<RawEntry[]> {
  const extract = tar.extract();
  const entries: RawEntry[] = [];
  const feeding = pipeline(createReadStream(file), zlib.createGunzip(), extract);
  for await (const entry of extract) {
    const chunks: Buffer[] = [];
    for await (const chunk of entry) chunks.push(chunk as Buffer);
    entries.push({ name: entry.header.name, type: entry.header.type ?? "file", data: Buffer.concat(chunks) });
  }
  await feeding;
  return entries;
}

export async function writeEntries(file: string, entries: RawEntry[]): Promise<void> {
  const pack = tar.pack();
  const done = pipeline(pack, zlib.createGzip(), createWriteStream(file));
  for (const entry of entries) {
    await new Promise<void>((resolve, reject) => {
      if (entry.type === "file") {
        pack.entry({ name: entry.name, size: entry.data.length }, entry.data, (error) =>
          error ? reject(error) : resolve(),
        );
      } else {
        pack.entry({ name: entry.name, type: entry.type as "symlink", linkname: entry.data.toString() }, (error) =>
          error ? reject(error) : resolve(),
        );
      }
    });
  }
  pack.finalize();
  await done;
}

export type Manifest = {
  schema: { migration: string };
  tables: Record<string, { file: string; rows: number }>;
  files: Record<string, { bytes: number; sha256: string }>;
  [key: string]: unknown;
};

export function manifestOf(entries: RawEntry[]): Manifest {
  return JSON.parse(entries.find((e) => e.name === "manifest.json")!.data.toString("utf8")) as Manifest;
}

/**
 * Copies `source` to `target` after `change` edits its entries and manifest;
 * with `rehash`, the manifest's sizes and checksums are recomputed so they
 * match the changed entries.
 */
export async function rewriteArchive(
  source: string,
  target: string,
  change: (entries: RawEntry[], manifest: Manifest) => RawEntry[] | void,
  options: { rehash?: boolean } = {},
): Promise<void> {
  const entries = await readEntries(source);
  const manifest = manifestOf(entries);
  const changed = (change(entries, manifest) ?? entries).filter((e) => e.name !== "manifest.json");
  if (options.rehash) {
    manifest.files = {};
    for (const entry of changed) {
      if (entry.type !== "file") continue;
      manifest.files[entry.name] = {
        bytes: entry.data.length,
        sha256: createHash("sha256").update(entry.data).digest("hex"),
      };
    }
  }
  await fs.mkdir(path.dirname(target), { recursive: true });
  await writeEntries(target, [
    ...changed,
    { name: "manifest.json", type: "file", data: Buffer.from(JSON.stringify(manifest)) },
  ]);
}

/**
 * Copies `source` to `target` as an older version would have written it: at
 * schema `migration`, with only the tables and columns that existed then (read
 * off a scratch database migrated that far), and checksums that match again.
 */
export async function rewriteAtOlderSchema(source: string, target: string, migration: string): Promise<void> {
  const scratchDir = await fs.mkdtemp(path.join(os.tmpdir(), "cornerstone-schema-"));
  let columnsAt: Map<string, Set<string>>;
  const scratch = openDatabase(path.join(scratchDir, "scratch.db"));
  try {
    await migrateTo(scratch, migration);
    columnsAt = new Map(
      (await scratch.introspection.getTables()).map((t) => [t.name, new Set(t.columns.map((c) => c.name))]),
    );
  } finally {
    await scratch.destroy();
    await fs.rm(scratchDir, { recursive: true, force: true });
  }
  await rewriteArchive(
    source,
    target,
    (entries, manifest) => {
      manifest.schema.migration = migration;
      const kept: RawEntry[] = [];
      for (const entry of entries) {
        const table = Object.entries(manifest.tables).find(([, t]) => t.file === entry.name)?.[0];
        if (table === undefined) {
          kept.push(entry);
          continue;
        }
        const columns = columnsAt.get(table);
        if (!columns) {
          delete manifest.tables[table];
          continue;
        }
        const lines = entry.data.toString("utf8").split("\n").filter(Boolean);
        const trimmed = lines.map((line) =>
          JSON.stringify(
            Object.fromEntries(Object.entries(JSON.parse(line) as object).filter(([k]) => columns.has(k))),
          ),
        );
        kept.push({ ...entry, data: Buffer.from(trimmed.map((line) => `${line}\n`).join("")) });
      }
      return kept;
    },
    { rehash: true },
  );
}

/** Every file under dir (relative path → SHA-256), for "nothing changed" checks. */
export async function hashTree(dir: string): Promise<Record<string, string>> {
  const result: Record<string, string> = {};
  async function walk(current: string) {
    let names: string[];
    try {
      names = await fs.readdir(current);
    } catch {
      return;
    }
    for (const name of names) {
      const full = path.join(current, name);
      const stat = await fs.stat(full);
      if (stat.isDirectory()) await walk(full);
      else
        result[path.relative(dir, full)] = createHash("sha256")
          .update(await fs.readFile(full))
          .digest("hex");
    }
  }
  await walk(dir);
  return result;
}

/**
 * Copies `source` to `target` with one more entry, `name`, of `bytes` zero bytes, written as a
 * stream (a 512 MB entry never sits in memory) and listed in a manifest whose checksums match.
 */
export async function addZeroEntry(source: string, target: string, name: string, bytes: number): Promise<void> {
  const entries = (await readEntries(source)).filter((e) => e.name !== "manifest.json");
  const manifest = manifestOf(await readEntries(source));
  const pack = tar.pack();
  const done = pipeline(pack, zlib.createGzip(), createWriteStream(target));
  const add = (entryName: string, data: Buffer) =>
    new Promise<void>((resolve, reject) => {
      pack.entry({ name: entryName, size: data.length }, data, (error) => (error ? reject(error) : resolve()));
    });
  for (const entry of entries) await add(entry.name, entry.data);
  const hash = createHash("sha256");
  await new Promise<void>((resolve, reject) => {
    const stream = pack.entry({ name, size: bytes }, (error) => (error ? reject(error) : resolve()));
    const chunk = Buffer.alloc(1024 * 1024);
    let left = bytes;
    const writeMore = () => {
      while (left > 0) {
        const piece = chunk.subarray(0, Math.min(chunk.length, left));
        left -= piece.length;
        hash.update(piece);
        if (!stream.write(piece)) return void stream.once("drain", writeMore);
      }
      stream.end(undefined);
    };
    writeMore();
  });
  manifest.files[name] = { bytes, sha256: hash.digest("hex") };
  await add("manifest.json", Buffer.from(JSON.stringify(manifest)));
  pack.finalize();
  await done;
}
