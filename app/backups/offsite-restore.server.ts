import { randomBytes } from "node:crypto";
import { createWriteStream } from "node:fs";
import fs from "node:fs/promises";
import path from "node:path";
import { Readable } from "node:stream";
import { createArchiveWriter } from "./backup-archive.server";
import { objectFileName, tableFileName, type BackupManifest } from "./backup-format.server";
import { spaceProblem, statfsProbe, type FreeSpaceProbe } from "./backup-files.server";
import { BACKUP_TABLES } from "./backup-tables.server";
import type { CarriedSecrets } from "./carried-secrets.server";
import type { CopyManifest } from "./offsite-manifest.server";
import { objectKey, OffsiteDamagedError, openFileStream } from "./offsite-objects.server";
import {
  listCopies,
  readDataObject,
  readFileList,
  readManifest,
  type OffsiteRepository,
} from "./offsite-repository.server";

/**
 * Restoring an off-site copy (decision 0060): the copy is rebuilt, object by
 * object, into a full archive of decision 0025 on this server, each object
 * decrypted and checked against its name on the way; then the usual restore
 * (restore.server.ts) checks that archive again and loads it. A copy that
 * cannot be read whole (a wrong passphrase, a missing or changed object)
 * stops before the restore begins: nothing is changed.
 */
export type CopySummary = {
  name: string;
  at: string;
  /** The database's JSON lines and the stored files, as they were on the server. */
  tableBytes: number;
  rows: number;
  files: number;
  fileBytes: number;
};

/** Refused before anything was changed; the message says why. */
export class OffsiteRestoreRefusedError extends Error {
  override name = "OffsiteRestoreRefusedError";
}

const summaryOf = (manifest: CopyManifest): CopySummary => ({
  name: manifest.name,
  at: manifest.createdAt,
  tableBytes: Object.values(manifest.tables).reduce((sum, table) => sum + table.bytes, 0),
  rows: Object.values(manifest.tables).reduce((sum, table) => sum + table.rows, 0),
  files: manifest.files.count,
  fileBytes: manifest.files.bytes,
});

/** Every copy in the store, newest first; a copy whose manifest does not open is listed with its problem. */
export async function listOffsiteCopies(
  repo: OffsiteRepository,
): Promise<(CopySummary | { name: string; at: string; problem: string })[]> {
  const listed = [];
  for (const copy of (await listCopies(repo.store)).reverse()) {
    try {
      listed.push(summaryOf(await readManifest(repo, copy.name)));
    } catch (error) {
      listed.push({ name: copy.name, at: copy.at.toISOString(), problem: (error as Error).message });
    }
  }
  return listed;
}

/**
 * The copy to restore: the one named, or else the newest whose manifest opens with these keys
 * (a manifest planted in the store by someone without the keys never opens, so it is never picked).
 */
export async function chooseCopy(repo: OffsiteRepository, name?: string): Promise<CopyManifest> {
  const copies = await listCopies(repo.store);
  if (name) {
    if (!copies.some((copy) => copy.name === name)) {
      const newest = copies
        .slice(-5)
        .reverse()
        .map((copy) => copy.name);
      throw new OffsiteRestoreRefusedError(
        `There is no copy named ${name} in ${repo.store.description}. ` +
          (newest.length ? `The newest there: ${newest.join(", ")}. ` : "") +
          "npm run restore -- --list shows them all. Nothing was changed.",
      );
    }
    return readManifest(repo, name);
  }
  for (const copy of [...copies].reverse()) {
    try {
      return await readManifest(repo, copy.name);
    } catch {
      // Not one of ours (or damaged): the next older one.
    }
  }
  throw new OffsiteRestoreRefusedError(
    `There is no copy in ${repo.store.description} that opens with these keys. Nothing was changed.`,
  );
}

/**
 * Rebuilds the copy as an archive in `workDir` (decision 0025: tables, files, manifest.json last),
 * checking its free space first. Returns the archive's path (the caller removes it) and what the
 * copy carries. On any failure no archive is left behind.
 */
export async function rebuildArchive(
  repo: OffsiteRepository,
  manifest: CopyManifest,
  options: { workDir: string; freeSpace?: FreeSpaceProbe },
): Promise<{ file: string; carried: CarriedSecrets }> {
  const summary = summaryOf(manifest);
  await fs.mkdir(options.workDir, { recursive: true, mode: 0o700 });
  const problem = await spaceProblem(
    options.freeSpace ?? statfsProbe,
    options.workDir,
    summary.tableBytes + summary.fileBytes + 64 * 1024 * 1024,
  );
  if (problem)
    throw new OffsiteRestoreRefusedError(
      `The copy ${manifest.name} cannot be rebuilt here: ${problem}. Nothing was changed.`,
    );
  const files = await readFileList(repo, manifest);
  const file = path.join(options.workDir, `.restore-${randomBytes(6).toString("hex")}-${manifest.name}.tar.gz`);
  try {
    const writer = createArchiveWriter(createWriteStream(file, { flags: "wx", mode: 0o600 }), {
      mtime: new Date(manifest.createdAt),
    });
    const tables: BackupManifest["tables"] = {};
    for (const { name } of BACKUP_TABLES) {
      const table = manifest.tables[name];
      if (!table) continue;
      const chunks = async function* () {
        for (const chunk of table.chunks) yield await readDataObject(repo, chunk.id);
      };
      await writer.addStream(tableFileName(name), Readable.from(chunks()), table.bytes);
      tables[name] = { file: tableFileName(name), rows: table.rows };
    }
    // What the copy carries goes into the archive under the entry names it was given (carried-secrets.server.ts).
    for (const [entry, base64] of Object.entries(manifest.carried)) {
      const bytes = Buffer.from(base64, "base64");
      await writer.addStream(entry, Readable.from([bytes]), bytes.length);
    }
    for (const line of files) {
      const sealed = await repo.store.read(objectKey(line.id));
      if (!sealed)
        throw new OffsiteDamagedError(`The object ${line.id} (${line.key}) is missing from the off-site store`);
      await writer.addStream(
        objectFileName(line.key),
        await openFileStream(repo.keys, sealed.stream, line.id, line.bytes),
        line.bytes,
      );
    }
    await writer.finish({
      createdAt: manifest.createdAt,
      appVersion: manifest.appVersion,
      schema: manifest.schema,
      tables,
      objects: { count: files.length, bytes: summary.fileBytes },
      missingObjects: manifest.missingObjects,
    });
    return { file, carried: manifest.carried };
  } catch (error) {
    await fs.rm(file, { force: true });
    throw error;
  }
}
