import { createHmac, randomBytes, timingSafeEqual } from "node:crypto";
import type { Database } from "~/db/database.server";
import { withEncryptedNames } from "./backup-encryption.server";
import { loadOrCreateDatabaseSecret, loadOrCreateSecret } from "~/db/secrets.server";

/**
 * Backup names (decision 0046): `<kind>-YYYYMMDD-HHmmss-<random>-<tag>[.tar.gz]`. The random part makes a name
 * unguessable; the tag is an HMAC with a key in secrets/ (never in a backup), so pruning skips planted names.
 */
export type BackupNameKind = "cornerstone" | "pre-restore";

/** The secret's name in secrets/ and in the secrets table. */
export const BACKUP_NAME_KEY = "backup-names";

const NAME = /^(cornerstone|pre-restore)-(\d{8}-\d{6})-([0-9a-f]{24})-([0-9a-f]{32})((?:\.tar\.gz)?)$/;

export type VerifiedBackupName = { kind: BackupNameKind; stamp: string };

export type BackupNaming = {
  /** A fresh name: `cornerstone-…tar.gz` (scheduled and manual backups), `pre-restore-…` (what a restore replaced). */
  make(kind: BackupNameKind, at: Date, options?: { folder?: boolean }): string;
  /** The name's kind and time when this installation made it (its tag verifies); otherwise null. */
  verify(name: string): VerifiedBackupName | null;
};

const pad = (value: number) => String(value).padStart(2, "0");

/** YYYYMMDD-HHmmss in UTC: names sort by time and mean the same on every server. */
export function timestampForFileName(date: Date): string {
  return (
    `${date.getUTCFullYear()}${pad(date.getUTCMonth() + 1)}${pad(date.getUTCDate())}-` +
    `${pad(date.getUTCHours())}${pad(date.getUTCMinutes())}${pad(date.getUTCSeconds())}`
  );
}

export function createBackupNaming(key: string): BackupNaming {
  const tagOf = (signed: string) => createHmac("sha256", key).update(signed).digest("hex").slice(0, 32);
  return {
    make(kind, at, options = {}) {
      const body = `${kind}-${timestampForFileName(at)}-${randomBytes(12).toString("hex")}`;
      const ext = options.folder ? "" : ".tar.gz";
      return `${body}-${tagOf(`${body}${ext}`)}${ext}`;
    },
    verify(name) {
      const match = NAME.exec(name);
      if (!match) return null;
      const [, kind, stamp, random, tag, ext] = match;
      const expected = Buffer.from(tagOf(`${kind}-${stamp}-${random}${ext}`));
      if (!timingSafeEqual(expected, Buffer.from(tag!))) return null;
      return { kind: kind as BackupNameKind, stamp: stamp! };
    },
  };
}

/**
 * This installation's naming: the key from DATA_DIR/secrets/backup-names.key, or with
 * PostgreSQL (`sharedDb`) from the secrets table, so every instance verifies the same names.
 */
export async function loadBackupNaming(setup: { dataDir: string; sharedDb?: Database | null }): Promise<BackupNaming> {
  const key = setup.sharedDb
    ? await loadOrCreateDatabaseSecret(setup.sharedDb, BACKUP_NAME_KEY)
    : loadOrCreateSecret(setup.dataDir, BACKUP_NAME_KEY);
  return withEncryptedNames(createBackupNaming(key));
}
