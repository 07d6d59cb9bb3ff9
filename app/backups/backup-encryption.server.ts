import { once } from "node:events";
import { createReadStream, createWriteStream } from "node:fs";
import fs from "node:fs/promises";
import { PassThrough, Readable, type Writable } from "node:stream";
import type { ReadableStream as WebReadableStream } from "node:stream/web";
import { pipeline } from "node:stream/promises";
import { Decrypter, Encrypter } from "age-encryption";

/**
 * Backups encrypted with age (decision 0052), a scrypt passphrase recipient so `age -d` opens them; streamed in
 * 64 KiB chunks, so memory stays bounded (scrypt takes about 256 MiB for a moment, once per file).
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

/** Encrypts what is written into `output`; `sealed` settles once the last byte is in (or with the first error). */
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
 * Into a new file `target`: a wrong passphrase is refused before anything is written; a tampered file fails its
 * authentication and leaves no target behind.
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
