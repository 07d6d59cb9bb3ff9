import { createHmac, timingSafeEqual, type Hmac } from "node:crypto";
import { createWriteStream } from "node:fs";
import fs from "node:fs/promises";
import { Readable, Transform } from "node:stream";
import type { ReadableStream as WebReadableStream } from "node:stream/web";
import { pipeline } from "node:stream/promises";
import { promisify } from "node:util";
import zlib from "node:zlib";
import { Decrypter, Encrypter } from "age-encryption";
import type { OffsiteKeys } from "./offsite-keys.server";

/**
 * Objects in the off-site store (decision 0060). Each is age-encrypted to the
 * store's X25519 recipient and named `objects/<id>`, the id an HMAC-SHA256 of
 * its plain content under the naming key: the same content always has the
 * same name (sent once, shared by every copy), and a name says nothing about
 * the content to anyone without the key. Two kinds, told apart inside the
 * HMAC so their names never collide:
 *   data  JSON lines (tables, a copy's list of files): gzip'd before sealing;
 *   file  a stored photo file, sealed as it is (it is compressed already).
 * Reading one back checks its HMAC: a changed or swapped object is refused.
 */
export type ObjectKind = "data" | "file";

export const OBJECTS_PREFIX = "objects/";
export const objectKey = (id: string) => `${OBJECTS_PREFIX}${id}`;
export const OBJECT_ID = /^[0-9a-f]{64}$/;

const gzip = promisify(zlib.gzip);
const gunzip = promisify(zlib.gunzip);

/** Refused: an object or copy in the store is not what was written. Nothing was changed. */
export class OffsiteDamagedError extends Error {
  override name = "OffsiteDamagedError";
}

type WebBytes = WebReadableStream<Uint8Array>;
const toWeb = (stream: Readable) => Readable.toWeb(stream) as unknown as ReadableStream<Uint8Array>;
const fromWeb = (stream: ReadableStream<Uint8Array>) => Readable.fromWeb(stream as unknown as WebBytes);

const encrypters = new WeakMap<OffsiteKeys, Encrypter>();
const decrypters = new WeakMap<OffsiteKeys, Decrypter>();

function encrypterFor(keys: OffsiteKeys): Encrypter {
  let encrypter = encrypters.get(keys);
  if (!encrypter) {
    encrypter = new Encrypter();
    encrypter.addRecipient(keys.recipient);
    encrypters.set(keys, encrypter);
  }
  return encrypter;
}

function decrypterFor(keys: OffsiteKeys): Decrypter {
  let decrypter = decrypters.get(keys);
  if (!decrypter) {
    decrypter = new Decrypter();
    decrypter.addIdentity(keys.identity);
    decrypters.set(keys, decrypter);
  }
  return decrypter;
}

/** The HMAC that names content of this kind; feed it the plain bytes. */
export function objectHasher(keys: OffsiteKeys, kind: ObjectKind): Hmac {
  return createHmac("sha256", keys.namingKey).update(`cornerstone-offsite/${kind}\n`);
}

export function objectIdOf(keys: OffsiteKeys, kind: ObjectKind, content: Uint8Array): string {
  return objectHasher(keys, kind).update(content).digest("hex");
}

function sameId(actual: string, expected: string): boolean {
  return actual.length === expected.length && timingSafeEqual(Buffer.from(actual), Buffer.from(expected));
}

/** Encrypts small bytes to the store's recipient (a manifest, a list chunk). */
export async function encryptBytes(keys: OffsiteKeys, plain: Uint8Array): Promise<Uint8Array> {
  return encrypterFor(keys).encrypt(plain);
}

/** Decrypts small bytes; OffsiteDamagedError when they were not sealed to this store's key or were changed. */
export async function decryptBytes(keys: OffsiteKeys, sealed: Uint8Array, what: string): Promise<Buffer> {
  try {
    return Buffer.from(await decrypterFor(keys).decrypt(sealed));
  } catch {
    throw new OffsiteDamagedError(
      `${what} in the off-site store does not open with its keys: it was changed or damaged`,
    );
  }
}

/** JSON lines (or any data) sealed as a `data` object: its id, and the bytes to store. */
export async function sealData(keys: OffsiteKeys, plain: Uint8Array): Promise<{ id: string; sealed: Uint8Array }> {
  return { id: objectIdOf(keys, "data", plain), sealed: await encryptBytes(keys, await gzip(plain, { level: 6 })) };
}

/** A `data` object's plain bytes, checked against its name. */
export async function openData(keys: OffsiteKeys, sealed: Uint8Array, id: string): Promise<Buffer> {
  const what = `The object ${id}`;
  const zipped = await decryptBytes(keys, sealed, what);
  const plain = await gunzip(zipped).catch(() => {
    throw new OffsiteDamagedError(`${what} in the off-site store is damaged`);
  });
  if (!sameId(objectIdOf(keys, "data", plain), id))
    throw new OffsiteDamagedError(`${what} in the off-site store is not what was written`);
  return plain;
}

/**
 * Seals a stored file as it streams by, into a new local file: its id (HMAC of the plain bytes),
 * its plain size, and the sealed file's size. Memory stays at age's 64 KiB chunks.
 */
export async function sealFileTo(
  keys: OffsiteKeys,
  source: Readable,
  target: string,
): Promise<{ id: string; bytes: number; sealedBytes: number }> {
  const hash = objectHasher(keys, "file");
  let bytes = 0;
  const tap = new Transform({
    transform(chunk: Buffer, _encoding, callback) {
      hash.update(chunk);
      bytes += chunk.length;
      callback(null, chunk);
    },
  });
  const plain = source.pipe(tap);
  source.on("error", (error) => tap.destroy(error));
  const sealed = await encrypterFor(keys).encrypt(toWeb(plain));
  try {
    await pipeline(fromWeb(sealed), createWriteStream(target, { flags: "wx", mode: 0o600 }));
  } catch (error) {
    await fs.rm(target, { force: true });
    throw error;
  }
  return { id: hash.digest("hex"), bytes, sealedBytes: (await fs.stat(target)).size };
}

/**
 * A `file` object's plain bytes as a stream. The stream fails (before its end) when the bytes are
 * not the ones its name promises: a consumer must treat what it received as lost on any error.
 */
export async function openFileStream(
  keys: OffsiteKeys,
  sealed: NodeJS.ReadableStream,
  id: string,
  bytes: number,
): Promise<Readable> {
  let plain: ReadableStream<Uint8Array>;
  try {
    plain = await decrypterFor(keys).decrypt(toWeb(Readable.from(sealed as AsyncIterable<Uint8Array>)));
  } catch {
    throw new OffsiteDamagedError(
      `The object ${id} in the off-site store does not open with its keys: it was changed or damaged`,
    );
  }
  const hash = objectHasher(keys, "file");
  let seen = 0;
  const check = new Transform({
    transform(chunk: Buffer, _encoding, callback) {
      hash.update(chunk);
      seen += chunk.length;
      callback(null, chunk);
    },
    flush(callback) {
      if (seen !== bytes || !sameId(hash.digest("hex"), id)) {
        callback(new OffsiteDamagedError(`The object ${id} in the off-site store is not what was written`));
      } else callback();
    },
  });
  const decrypted = fromWeb(plain);
  decrypted.on("error", () =>
    check.destroy(new OffsiteDamagedError(`The object ${id} in the off-site store is damaged`)),
  );
  return decrypted.pipe(check);
}
