import zlib from "node:zlib";
import { z } from "~/lib/zod";
import { assertValidKey } from "~/storage/storage-keys.server";

/**
 * The backup archive (decision 0025): a gzip'd tar holding
 *   tables/<table>.jsonl   one JSON object per row, for any database backend
 *   objects/<storage key>  every stored object the rows refer to, byte for byte
 *   keys/two-step.json     only in an encrypted backup: the installation's two-step
 *                          key (two-step-carry.server.ts, decision 0058)
 *   manifest.json          last: format, schema migration, app version, time,
 *                          counts, and the size and SHA-256 of every file above
 */
export const ARCHIVE_FORMAT = "cornerstone-backup";
export const ARCHIVE_FORMAT_VERSION = 1;
export const MANIFEST_NAME = "manifest.json";
/** Read whole into memory, so bounded: about 100,000 files' sizes and checksums. */
export const MAX_MANIFEST_BYTES = 16 * 1024 * 1024;
/**
 * Photos are already compressed: run-length deflate passes them through about three times faster
 * than zlib's default (and seven times faster than level 1, whose fast path does badly on
 * incompressible data), and still shrinks the JSON lines by a third. Measured: docs/PERFORMANCE.md.
 */
export const GZIP_OPTIONS: zlib.ZlibOptions = { level: 6, strategy: zlib.constants.Z_RLE };

export const tableFileName = (table: string) => `tables/${table}.jsonl`;
/** The two-step key an encrypted backup carries (two-step-carry.server.ts): a few dozen bytes, never more than the limit. */
export const TWO_STEP_KEY_ENTRY = "keys/two-step.json";
export const MAX_TWO_STEP_KEY_ENTRY_BYTES = 1024;
export const objectFileName = (key: string) => `objects/${key}`;

const sha256Hex = z.string().regex(/^[0-9a-f]{64}$/);
const count = z.number().int().nonnegative();

export const manifestSchema = z.object({
  format: z.literal(ARCHIVE_FORMAT),
  formatVersion: z.number().int().positive(),
  createdAt: z.string(),
  appVersion: z.string(),
  schema: z.object({ migration: z.string().min(1).max(200) }),
  tables: z.record(z.string(), z.object({ file: z.string(), rows: count })),
  objects: z.object({ count, bytes: count }),
  /** Referred to by a row but absent from storage when the backup ran. */
  missingObjects: z.array(z.string()),
  files: z.record(z.string(), z.object({ bytes: count, sha256: sha256Hex })),
});
export type BackupManifest = z.infer<typeof manifestSchema>;
export type ManifestFiles = BackupManifest["files"];

/** A backup file that cannot be restored; the message says what is wrong. */
export class BackupArchiveError extends Error {
  override name = "BackupArchiveError";
}

export type ArchiveEntryKind =
  { kind: "manifest" } | { kind: "table"; table: string } | { kind: "object"; key: string } | { kind: "two-step-key" };

const TABLE_FILE = /^tables\/([a-z_][a-z0-9_]*)\.jsonl$/;

/** What an entry name means, or a BackupArchiveError: nothing outside these names is ever accepted. */
export function classifyEntryName(name: string): ArchiveEntryKind {
  if (name === MANIFEST_NAME) return { kind: "manifest" };
  if (name === TWO_STEP_KEY_ENTRY) return { kind: "two-step-key" };
  const table = TABLE_FILE.exec(name);
  if (table) return { kind: "table", table: table[1]! };
  if (name.startsWith("objects/")) {
    const key = name.slice("objects/".length);
    try {
      assertValidKey(key);
      return { kind: "object", key };
    } catch {
      // Falls through to the error below.
    }
  }
  throw new BackupArchiveError(
    `The archive holds an unexpected path: ${JSON.stringify(name)}. Nothing was restored from it.`,
  );
}

/** Parses manifest.json and checks it against what the archive really holds. */
export function checkManifest(read: {
  hashes: ManifestFiles;
  manifestText: string | null;
  order: string[];
}): BackupManifest {
  if (read.manifestText === null) {
    throw new BackupArchiveError(
      "The archive has no manifest.json: it is not a Cornerstone backup, or it was cut short",
    );
  }
  if (read.order.at(-1) !== MANIFEST_NAME)
    throw new BackupArchiveError("manifest.json is not the archive's last entry");
  let json: unknown;
  try {
    json = JSON.parse(read.manifestText);
  } catch {
    throw new BackupArchiveError("manifest.json is not valid JSON");
  }
  const format = (json as { format?: unknown; formatVersion?: unknown } | null) ?? {};
  if (format.format !== ARCHIVE_FORMAT)
    throw new BackupArchiveError("manifest.json does not describe a Cornerstone backup");
  if (typeof format.formatVersion === "number" && format.formatVersion > ARCHIVE_FORMAT_VERSION) {
    throw new BackupArchiveError(
      `The backup uses archive format ${format.formatVersion}, newer than this version of Cornerstone reads (${ARCHIVE_FORMAT_VERSION}). Update Cornerstone, then restore.`,
    );
  }
  const parsed = manifestSchema.safeParse(json);
  if (!parsed.success) {
    const issue = parsed.error.issues[0];
    throw new BackupArchiveError(`manifest.json is malformed (${issue?.path.join(".") || "root"}: ${issue?.message})`);
  }
  const manifest = parsed.data;
  for (const [name, expected] of Object.entries(manifest.files)) {
    const actual = read.hashes[name];
    if (!actual) throw new BackupArchiveError(`${name} is listed in the manifest but missing from the archive`);
    if (actual.bytes !== expected.bytes) {
      throw new BackupArchiveError(
        `${name} has ${actual.bytes} bytes; the manifest says ${expected.bytes}. The file was changed or damaged.`,
      );
    }
    if (actual.sha256 !== expected.sha256) {
      throw new BackupArchiveError(
        `Checksum mismatch for ${name}: the file was changed or damaged after the backup was made`,
      );
    }
  }
  for (const name of Object.keys(read.hashes)) {
    if (!manifest.files[name]) throw new BackupArchiveError(`${name} is in the archive but not in its manifest`);
  }
  for (const [table, info] of Object.entries(manifest.tables)) {
    if (info.file !== tableFileName(table) || !manifest.files[info.file]) {
      throw new BackupArchiveError(`manifest.json lists table ${table} without its file`);
    }
  }
  return manifest;
}
