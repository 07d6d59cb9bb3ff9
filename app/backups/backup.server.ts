import { randomBytes } from "node:crypto";
import { once } from "node:events";
import { createWriteStream, type WriteStream } from "node:fs";
import fs from "node:fs/promises";
import path from "node:path";
import { Readable, type Writable } from "node:stream";
import { finished } from "node:stream/promises";
import packageJson from "../../package.json";
import type { Database } from "~/db/database.server";
import { readSnapshot } from "~/db/snapshot.server";
import type { Clock } from "~/lib/clock";
import type { AppServices } from "~/services.server";
import type { ObjectStorage } from "~/storage/storage.server";
import { createArchiveWriter } from "./backup-archive.server";
import { ARCHIVE_FORMAT, ARCHIVE_FORMAT_VERSION, objectFileName, tableFileName } from "./backup-format.server";
import type { BackupManifest } from "./backup-format.server";
import { downloadFileName, moveIntoPlace, spaceProblem, statfsProbe, type FreeSpaceProbe } from "./backup-files.server";
import { acquireBackupLease, holdLease, type BackupLease, type LeasePurpose } from "./backup-lease.server";
import { encryptingWriter, ENCRYPTED_SUFFIX } from "./backup-encryption.server";
import { formatBytes } from "./backup-status";
import { recordBackupProblem, recordBackupSuccess } from "./backup-state.server";
import { BACKUP_TABLES, objectsNamedBy, referencedObjectKeys } from "./backup-tables.server";
import { purgeDeferredDeletions } from "~/storage/deferred-deletions.server";
import { TWO_STEP_KEY_ENTRY, twoStepKeyEntry } from "./two-step-carry.server";

export type BackupServices = Pick<AppServices, "db" | "storage" | "logger"> & {
  clock: Clock;
  /** The installation's two-step key, which an encrypted backup carries (decision 0058); AppServices has it. */
  signIn?: { twoStepKey: Buffer };
};

export type BackupDestination =
  /** A file; the free space is checked before anything is written. */
  | { kind: "file"; path: string; freeSpace?: FreeSpaceProbe }
  /** A stream such as an HTTP response, opened once the snapshot is taken. */
  | { kind: "stream"; open: (info: { fileName: string }) => Writable }
  /** An object in storage (the bucket's backups/), by way of a temporary file in workDir. */
  | { kind: "storage"; storage: ObjectStorage; key: string; freeSpace?: FreeSpaceProbe };

export type BackupOptions = {
  purpose: LeasePurpose;
  destination: BackupDestination;
  /** Holds the table files while the archive is written (DATA_DIR/backups: never inside a backup). */
  workDir: string;
  /** A lease already held (the scheduled backup claims its slot with it); released at the end all the same. */
  lease?: BackupLease;
  signal?: AbortSignal;
  /** BACKUP_PASSPHRASE: encrypted with age as written (decision 0052), carrying the two-step key (0058). */
  passphrase?: string;
  /** For tests: runs after the snapshot is read, before any object is copied. */
  afterSnapshot?: () => Promise<void>;
};

export type BackupResult =
  | { status: "succeeded"; fileName: string; path: string | null; bytes: number; manifest: BackupManifest }
  | { status: "skipped"; reason: string };

/** Thrown when a backup cannot keep its lease (it would no longer hold deletions back). */
export class BackupLeaseLostError extends Error {
  override name = "BackupLeaseLostError";
}

/** One backup: lease → table snapshot → the objects the rows name → manifest; the dashboard gets the outcome. */
export async function createBackup(services: BackupServices, options: BackupOptions): Promise<BackupResult> {
  const lease = options.lease ?? (await acquireBackupLease(services, options.purpose));
  if (!lease) throw new Error("Could not take a backup lease");
  try {
    return await holdLease(services, lease, (signal) => writeBackup(services, options, signal), {
      signal: options.signal,
      lost: () => new BackupLeaseLostError("The backup's lease expired; the backup was stopped"),
    });
  } finally {
    // Deletions held back for this backup can go now, unless another backup still runs.
    await purgeDeferredDeletions(services, () => referencedObjectKeys(services.db), services.clock).catch(
      (error: unknown) => services.logger.warn({ err: error }, "could not purge deferred deletions"),
    );
  }
}

