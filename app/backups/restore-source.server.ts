import { randomBytes } from "node:crypto";
import fs from "node:fs/promises";
import path from "node:path";
import { decryptFile, isEncryptedFile, WrongPassphraseError } from "./backup-encryption.server";
import { MANIFEST_NAME } from "./backup-format.server";
import { refuseUnencrypted, type EncryptionPolicy } from "./restore-rules.server";
import { RestoreRefusedError } from "./restore.server";

/**
 * What `npm run restore` reads: a backup file (an age file decrypted into workDir, removed by cleanup()), or a
 * folder of an off-site copy as restic restored it (decision 0070).
 */
export type RestoreSource = {
  /** A .tar.gz, or a folder of the archive's entries. */
  file: string;
  name: string;
  /** It was age-encrypted (and opened with the passphrase), or is a folder restic decrypted. */
  encrypted: boolean;
  cleanup(): Promise<void>;
};

export type RestoreSourceOptions = {
  file: string;
  workDir: string;
  /** Asked at most once, and only when an encrypted backup is met. */
  passphrase: () => Promise<string>;
  /** When an unencrypted backup is refused (restore-rules.server.ts). */
  encryption: EncryptionPolicy;
};

/**
 * The copy inside a folder `restic restore` made: `restic restore … --target DIR` puts it under
 * the path it was copied from, so the folders are followed down while each holds one folder.
 */
export async function copyFolderIn(dir: string): Promise<string> {
  for (let at = dir; ;) {
    const entries = await fs.readdir(at, { withFileTypes: true });
    if (entries.some((entry) => entry.name === MANIFEST_NAME && entry.isFile())) return at;
    if (entries.length !== 1 || !entries[0]!.isDirectory())
      throw new RestoreRefusedError(
        `${dir} holds no Cornerstone copy (no ${MANIFEST_NAME} in it). Nothing was changed.`,
      );
    at = path.join(at, entries[0]!.name);
  }
}

export async function openRestoreSource(options: RestoreSourceOptions): Promise<RestoreSource> {
  const file = path.resolve(options.file);
  const name = path.basename(file);
  const nothing = async () => {};
  if ((await fs.stat(file).catch(() => null))?.isDirectory())
    return { file: await copyFolderIn(file), name, encrypted: true, cleanup: nothing };
  if (!(await isEncryptedFile(file).catch(() => false))) {
    refuseUnencrypted(file, options.encryption);
    return { file, name, encrypted: false, cleanup: nothing };
  }
  const passphrase = await options.passphrase();
  const created = await fs.mkdir(options.workDir, { recursive: true, mode: 0o700 });
  const plain = path.join(options.workDir, `.restore-${randomBytes(6).toString("hex")}-decrypted.tar.gz`);
  const cleanup = async () => {
    await fs.rm(plain, { force: true });
    // A folder made only for this file goes too.
    if (created) await fs.rmdir(created).catch(() => {});
  };
  try {
    await decryptFile(file, plain, passphrase);
  } catch (error) {
    await cleanup();
    if (error instanceof WrongPassphraseError) throw new RestoreRefusedError(error.message);
    throw error;
  }
  return { file: plain, name, encrypted: true, cleanup };
}
