import { randomBytes } from "node:crypto";
import fs from "node:fs/promises";
import path from "node:path";
import { decryptFile, isEncryptedFile, WrongPassphraseError } from "./backup-encryption.server";
import type { OffsiteCopy, OffsiteTarget } from "./offsite-target.server";
import { RestoreRefusedError } from "./restore.server";

/**
 * What `npm run restore` reads (issue 18): a file, or a copy in the off-site
 * bucket (found by listing it, so nothing kept on a lost server is needed),
 * decrypted first when it is an age file. Temporary files go in workDir
 * (DATA_DIR/backups, which a restore leaves alone) and are removed by cleanup().
 */
export type RestoreSource = { file: string; name: string; cleanup(): Promise<void> };

export type RestoreSourceOptions = {
  /** A file on this machine; or */
  file?: string;
  /** the off-site bucket's newest backup, or the one named. */
  offsite?: { target: OffsiteTarget; name?: string };
  workDir: string;
  /** Asked only for an encrypted backup. */
  passphrase: () => Promise<string>;
};

/** A name Cornerstone gives backups it copies off-site; anything else in the bucket is not offered. */
const isBackupName = (name: string) => name.startsWith("cornerstone-") && /\.tar\.gz(\.age)?$/.test(name);

/** The off-site copy to restore: the one named, or the newest the bucket holds. */
export function chooseOffsiteCopy(copies: OffsiteCopy[], name: string | undefined, where: string): OffsiteCopy {
  const backups = copies.filter((copy) => isBackupName(copy.name));
  if (name) {
    const named = backups.find((copy) => copy.name === name);
    if (named) return named;
    const newest = newestFirst(backups).slice(0, 5).map((copy) => copy.name);
    throw new RestoreRefusedError(
      `There is no backup named ${name} in ${where}. ` +
        (newest.length ? `The newest there: ${newest.join(", ")}. ` : "It holds no backups. ") +
        "Nothing was changed.",
    );
  }
  const [newest] = newestFirst(backups);
  if (!newest) throw new RestoreRefusedError(`There is no backup in ${where} yet. Nothing was changed.`);
  return newest;
}

function newestFirst(copies: OffsiteCopy[]): OffsiteCopy[] {
  return [...copies].sort((a, b) => b.modifiedAt.getTime() - a.modifiedAt.getTime() || b.name.localeCompare(a.name));
}

export async function openRestoreSource(options: RestoreSourceOptions): Promise<RestoreSource> {
  const temporary: string[] = [];
  let createdDir: string | undefined;
  const cleanup = async () => {
    for (const file of temporary) await fs.rm(file, { force: true });
    // A folder made only for these files goes too (rmdir leaves one that holds anything else).
    if (createdDir) await fs.rmdir(createdDir).catch(() => {});
  };
  const makeWorkDir = async () => {
    createdDir ??= await fs.mkdir(options.workDir, { recursive: true, mode: 0o700 });
  };
  const scratch = (label: string) => {
    const file = path.join(options.workDir, `.restore-${randomBytes(6).toString("hex")}-${label}`);
    temporary.push(file);
    return file;
  };
  try {
    let file: string;
    let name: string;
    if (options.offsite) {
      const { target } = options.offsite;
      const copy = chooseOffsiteCopy(await target.list(), options.offsite.name, target.description);
      await makeWorkDir();
      file = scratch(copy.name);
      name = copy.name;
      await target.download(copy.name, file);
    } else if (options.file) {
      file = path.resolve(options.file);
      name = path.basename(file);
    } else {
      throw new RestoreRefusedError("Name a backup file, or use --from-offsite. Nothing was changed.");
    }
    if (await isEncryptedFile(file).catch(() => false)) {
      const passphrase = await options.passphrase();
      await makeWorkDir();
      const plain = scratch("decrypted.tar.gz");
      try {
        await decryptFile(file, plain, passphrase);
      } catch (error) {
        if (error instanceof WrongPassphraseError) throw new RestoreRefusedError(error.message);
        throw error;
      }
      file = plain;
    }
    return { file, name, cleanup };
  } catch (error) {
    await cleanup();
    throw error;
  }
}
