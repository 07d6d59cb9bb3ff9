import { randomBytes } from "node:crypto";
import fs from "node:fs/promises";
import path from "node:path";
import { archiveTimeFromStart } from "./backup-archive.server";
import {
  decryptFile,
  decryptStart,
  ENCRYPTED_START_BYTES,
  isEncryptedFile,
  startsAsEncrypted,
  WrongPassphraseError,
} from "./backup-encryption.server";
import type { OffsiteCopy, OffsiteTarget } from "./offsite-target.server";
import {
  chooseNewestEncryptedCopy,
  MAX_COPIES_LOOKED_AT,
  refuseUnencrypted,
  type EncryptionPolicy,
  type InspectedCopy,
} from "./restore-rules.server";
import { RestoreRefusedError } from "./restore.server";

/**
 * What `npm run restore` reads: a file, or a copy in the off-site
 * bucket (found by listing it, so nothing kept on a lost server is needed),
 * decrypted first when it is an age file. Which backups it accepts follows
 * restore-rules.server.ts. Temporary files go in workDir (DATA_DIR/backups,
 * which a restore leaves alone) and are removed by cleanup().
 */
export type RestoreSource = {
  file: string;
  name: string;
  /** It was age-encrypted (and opened with the passphrase). */
  encrypted: boolean;
  cleanup(): Promise<void>;
};

export type RestoreSourceOptions = {
  /** A file on this machine; or */
  file?: string;
  /** the off-site bucket's newest encrypted backup, or the one named. */
  offsite?: { target: OffsiteTarget; name?: string };
  workDir: string;
  /** Asked at most once, and only when an encrypted backup is met. */
  passphrase: () => Promise<string>;
  /** When an unencrypted backup is refused (restore-rules.server.ts). */
  encryption: EncryptionPolicy;
};

/** A name Cornerstone gives backups it copies off-site; anything else in the bucket is not offered. */
const isBackupName = (name: string) => name.startsWith("cornerstone-") && /\.tar\.gz(\.age)?$/.test(name);

/** The off-site copy named; a wrong name lists the newest there. */
export function findNamedCopy(copies: OffsiteCopy[], name: string, where: string): OffsiteCopy {
  const backups = copies.filter((copy) => isBackupName(copy.name));
  const named = backups.find((copy) => copy.name === name);
  if (named) return named;
  const newest = newestUploadedFirst(backups)
    .slice(0, 5)
    .map((copy) => copy.name);
  throw new RestoreRefusedError(
    `There is no backup named ${name} in ${where}. ` +
      (newest.length ? `The newest there: ${newest.join(", ")}. ` : "It holds no backups. ") +
      "Nothing was changed.",
  );
}

function newestUploadedFirst(copies: OffsiteCopy[]): OffsiteCopy[] {
  return [...copies].sort((a, b) => b.modifiedAt.getTime() - a.modifiedAt.getTime() || b.name.localeCompare(a.name));
}

/**
 * Looks at the start of each of the bucket's newest copies (MAX_COPIES_LOOKED_AT): whether it is
 * encrypted, and when it was made by the time inside it (an encrypted one only when the
 * passphrase opens it), then picks by restore-rules.server.ts.
 */
async function chooseNewestOffsiteCopy(
  target: OffsiteTarget,
  passphrase: () => Promise<string>,
  encryption: EncryptionPolicy,
): Promise<OffsiteCopy> {
  const backups = newestUploadedFirst((await target.list()).filter((copy) => isBackupName(copy.name)));
  const inspected: InspectedCopy[] = [];
  for (const copy of backups.slice(0, MAX_COPIES_LOOKED_AT)) {
    const start = await target.readStart(copy.name, ENCRYPTED_START_BYTES);
    if (!startsAsEncrypted(start)) {
      inspected.push({ ...copy, encrypted: false, createdAt: archiveTimeFromStart(start) });
      continue;
    }
    const plain = await decryptStart(start, await passphrase(), { wholeFile: start.length < ENCRYPTED_START_BYTES });
    inspected.push({ ...copy, encrypted: true, createdAt: plain ? archiveTimeFromStart(plain) : null });
  }
  return chooseNewestEncryptedCopy(inspected, { where: target.description, total: backups.length, policy: encryption });
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
  let asked: Promise<string> | undefined;
  const passphrase = () => (asked ??= options.passphrase());
  try {
    let file: string;
    let name: string;
    if (options.offsite) {
      const { target } = options.offsite;
      const copy = options.offsite.name
        ? findNamedCopy(await target.list(), options.offsite.name, target.description)
        : await chooseNewestOffsiteCopy(target, passphrase, options.encryption);
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
    if (!(await isEncryptedFile(file).catch(() => false))) {
      refuseUnencrypted(
        options.offsite ? `${name} (in ${options.offsite.target.description})` : file,
        options.encryption,
      );
      return { file, name, encrypted: false, cleanup };
    }
    const key = await passphrase();
    await makeWorkDir();
    const plain = scratch("decrypted.tar.gz");
    try {
      await decryptFile(file, plain, key);
    } catch (error) {
      if (error instanceof WrongPassphraseError) throw new RestoreRefusedError(error.message);
      throw error;
    }
    return { file: plain, name, encrypted: true, cleanup };
  } catch (error) {
    await cleanup();
    throw error;
  }
}