async function writeBackup(
  services: BackupServices,
  options: BackupOptions,
  signal: AbortSignal,
): Promise<BackupResult> {
  const { clock, logger } = services;
  const startedAt = clock.now();
  let workDir: string | null = null;
  let temporaryArchive: string | null = null;
  const destination = options.destination;
  const fileName =
    destination.kind === "file"
      ? path.basename(destination.path)
      : destination.kind === "storage"
        ? path.basename(destination.key)
        : `${downloadFileName(startedAt)}${options.passphrase ? ENCRYPTED_SUFFIX : ""}`;

  try {
    await fs.mkdir(options.workDir, { recursive: true, mode: 0o700 });
    workDir = await fs.mkdtemp(path.join(options.workDir, ".work-"));
    // 1. The tables, from one read transaction, into JSON-lines files.
    const snapshot = await writeTableFiles(services.db, workDir);
    signal.throwIfAborted();
    await options.afterSnapshot?.();

    const keys = snapshot.objectKeys;
    const tableBytes = snapshot.tables.reduce((sum, t) => sum + t.bytes, 0);

    // 2. Room for it? (Only a file on this server can fill its disk.)
    let output: Writable;
    if (destination.kind === "file" || destination.kind === "storage") {
      const objectBytes = await sizeOfObjects(services, keys);
      const entries = snapshot.tables.length + keys.length + 1;
      const needed = tableBytes + objectBytes + entries * 1024 + 64 * 1024;
      const dir = destination.kind === "file" ? path.dirname(destination.path) : options.workDir;
      await fs.mkdir(dir, { recursive: true, mode: 0o700 });
      const problem = await spaceProblem(destination.freeSpace ?? statfsProbe, dir, needed);
      if (problem) {
        logger.error({ neededBytes: needed, purpose: options.purpose }, `backup skipped: ${problem}`);
        await recordBackupProblem(services, { at: clock.now(), kind: "skipped", message: problem });
        return { status: "skipped", reason: problem };
      }
      temporaryArchive = path.join(dir, `.${fileName}.partial-${randomBytes(6).toString("hex")}`);
      output = createWriteStream(temporaryArchive, { flags: "wx", mode: 0o600 });
    } else {
      output = destination.open({ fileName });
    }

    // 3. The archive: tables, then objects (as stored: no recompression), then the manifest.
    const sealing = options.passphrase ? await encryptingWriter(output, options.passphrase) : null;
    const writer = createArchiveWriter(sealing?.input ?? output, { mtime: startedAt, signal });
    for (const written of snapshot.tables)
      await writer.addFile(tableFileName(written.table), written.file, written.bytes);
    // Only inside the encryption: the key is then as safe as the data it opens.
    const carriedKey = twoStepKeyEntry({ twoStepKey: services.signIn?.twoStepKey, encrypted: Boolean(sealing) });
    if (carriedKey) await writer.addStream(TWO_STEP_KEY_ENTRY, Readable.from([carriedKey]), carriedKey.length);
    const missingObjects: string[] = [];
    let objectBytes = 0;
    for (const key of keys) {
      signal.throwIfAborted();
      const object = await services.storage.read(key);
      if (!object) {
        missingObjects.push(key);
        continue;
      }
      await writer.addStream(objectFileName(key), object.stream, object.bytes);
      objectBytes += object.bytes;
    }
    const manifest = await writer.finish(snapshotManifest(snapshot, startedAt, missingObjects, objectBytes));
    await sealing?.sealed;

    let finalPath: string | null = null;
    let bytes = writer.archiveBytes;
    if (destination.kind === "file") {
      finalPath = await moveIntoPlace(temporaryArchive!, destination.path);
      temporaryArchive = null;
      bytes = (await fs.stat(finalPath)).size;
    } else if (destination.kind === "storage") {
      ({ bytes } = await destination.storage.writeFile(destination.key, temporaryArchive!, { signal }));
      await fs.rm(temporaryArchive!, { force: true });
      temporaryArchive = null;
    }
    const finishedAt = clock.now();
    const finalName = finalPath ? path.basename(finalPath) : fileName;
    await recordBackupSuccess(services, {
      finishedAt,
      bytes,
      fileName: finalName,
      download: options.purpose === "download",
    });
    if (missingObjects.length) {
      const message = `The backup finished, but ${missingObjects.length} image file(s) were missing from storage: ${missingObjects.slice(0, 5).join(", ")}`;
      logger.error({ missingObjects }, message);
      await recordBackupProblem(services, { at: finishedAt, kind: "warning", message });
    }
    logger.info(
      {
        purpose: options.purpose,
        file: finalPath ?? finalName,
        bytes,
        rows: Object.values(manifest.tables).reduce((s, t) => s + t.rows, 0),
        objects: manifest.objects.count,
        seconds: (finishedAt.getTime() - startedAt.getTime()) / 1000,
      },
      `backup written (${formatBytes(bytes)})`,
    );
    return { status: "succeeded", fileName: finalName, path: finalPath, bytes, manifest };
  } catch (error) {
    if (temporaryArchive) await fs.rm(temporaryArchive, { force: true });
    const reason = signal.aborted ? signal.reason : error;
    if (options.signal?.aborted && !(reason instanceof BackupLeaseLostError)) {
      // Stopped on purpose (a download cancelled, the server shutting down): not a failure of backups.
      logger.warn({ purpose: options.purpose }, "backup stopped before it finished");
    } else {
      const message = reason instanceof Error ? reason.message : String(reason);
      logger.error({ err: reason, purpose: options.purpose }, "backup failed");
      await recordBackupProblem(services, { at: clock.now(), kind: "failed", message }).catch(() => {});
    }
    throw reason;
  } finally {
    if (workDir) await fs.rm(workDir, { recursive: true, force: true });
  }
}

