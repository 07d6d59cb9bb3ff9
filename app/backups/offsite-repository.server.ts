import fs from "node:fs/promises";
import path from "node:path";
import { openOffsiteKeys, type OffsiteKeys } from "./offsite-keys.server";
import {
  COPIES_PREFIX,
  copyManifestSchema,
  copyTimeOf,
  fileLineSchema,
  type CopyManifest,
  type FileLine,
} from "./offsite-manifest.server";
import { decryptBytes, objectKey, OffsiteDamagedError, openData } from "./offsite-objects.server";
import type { OffsiteStore } from "./offsite-store.server";

/**
 * Reading the off-site store (decision 0060): its copies, their manifests and
 * their lists of files, each decrypted and checked. Objects never change once
 * written (a manifest's name is unique, an object's is its content's HMAC), so
 * what was read once is cached: in memory for this process, and as the sealed
 * bytes in `cacheDir` (DATA_DIR/backups/.offsite-cache) for the next copy.
 */
export type OffsiteRepository = {
  store: OffsiteStore;
  keys: OffsiteKeys;
  /** Sealed manifests and data chunks, as stored; optional (a restore on a new server has none). */
  cacheDir?: string;
  /** Decrypted data chunks and manifests of this process, by store key, and their rough size. */
  memory: { entries: Map<string, Buffer | CopyManifest | FileLine[]>; bytes: number };
};

export type CopyListing = { name: string; at: Date; sealedBytes: number };

/** How much decrypted data stays in memory: the manifests and lists of a year of copies fit many times over. */
const MEMORY_LIMIT_BYTES = 64 * 1024 * 1024;

/** Opens the store's keys (one scrypt) and returns a repository to read and write; null for an empty store without `create`. */
export async function openOffsiteRepository(
  store: OffsiteStore,
  passphrase: string,
  options: { create: boolean; cacheDir?: string; scryptWorkFactor?: number },
): Promise<OffsiteRepository | null> {
  const keys = await openOffsiteKeys(store, passphrase, options);
  return keys ? { store, keys, cacheDir: options.cacheDir, memory: { entries: new Map(), bytes: 0 } } : null;
}

/** The copies in the store, oldest first, from their names alone (nothing decrypted). */
export async function listCopies(store: OffsiteStore): Promise<CopyListing[]> {
  return (await store.list(COPIES_PREFIX))
    .flatMap((object) => {
      const name = object.key.slice(COPIES_PREFIX.length);
      const at = copyTimeOf(name);
      return at ? [{ name, at, sealedBytes: object.bytes }] : [];
    })
    .sort((a, b) => a.at.getTime() - b.at.getTime() || (a.name < b.name ? -1 : 1));
}

const cacheFile = (dir: string, key: string) => path.join(dir, key.replace("/", "-"));

/** The sealed bytes at `key`: from the cache, or the store (then cached). Null when the store has none. */
async function sealedAt(repo: OffsiteRepository, key: string): Promise<Buffer | null> {
  if (repo.cacheDir) {
    const cached = await fs.readFile(cacheFile(repo.cacheDir, key)).catch(() => null);
    if (cached) return cached;
  }
  const sealed = await repo.store.get(key);
  if (sealed && repo.cacheDir) {
    await fs.mkdir(repo.cacheDir, { recursive: true, mode: 0o700 });
    const file = cacheFile(repo.cacheDir, key);
    await fs.writeFile(`${file}.tmp`, sealed, { mode: 0o600 });
    await fs.rename(`${file}.tmp`, file);
  }
  return sealed;
}

function remember(repo: OffsiteRepository, key: string, value: Buffer | CopyManifest | FileLine[], bytes: number) {
  if (repo.memory.bytes + bytes > MEMORY_LIMIT_BYTES) {
    repo.memory.entries.clear();
    repo.memory.bytes = 0;
  }
  repo.memory.entries.set(key, value);
  repo.memory.bytes += bytes;
}

/** A copy's manifest, decrypted and checked (it must name itself: a manifest moved to another name is refused). */
export async function readManifest(repo: OffsiteRepository, name: string): Promise<CopyManifest> {
  const key = `${COPIES_PREFIX}${name}`;
  const held = repo.memory.entries.get(key);
  if (held && !Buffer.isBuffer(held) && !Array.isArray(held)) return held;
  const sealed = await sealedAt(repo, key);
  if (!sealed) throw new OffsiteDamagedError(`The copy ${name} is no longer in the off-site store`);
  const plain = await decryptBytes(repo.keys, sealed, `The copy ${name}`);
  let json: unknown;
  try {
    json = JSON.parse(plain.toString("utf8"));
  } catch {
    throw new OffsiteDamagedError(`The copy ${name} in the off-site store is damaged`);
  }
  const parsed = copyManifestSchema.safeParse(json);
  if (!parsed.success || parsed.data.name !== name)
    throw new OffsiteDamagedError(`The copy ${name} in the off-site store is not a Cornerstone copy`);
  remember(repo, key, parsed.data, 2048);
  return parsed.data;
}

/** A `data` object's plain bytes (a table chunk, a list chunk), checked against its name. */
export async function readDataObject(repo: OffsiteRepository, id: string): Promise<Buffer> {
  const key = objectKey(id);
  const held = repo.memory.entries.get(key);
  if (held && Buffer.isBuffer(held)) return held;
  const sealed = await sealedAt(repo, key);
  if (!sealed) throw new OffsiteDamagedError(`The object ${id} is missing from the off-site store`);
  const plain = await openData(repo.keys, sealed, id);
  remember(repo, key, plain, plain.length);
  return plain;
}

/** The copy's list of stored files, in key order. */
export async function readFileList(repo: OffsiteRepository, manifest: CopyManifest): Promise<FileLine[]> {
  const memoryKey = `files:${manifest.name}`;
  const held = repo.memory.entries.get(memoryKey);
  if (Array.isArray(held)) return held;
  const files: FileLine[] = [];
  for (const chunk of manifest.files.chunks) {
    const text = (await readDataObject(repo, chunk.id)).toString("utf8");
    for (const line of text.split("\n")) {
      if (!line) continue;
      const parsed = fileLineSchema.safeParse(JSON.parse(line));
      if (!parsed.success) throw new OffsiteDamagedError(`The list of files of the copy ${manifest.name} is damaged`);
      files.push(parsed.data);
    }
  }
  if (files.length !== manifest.files.count)
    throw new OffsiteDamagedError(`The list of files of the copy ${manifest.name} is incomplete`);
  remember(repo, memoryKey, files, files.length * 160);
  return files;
}

/** Forgets cached sealed bytes no longer needed (keys: what the kept copies still name). */
export async function trimCache(repo: OffsiteRepository, keep: ReadonlySet<string>): Promise<void> {
  if (!repo.cacheDir) return;
  const wanted = new Set([...keep].map((key) => path.basename(cacheFile(repo.cacheDir!, key))));
  for (const name of await fs.readdir(repo.cacheDir).catch(() => [] as string[])) {
    if (!wanted.has(name)) await fs.rm(path.join(repo.cacheDir, name), { force: true });
  }
}
