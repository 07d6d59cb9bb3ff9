import { randomBytes } from "node:crypto";
import { Decrypter, Encrypter, generateX25519Identity, identityToRecipient } from "age-encryption";
import { z } from "~/lib/zod";
import type { OffsiteStore } from "./offsite-store.server";

/**
 * The off-site store's keys file (decision 0060): an X25519 identity (every
 * object is encrypted to its recipient) and a key that names objects (an
 * HMAC of their content), sealed with BACKUP_PASSPHRASE by age's scrypt
 * recipient. Opening it costs one scrypt, so a copy opens it once and every
 * object after that costs only X25519. The recipient is never stored in the
 * clear: without the passphrase, nobody can add an object a restore would take.
 */
export const KEYS_PREFIX = "keys/";
const KEYS_FORMAT = "cornerstone-offsite-keys";
/** age's default work factor: about 256 MiB and a few seconds, once per copy. */
export const DEFAULT_SCRYPT_WORK_FACTOR = 18;
/** A keys file asking more of scrypt than this is not ours: it is refused before scrypt runs (a planted one could ask for gigabytes). */
const MAX_SCRYPT_WORK_FACTOR = 18;
/** At most this many keys files are tried (each costs one scrypt). */
const MAX_KEYS_FILES = 4;

export type OffsiteKeys = {
  /** AGE-SECRET-KEY-1…: decrypts every object. */
  identity: string;
  /** age1…: what every object is encrypted to. */
  recipient: string;
  /** Names objects: HMAC-SHA256 of their content under this key. */
  namingKey: Buffer;
  /** The keys file these came from (under keys/). */
  file: string;
};

const keysFileSchema = z.object({
  format: z.literal(KEYS_FORMAT),
  version: z.literal(1),
  identity: z.string().regex(/^AGE-SECRET-KEY-1[0-9A-Z]+$/),
  namingKey: z.string().regex(/^[0-9a-f]{64}$/),
  createdAt: z.string(),
});

/** Refused: BACKUP_PASSPHRASE (or the one given) does not open the store's keys. Nothing was changed. */
export class OffsitePassphraseError extends Error {
  override name = "OffsitePassphraseError";
}

/** The scrypt work factor an age file's header asks for, or null when it is not a passphrase-sealed age file. */
function scryptWorkFactorOf(sealed: Buffer): number | null {
  const header = sealed.subarray(0, 200).toString("latin1");
  const match = /^age-encryption\.org\/v1\n-> scrypt \S+ (\d+)\n/.exec(header);
  return match ? Number(match[1]) : null;
}

async function openKeysFile(sealed: Buffer, passphrase: string, file: string): Promise<OffsiteKeys | null> {
  const workFactor = scryptWorkFactorOf(sealed);
  if (workFactor === null || workFactor > MAX_SCRYPT_WORK_FACTOR) return null;
  const decrypter = new Decrypter();
  decrypter.addPassphrase(passphrase);
  let text: string;
  try {
    text = await decrypter.decrypt(sealed, "text");
  } catch {
    return null;
  }
  const parsed = keysFileSchema.safeParse(JSON.parse(text));
  if (!parsed.success) return null;
  const { identity, namingKey } = parsed.data;
  return { identity, recipient: await identityToRecipient(identity), namingKey: Buffer.from(namingKey, "hex"), file };
}

/**
 * Opens the store's keys with the passphrase. With none there yet, `create` makes them (the first
 * copy); otherwise null (an empty store). Throws OffsitePassphraseError when keys exist but none opens.
 */
export async function openOffsiteKeys(
  store: OffsiteStore,
  passphrase: string,
  options: { create: boolean; scryptWorkFactor?: number },
): Promise<OffsiteKeys | null> {
  const files = (await store.list(KEYS_PREFIX)).slice(0, MAX_KEYS_FILES);
  for (const { key } of files) {
    const sealed = await store.get(key);
    const keys = sealed ? await openKeysFile(sealed, passphrase, key) : null;
    if (keys) return keys;
  }
  if (files.length) {
    throw new OffsitePassphraseError(
      `The passphrase does not open the off-site copies' keys in ${store.description}: they were made with another one. ` +
        "Use that one, or seal them with the new one by npm run backup -- --change-passphrase. Nothing was changed.",
    );
  }
  if (!options.create) return null;
  const identity = await generateX25519Identity();
  const body = keysFileBody(identity, randomBytes(32));
  const file = await putKeysFile(store, body, passphrase, options.scryptWorkFactor);
  // Two first copies at once (two sites started on one empty store): the first name wins.
  const [first] = await store.list(KEYS_PREFIX);
  if (first && first.key !== file) {
    await store.remove(file);
    return openOffsiteKeys(store, passphrase, { create: false });
  }
  return {
    identity,
    recipient: await identityToRecipient(identity),
    namingKey: Buffer.from(JSON.parse(body).namingKey, "hex"),
    file,
  };
}

function keysFileBody(identity: string, namingKey: Buffer): string {
  return JSON.stringify({
    format: KEYS_FORMAT,
    version: 1,
    identity,
    namingKey: namingKey.toString("hex"),
    createdAt: new Date().toISOString(),
  });
}

async function putKeysFile(
  store: OffsiteStore,
  body: string,
  passphrase: string,
  scryptWorkFactor?: number,
): Promise<string> {
  const encrypter = new Encrypter();
  encrypter.setPassphrase(passphrase);
  encrypter.setScryptWorkFactor(scryptWorkFactor ?? DEFAULT_SCRYPT_WORK_FACTOR);
  const file = `${KEYS_PREFIX}${randomBytes(16).toString("hex")}`;
  await store.put(file, { bytes: await encrypter.encrypt(body) });
  return file;
}

/**
 * A new BACKUP_PASSPHRASE for the copies already in the store: the same keys, sealed again with
 * `newPassphrase` (the new keys file is written before the old one goes, so one always opens).
 * OffsitePassphraseError when `oldPassphrase` does not open them; false when the store has none.
 */
export async function resealOffsiteKeys(
  store: OffsiteStore,
  oldPassphrase: string,
  newPassphrase: string,
  options: { scryptWorkFactor?: number } = {},
): Promise<boolean> {
  const keys = await openOffsiteKeys(store, oldPassphrase, { create: false });
  if (!keys) return false;
  await putKeysFile(store, keysFileBody(keys.identity, keys.namingKey), newPassphrase, options.scryptWorkFactor);
  await store.remove(keys.file);
  return true;
}
