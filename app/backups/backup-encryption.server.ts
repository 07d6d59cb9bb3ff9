import { once } from "node:events";
import { createReadStream, createWriteStream } from "node:fs";
import fs from "node:fs/promises";
import { PassThrough, Readable, type Writable } from "node:stream";
import type { ReadableStream as WebReadableStream } from "node:stream/web";
import { pipeline } from "node:stream/promises";
import { Decrypter, Encrypter } from "age-encryption";

/**
 * Backups encrypted with age (decision 0052): a scrypt passphrase recipient,
 * so `age -d` opens a backup without Cornerstone. age works in 64 KiB chunks,
 * and everything here is streamed, so memory stays bounded whatever the
 * archive's size (scrypt itself takes about 256 MiB for a moment, once per file).
 */

/** An encrypted backup's name ends with this, after ".tar.gz". */
export const ENCRYPTED_SUFFIX = ".age";
const AGE_MAGIC = "age-encryption.org/v1\n";

/** Refused: the passphrase does not open this backup. Nothing was changed. */
export class WrongPassphraseError extends Error {
  override name = "WrongPassphraseError";
}

type WebBytes = WebReadableStream<Uint8Array>;
const toWeb = (stream: Readable) => Readable.toWeb(stream) as unknown as WebBytes;
const fromWeb = (stream: ReadableStream<Uint8Array>) => Readable.fromWeb(stream as unknown as WebBytes);

/**
 * A writable that encrypts what is written into `output`. `sealed` settles
 * once the last encrypted byte is in `output` (or with the first error).
 */
export async function encryptingWriter(
  output: Writable,
  passphrase: string,
): Promise<{ input: Writable; sealed: Promise<void> }> {
  const input = new PassThrough();
  const encrypter = new Encrypter();
  encrypter.setPassphrase(passphrase);
  const encrypted = await encrypter.encrypt(toWeb(input) as unknown as ReadableStream<Uint8Array>);
  const sealed = pipeline(fromWeb(encrypted), output);
  // A broken output must fail the writer too, so the archive stops rather than waits.
  sealed.catch((error: unknown) => input.destroy(error as Error));
  return { input, sealed };
}

/** A backup's name verifies with or without ".age": its tag covers the archive's own name. */
export function withEncryptedNames<N extends { verify(name: string): unknown }>(naming: N): N {
  const strip = (name: string) => (name.endsWith(ENCRYPTED_SUFFIX) ? name.slice(0, -ENCRYPTED_SUFFIX.length) : name);
  return { ...naming, verify: (name: string) => naming.verify(strip(name)) };
}

/** age's own chunk (64 KiB) with its tag: the first chunk opens once a byte past it has arrived. */
const AGE_CHUNK_WITH_TAG = 64 * 1024 + 16;
/** Enough of an age file to open its first chunk: the header (one scrypt stanza), the nonce, a chunk and a byte. */
export const ENCRYPTED_START_BYTES = 1024 + AGE_CHUNK_WITH_TAG + 1;
/**
 * The scrypt work factor Cornerstone's backups use (age's default, 2^18: about 256 MiB for a
 * moment). A file asking for more is not tried when choosing among copies: a planted file must
 * not make the restore take 1 GiB per attempt.
 */
const MAX_CHOOSING_SCRYPT_LOG_N = 18;

/** True when the bytes start as an age file does. */
export function startsAsEncrypted(bytes: Buffer): boolean {
  return bytes.subarray(0, AGE_MAGIC.length).toString("latin1") === AGE_MAGIC;
}

/**
 * The first plaintext bytes (up to 64 KiB) of an age file from its first bytes (at least
 * ENCRYPTED_START_BYTES, or `wholeFile`); null when the passphrase does not open it, or its
 * header is not one Cornerstone's backups have (a single scrypt stanza of at most 2^18).
 * The plaintext is authenticated: only someone with the passphrase can have made it.
 */
export async function decryptStart(
  start: Buffer,
  passphrase: string,
  options: { wholeFile: boolean },
): Promise<Buffer | null> {
  const stanza = /^-> scrypt \S+ (\d+)$/m.exec(start.subarray(0, 1024).toString("latin1"));
  if (!startsAsEncrypted(start) || !stanza || Number(stanza[1]) > MAX_CHOOSING_SCRYPT_LOG_N) return null;
  const decrypter = new Decrypter();
  decrypter.addPassphrase(passphrase);
  // Part of a file: the input stays open, so the first chunk is never taken for the last one.
  const input = new ReadableStream<Uint8Array>({
    start(controller) {
      controller.enqueue(new Uint8Array(start));
      if (options.wholeFile) controller.close();
    },
  });
  let plain: ReadableStream<Uint8Array>;
  try {
    plain = await decrypter.decrypt(input);
  } catch {
    return null;
  }
  const reader = plain.getReader();
  try {
    const { value } = await reader.read();
    return value ? Buffer.from(value) : null;
  } catch {
    return null;
  } finally {
    await reader.cancel().catch(() => {});
  }
}

/** True when the file starts as an age file does. */
export async function isEncryptedFile(file: string): Promise<boolean> {
  const handle = await fs.open(file, "r");
  try {
    const buffer = Buffer.alloc(AGE_MAGIC.length);
    const { bytesRead } = await handle.read(buffer, 0, buffer.length, 0);
    return buffer.subarray(0, bytesRead).toString("latin1") === AGE_MAGIC;
  } finally {
    await handle.close();
  }
}

/**
 * Decrypts `source` into a new file `target` (never over an existing one).
 * A wrong passphrase is refused before anything is written; a file changed
 * after it was encrypted fails its authentication and leaves no target behind.
 */
export async function decryptFile(source: string, target: string, passphrase: string): Promise<void> {
  const decrypter = new Decrypter();
  decrypter.addPassphrase(passphrase);
  const input = createReadStream(source);
  let plain: ReadableStream<Uint8Array>;
  try {
    plain = await decrypter.decrypt(toWeb(input) as unknown as ReadableStream<Uint8Array>);
  } catch {
    input.destroy();
    throw new WrongPassphraseError(
      "The passphrase does not open this backup (or the file is not an encrypted Cornerstone backup). Nothing was changed.",
    );
  }
  const output = createWriteStream(target, { flags: "wx", mode: 0o600 });
  await once(output, "open");
  try {
    await pipeline(fromWeb(plain), output);
  } catch (error) {
    await fs.rm(target, { force: true });
    throw new Error(`The encrypted backup is damaged: ${(error as Error).message}. Nothing was changed.`);
  }
}
