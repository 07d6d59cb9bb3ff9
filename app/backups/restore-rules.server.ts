import { RestoreRefusedError } from "./restore.server";

/**
 * With a passphrase configured or given, a backup that is not encrypted is refused unless `--allow-unencrypted`
 * (decision 0058): anyone who could write where backups are kept could have planted it.
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