/** The tables' JSON-lines files of one snapshot, and the object keys its rows name. */
export type TableFiles = {
  tables: { table: string; file: string; rows: number; bytes: number }[];
  objectKeys: string[];
  migration: string;
};

/**
 * The one snapshot writer (decision 0026): every BACKUP_TABLES table as `<table>.jsonl` in `dir` from one read
 * transaction, and the object keys the rows name. The archive and the off-site folder both use it.
 */
export async function writeTableFiles(db: Database, dir: string): Promise<TableFiles> {
  const files = new Map<string, TableFiles["tables"][number] & { stream: WriteStream }>();
  const objectKeys = new Set<string>();
  const tableOf = new Map(BACKUP_TABLES.map((table) => [table.name, table]));
  const open = (table: string) => {
    const file = path.join(dir, `${table}.jsonl`);
    const entry = { table, file, stream: createWriteStream(file, { mode: 0o600 }), rows: 0, bytes: 0 };
    files.set(table, entry);
    return entry;
  };
  try {
    const snapshot = await readSnapshot(
      db,
      BACKUP_TABLES.map((table) => table.name),
      async (table, row) => {
        const target = files.get(table) ?? open(table);
        const line = `${JSON.stringify(row)}\n`;
        target.rows += 1;
        target.bytes += Buffer.byteLength(line);
        if (!target.stream.write(line)) await once(target.stream, "drain");
        for (const key of objectsNamedBy(tableOf.get(table)!, row).keys()) objectKeys.add(key);
      },
    );
    for (const table of BACKUP_TABLES) {
      if (!snapshot.missingTables.includes(table.name) && !files.has(table.name)) open(table.name);
    }
    await Promise.all([...files.values()].map((t) => finished(t.stream.end())));
    const tables = BACKUP_TABLES.flatMap(({ name }) => {
      const written = files.get(name);
      return written ? [{ table: name, file: written.file, rows: written.rows, bytes: written.bytes }] : [];
    });
    return { tables, objectKeys: [...objectKeys].sort(), migration: snapshot.migration };
  } finally {
    for (const table of files.values()) table.stream.destroy();
  }
}

/** The manifest's account of one snapshot, for the archive and the off-site folder alike. */
export const snapshotManifest = (
  snapshot: TableFiles,
  at: Date,
  missingObjects: string[],
  bytes: number,
): Omit<BackupManifest, "files"> => ({
  format: ARCHIVE_FORMAT,
  formatVersion: ARCHIVE_FORMAT_VERSION,
  createdAt: at.toISOString(),
  appVersion: packageJson.version,
  schema: { migration: snapshot.migration },
  tables: Object.fromEntries(snapshot.tables.map(({ table, rows }) => [table, { file: tableFileName(table), rows }])),
  objects: { count: snapshot.objectKeys.length - missingObjects.length, bytes },
  missingObjects,
});

/** Total bytes of the objects that exist (for the free-space check). */
async function sizeOfObjects(services: Pick<AppServices, "storage">, keys: readonly string[]): Promise<number> {
  let total = 0;
  for (const key of keys) total += (await services.storage.stat(key))?.bytes ?? 0;
  return total;
}
