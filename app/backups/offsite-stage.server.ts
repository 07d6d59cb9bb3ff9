import { createHash } from "node:crypto";
import { createReadStream, createWriteStream } from "node:fs";
import fs from "node:fs/promises";
import path from "node:path";
import { pipeline } from "node:stream/promises";
import packageJson from "../../package.json";
import type { AppServices } from "~/services.server";
import {
  ARCHIVE_FORMAT,
  ARCHIVE_FORMAT_VERSION,
  MANIFEST_NAME,
  objectFileName,
  tableFileName,
  TWO_STEP_KEY_ENTRY,
  type BackupManifest,
  type ManifestFiles,
} from "./backup-format.server";
import { backupsDirOf } from "./backup-files.server";
import { writeTableFiles } from "./backup.server";
import { twoStepKeyEntry } from "./two-step-carry.server";

/**
 * The folder each off-site copy is a restic snapshot of (decision 0070): the archive unpacked, always at one path so
 * restic finds its parent. Tables are written afresh; stored files are linked in (or downloaded once and kept), so
 * restic reads only what changed. Called under the off-site lease: nothing the rows name is deleted meanwhile.
 */
export const stageDirOf = (dataDir: string) => path.join(backupsDirOf(dataDir), ".offsite-copy");

const sha256Of = async (file: string) => {
  const hash = createHash("sha256");
  for await (const chunk of createReadStream(file)) hash.update(chunk as Buffer);
  return hash.digest("hex");
};

export async function stageCopy(
  services: Pick<AppServices, "db" | "storage">,
  options: {
    dataDir: string;
    uploadsDir: string | null;
    twoStepKey: Buffer | undefined;
    at: Date;
    signal?: AbortSignal;
  },
): Promise<{ dir: string; manifest: BackupManifest }> {
  const dir = stageDirOf(options.dataDir);
  const previous: ManifestFiles = await fs
    .readFile(path.join(dir, MANIFEST_NAME), "utf8")
    .then((text) => (JSON.parse(text) as BackupManifest).files)
    .catch(() => ({}));
  const files: ManifestFiles = {};
  const add = async (name: string, file: string, reuse = false) => {
    const { size } = await fs.stat(file);
    files[name] =
      reuse && previous[name]?.bytes === size ? previous[name]! : { bytes: size, sha256: await sha256Of(file) };
  };

  // The tables, from one read transaction, in place of the last copy's.
  const tablesDir = path.join(dir, "tables");
  await fs.rm(`${tablesDir}.new`, { recursive: true, force: true });
  await fs.mkdir(`${tablesDir}.new`, { recursive: true, mode: 0o700 });
  const snapshot = await writeTableFiles(services.db, `${tablesDir}.new`);
  await fs.rm(tablesDir, { recursive: true, force: true });
  await fs.rename(`${tablesDir}.new`, tablesDir);
  for (const { table } of snapshot.tables) await add(tableFileName(table), path.join(dir, tableFileName(table)));
  // A copy is always encrypted, so it carries the two-step key (decision 0058).
  const carried = twoStepKeyEntry({ twoStepKey: options.twoStepKey, encrypted: true });
  const keyFile = path.join(dir, TWO_STEP_KEY_ENTRY);
  await fs.rm(keyFile, { force: true });
  await fs.mkdir(path.dirname(keyFile), { recursive: true, mode: 0o700 });
  if (carried) await fs.writeFile(keyFile, carried, { mode: 0o600 }).then(() => add(TWO_STEP_KEY_ENTRY, keyFile));

  // The stored files: what no row names any more goes (older snapshots keep it); the rest is added by key.
  const named = new Set(snapshot.objectKeys.map((key) => path.join(dir, objectFileName(key))));
  for (const entry of await fs
    .readdir(path.join(dir, "objects"), { recursive: true, withFileTypes: true })
    .catch(() => []))
    if (entry.isFile() && !named.has(path.join(entry.parentPath, entry.name)))
      await fs.rm(path.join(entry.parentPath, entry.name));
  const missingObjects: string[] = [];
  let bytes = 0;
  for (const key of snapshot.objectKeys) {
    options.signal?.throwIfAborted();
    const file = path.join(dir, objectFileName(key));
    if (!(await placed(services, options.uploadsDir, key, file))) {
      missingObjects.push(key);
      continue;
    }
    await add(objectFileName(key), file, true);
    bytes += files[objectFileName(key)]!.bytes;
  }
  const manifest: BackupManifest = {
    format: ARCHIVE_FORMAT,
    formatVersion: ARCHIVE_FORMAT_VERSION,
    createdAt: options.at.toISOString(),
    appVersion: packageJson.version,
    schema: { migration: snapshot.migration },
    tables: Object.fromEntries(snapshot.tables.map(({ table, rows }) => [table, { file: tableFileName(table), rows }])),
    objects: { count: snapshot.objectKeys.length - missingObjects.length, bytes },
    missingObjects,
    files,
  };
  await fs.writeFile(path.join(dir, `${MANIFEST_NAME}.new`), `${JSON.stringify(manifest, null, 2)}\n`);
  await fs.rename(path.join(dir, `${MANIFEST_NAME}.new`), path.join(dir, MANIFEST_NAME));
  return { dir, manifest };
}

/** The stored file at `file`: a link to DATA_DIR/uploads' (relinked when that is another file now), or downloaded once. False when storage has none. */
async function placed(
  services: Pick<AppServices, "storage">,
  uploadsDir: string | null,
  key: string,
  file: string,
): Promise<boolean> {
  const staged = await fs.stat(file).catch(() => null);
  await fs.mkdir(path.dirname(file), { recursive: true, mode: 0o700 });
  if (uploadsDir) {
    const source = await fs.stat(path.join(uploadsDir, key)).catch(() => null);
    if (staged && source?.ino === staged.ino) return true;
    await fs.rm(file, { force: true });
    if (!source) return false;
    await fs.link(path.join(uploadsDir, key), file).catch(() => fs.copyFile(path.join(uploadsDir, key), file));
    return true;
  }
  if (staged) return true;
  const object = await services.storage.read(key);
  if (!object) return false;
  await pipeline(object.stream, createWriteStream(`${file}.part`, { mode: 0o600 }));
  await fs.rename(`${file}.part`, file);
  return true;
}
