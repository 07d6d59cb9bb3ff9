import { formatBytes } from "./backup-status";
import type { OffsiteCopy } from "./offsite-target.server";
import { RestoreRefusedError } from "./restore.server";

/**
 * Which backups a restore accepts (decision 0058), whatever the backup's format:
 * - When a passphrase is configured (BACKUP_PASSPHRASE) or given (--passphrase-file), the site's
 *   backups are encrypted, so a backup that is not is refused: anyone who could write where
 *   backups are kept could have planted it. `--allow-unencrypted` says the owner means it.
 * - Chosen without a name (`--from-offsite`), only a copy that opens with the passphrase is
 *   taken: the newest by the time inside it, not by the bucket's time or the name (anyone who
 *   can write to the bucket sets both). Unencrypted copies are never chosen; they are listed,
 *   and restored only by name.
 */
export const ALLOW_UNENCRYPTED = "--allow-unencrypted";

export type EncryptionPolicy = {
  /** A passphrase is configured (BACKUP_PASSPHRASE) or given (--passphrase-file). */
  passphraseExpected: boolean;
  /** `--allow-unencrypted`: restore an unencrypted backup all the same. */
  allowUnencrypted: boolean;
};

/** Refuses an unencrypted backup when the site's backups are encrypted (RestoreRefusedError), unless allowed. */
export function refuseUnencrypted(name: string, policy: EncryptionPolicy): void {
  if (!policy.passphraseExpected || policy.allowUnencrypted) return;
  throw new RestoreRefusedError(
    `${name} is not encrypted, but this site's backups are (a passphrase is set), so it was not restored: ` +
      "anyone who could write where backups are kept could have put it there. " +
      `If you know where it came from and mean to restore it, run the restore again with ${ALLOW_UNENCRYPTED}. Nothing was changed.`,
  );
}

/** A copy in the bucket, looked at: encrypted or not, and when the archive says it was made. */
export type InspectedCopy = OffsiteCopy & {
  encrypted: boolean;
  /**
   * Encrypted: the time inside it, only when the passphrase opened it (null otherwise).
   * Unencrypted: the time it claims, for the listing only (null when it says none).
   */
  createdAt: Date | null;
};

/** At most this many copies are looked at (one scrypt each for an encrypted one): the newest in the bucket. */
export const MAX_COPIES_LOOKED_AT = 50;

const utc = (date: Date) => `${date.toISOString().slice(0, 16).replace("T", " ")} UTC`;

function describeUnencrypted(copy: InspectedCopy): string {
  const made = copy.createdAt ? `says it was made ${utc(copy.createdAt)}, ` : "";
  return `  ${copy.name}  (${made}uploaded ${utc(copy.modifiedAt)}, ${formatBytes(copy.bytes)})`;
}

/**
 * `--from-offsite` without a name: the encrypted copy the passphrase opened with the newest time
 * inside it. Never an unencrypted one: without such a copy it refuses, listing the unencrypted
 * copies (their times and sizes) so one can be named. `lookedAt` of `total` copies were inspected.
 */
export function chooseNewestEncryptedCopy(
  inspected: InspectedCopy[],
  context: { where: string; total: number; policy: EncryptionPolicy },
): InspectedCopy {
  const openable = inspected.filter((copy) => copy.encrypted && copy.createdAt);
  const [newest] = openable.sort(
    (a, b) => b.createdAt!.getTime() - a.createdAt!.getTime() || b.name.localeCompare(a.name),
  );
  if (newest) return newest;

  const { where, total, policy } = context;
  if (total === 0) throw new RestoreRefusedError(`There is no backup in ${where} yet. Nothing was changed.`);
  const encrypted = inspected.filter((copy) => copy.encrypted).length;
  const unencrypted = inspected
    .filter((copy) => !copy.encrypted)
    .sort((a, b) => b.modifiedAt.getTime() - a.modifiedAt.getTime());
  const notLookedAt =
    total > inspected.length ? ` (only the newest ${inspected.length} of its ${total} files were looked at)` : "";
  const lines = [
    encrypted
      ? `None of the ${encrypted} encrypted backup(s) in ${where} opens with this passphrase${notLookedAt}.`
      : `${where.charAt(0).toUpperCase()}${where.slice(1)} holds no encrypted backup${notLookedAt}.`,
  ];
  if (unencrypted.length) {
    lines.push(
      "It holds these unencrypted copies, which are never chosen on their own (anyone who can write to the bucket could have put them there):",
      ...unencrypted.map(describeUnencrypted),
      `To restore one of them, name it: npm run restore -- --from-offsite NAME${policy.passphraseExpected ? ` ${ALLOW_UNENCRYPTED}` : ""}`,
    );
  } else if (encrypted) {
    lines.push("Check the passphrase (the first line of --passphrase-file, or BACKUP_PASSPHRASE).");
  }
  lines.push("Nothing was changed.");
  throw new RestoreRefusedError(lines.join("\n"));
}
