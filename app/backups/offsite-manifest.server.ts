import { randomBytes } from "node:crypto";
import { z } from "~/lib/zod";
import { timestampForFileName } from "./backup-names.server";
import { OBJECT_ID } from "./offsite-objects.server";

/**
 * A copy in the off-site store (decision 0060) is one small encrypted
 * manifest, `copies/<name>`, written last: the database as chunks of JSON
 * lines per table, and the list of stored files (key, object, size), itself
 * chunked the same way. Everything it names is an object under `objects/`.
 * A copy whose manifest is not there was never made: nothing half-written
 * can be restored.
 */
export const COPIES_PREFIX = "copies/";
export const COPY_FORMAT = "cornerstone-offsite-copy";
export const COPY_FORMAT_VERSION = 1;

/** "20270114-103000-3fa9c2d1": the copy's time (UTC), then 32 random bits. */
const COPY_NAME = /^(\d{4})(\d{2})(\d{2})-(\d{2})(\d{2})(\d{2})-([0-9a-f]{8})$/;

export function newCopyName(at: Date): string {
  return `${timestampForFileName(at)}-${randomBytes(4).toString("hex")}`;
}

/** The time a copy's name carries, or null when the name is not a copy's. */
export function copyTimeOf(name: string): Date | null {
  const match = COPY_NAME.exec(name);
  if (!match) return null;
  const [, y, mo, d, h, mi, s] = match.map(Number) as number[];
  const at = new Date(Date.UTC(y!, mo! - 1, d!, h!, mi!, s!));
  return Number.isNaN(at.getTime()) ? null : at;
}

const objectId = z.string().regex(OBJECT_ID);
const count = z.number().int().nonnegative();
const chunkList = z.array(z.object({ id: objectId, bytes: count }));

export const copyManifestSchema = z.object({
  format: z.literal(COPY_FORMAT),
  formatVersion: z.literal(COPY_FORMAT_VERSION),
  name: z.string().regex(COPY_NAME),
  createdAt: z.string(),
  appVersion: z.string(),
  schema: z.object({ migration: z.string().min(1).max(200) }),
  /** Each table's rows, as the JSON lines of a full archive (decision 0025), in chunks. */
  tables: z.record(z.string().regex(/^[a-z_][a-z0-9_]*$/), z.object({ rows: count, bytes: count, chunks: chunkList })),
  /** The stored files the rows name: JSON lines `{"key","id","bytes"}` sorted by key, in chunks. */
  files: z.object({ count, bytes: count, chunks: chunkList }),
  /** Named by a row but missing from storage when the copy was made. */
  missingObjects: z.array(z.string()),
  /**
   * Keys of this installation the data needs elsewhere (an encrypted copy may carry them), as
   * archive entries (name → base64): carried-secrets.server.ts decides what goes in.
   */
  carried: z.record(z.string(), z.string()).default({}),
});
export type CopyManifest = z.infer<typeof copyManifestSchema>;

/** One line of a copy's list of stored files. */
export const fileLineSchema = z.object({ key: z.string().min(1).max(512), id: objectId, bytes: count });
export type FileLine = z.infer<typeof fileLineSchema>;

/** Every object a manifest names directly (its chunks); the files' objects come from its list. */
export function chunkIdsOf(manifest: CopyManifest): string[] {
  return [...Object.values(manifest.tables).flatMap((table) => table.chunks), ...manifest.files.chunks].map(
    (chunk) => chunk.id,
  );
}
