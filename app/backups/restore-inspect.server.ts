import type { Readable } from "node:stream";
import { BackupArchiveError, checkManifest, type BackupManifest } from "./backup-format.server";
import { readArchive } from "./backup-archive.server";
import { formatBytes } from "./backup-status";
import { BACKUP_TABLES, MAX_OBJECT_BYTES, objectsNamedBy } from "./backup-tables.server";
import { CarriedKeyError, readTwoStepKeyEntry } from "./two-step-carry.server";

/** No row the site writes comes near this; a longer line is refused as soon as it passes it. */
export const MAX_LINE_BYTES = 1024 * 1024;
/** At most this many refused keys are named in a message. */
const LISTED_KEYS = 10;

export type ArchiveInspection = {
  manifest: BackupManifest;
  /** Every object key the restored rows name, with the largest size its column allows. */
  namedObjects: ReadonlyMap<string, number>;
  /** The one administrator's username. */
  administrator: string;
  /** The two-step key an encrypted backup carries (decision 0058); null when it carries none. */
  carriedTwoStepKey: Buffer | null;
};

/** A row of a table file, with the line it came from (for messages). */
export type TableLine = { row: Record<string, unknown>; line: number };

/** A table's JSON lines one at a time, each at most MAX_LINE_BYTES, one object of plain values; blanks skipped. */
export async function* readTableLines(stream: Readable, table: string): AsyncGenerator<TableLine> {
  let parts: Buffer[] = [];
  let lineBytes = 0;
  let line = 1;
  const where = () => `table ${table} (tables/${table}.jsonl), line ${line}`;
  const finishLine = (): TableLine | null => {
    const text = Buffer.concat(parts).toString("utf8");
    parts = [];
    lineBytes = 0;
    return text.trim() ? { row: parseRow(text, where), line } : null;
  };
  for await (const chunk of stream) {
    const buffer = chunk as Buffer;
    let start = 0;
    for (;;) {
      const newline = buffer.indexOf(0x0a, start);
      const piece = buffer.subarray(start, newline === -1 ? buffer.length : newline);
      lineBytes += piece.length;
      if (lineBytes > MAX_LINE_BYTES) {
        throw new BackupArchiveError(
          `In ${where()}: the line is longer than ${formatBytes(MAX_LINE_BYTES)}, which no row of this site is`,
        );
      }
      // Copied, so a kept piece never pins the whole chunk.
      parts.push(Buffer.from(piece));
      if (newline === -1) break;
      const done = finishLine();
      if (done) yield done;
      line += 1;
      start = newline + 1;
    }
  }
  const last = finishLine();
  if (last) yield last;
}

function parseRow(text: string, where: () => string): Record<string, unknown> {
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch {
    throw new BackupArchiveError(`In ${where()}: the line is not valid JSON`);
  }
  if (
    typeof value !== "object" ||
    value === null ||
    Array.isArray(value) ||
    !Object.values(value).every((v) => v === null || typeof v === "string" || typeof v === "number")
  ) {
    throw new BackupArchiveError(`In ${where()}: the line is not a row (one JSON object of text, numbers and nulls)`);
  }
  return value as Record<string, unknown>;
}

const listKeys = (keys: string[]) =>
  keys.slice(0, LISTED_KEYS).join(", ") + (keys.length > LISTED_KEYS ? ` and ${keys.length - LISTED_KEYS} more` : "");

/**
 * The restore's first pass (decision 0046), before anything is written: every path, size and SHA-256 against the
 * manifest, every row parsed, and refuses an object no row names or over its column's limit, and a users table
 * without exactly one administrator. Throws BackupArchiveError with what is wrong.
 */
export async function inspectArchive(file: string): Promise<ArchiveInspection> {
  const tableOf = new Map(BACKUP_TABLES.map((table) => [table.name, table]));
  const namedObjects = new Map<string, number>();
  const archivedObjects = new Map<string, number>();
  const rows = new Map<string, number>();
  const usernames: string[] = [];
  let carriedTwoStepKey: Buffer | null = null;
  const read = await readArchive(
    file,
    async (entry) => {
      if (entry.kind.kind === "two-step-key") {
        carriedTwoStepKey = await readCarriedKey(entry.stream);
        return;
      }
      if (entry.kind.kind === "object") {
        archivedObjects.set(entry.kind.key, entry.bytes);
        for await (const _chunk of entry.stream) {
          // Hashed by readArchive; written only in a later pass.
        }
        return;
      }
      if (entry.kind.kind !== "table") return;
      const name = entry.kind.table;
      const table = tableOf.get(name);
      let count = 0;
      for await (const { row, line } of readTableLines(entry.stream, name)) {
        count += 1;
        if (name === "users" && usernames.length < 3) usernames.push(String(row.username));
        if (!table) continue;
        let named: Map<string, number>;
        try {
          named = objectsNamedBy(table, row);
        } catch {
          throw new BackupArchiveError(
            `In table ${name} (tables/${name}.jsonl), line ${line}: a column that names image files holds something else`,
          );
        }
        for (const [key, maxBytes] of named) namedObjects.set(key, Math.max(namedObjects.get(key) ?? 0, maxBytes));
      }
      rows.set(name, count);
    },
    { maxObjectBytes: MAX_OBJECT_BYTES },
  );
  const manifest = checkManifest(read);
  for (const [table, info] of Object.entries(manifest.tables)) {
    const counted = rows.get(table) ?? 0;
    if (counted !== info.rows)
      throw new BackupArchiveError(`tables/${table}.jsonl holds ${counted} rows; the manifest says ${info.rows}`);
  }
  const unnamed = [...archivedObjects.keys()].filter((key) => !namedObjects.has(key)).sort();
  if (unnamed.length) {
    throw new BackupArchiveError(
      `The archive holds ${unnamed.length} file(s) that no restored row refers to, so they would never be part of the site: ${listKeys(unnamed)}`,
    );
  }
  const oversized = [...archivedObjects]
    .filter(([key, bytes]) => bytes > namedObjects.get(key)!)
    .map(([key]) => key)
    .sort();
  if (oversized.length) {
    throw new BackupArchiveError(
      `The archive holds image files larger than this site ever stores: ${listKeys(oversized)}`,
    );
  }
  const users = rows.get("users") ?? 0;
  if (users !== 1) {
    throw new BackupArchiveError(
      `The backup's users table holds ${users} rows; a site has exactly one administrator, so this backup cannot be restored`,
    );
  }
  return { manifest, namedObjects, administrator: usernames[0]!, carriedTwoStepKey };
}

/** The carried two-step key (its size was checked from the entry's header). */
async function readCarriedKey(stream: Readable): Promise<Buffer> {
  const chunks: Buffer[] = [];
  for await (const chunk of stream) chunks.push(chunk as Buffer);
  try {
    return readTwoStepKeyEntry(Buffer.concat(chunks));
  } catch (error) {
    if (error instanceof CarriedKeyError) throw new BackupArchiveError(error.message);
    throw error;
  }
}
