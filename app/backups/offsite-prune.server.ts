import { applyKeepPolicy, type KeepPolicy } from "./offsite-keep";
import { chunkIdsOf, COPIES_PREFIX } from "./offsite-manifest.server";
import { objectKey, OBJECTS_PREFIX } from "./offsite-objects.server";
import {
  listCopies,
  readDataObject,
  readManifest,
  trimCache,
  type OffsiteRepository,
} from "./offsite-repository.server";

/**
 * The keep policy applied to the off-site store (decision 0060): the copies
 * the policy lets go lose their manifest first; then every object that no
 * kept copy names is deleted (those copies' objects, and whatever a copy cut
 * off halfway left behind). What the kept copies name is read from their
 * manifests and lists, each checked: if any of them cannot be read, no
 * object is deleted at all, since one might still be needed.
 */
export type PruneFigures = {
  keptCopies: number;
  removedCopies: string[];
  removedObjects: number;
  removedBytes: number;
  /** What the store holds afterwards: every object and manifest. */
  storedBytes: number;
  storedObjects: number;
};

export async function pruneOffsiteStore(
  repo: OffsiteRepository,
  policy: KeepPolicy,
  options: { signal?: AbortSignal } = {},
): Promise<PruneFigures> {
  const { store } = repo;
  const copies = await listCopies(store);
  const { keep, remove } = applyKeepPolicy(copies, policy);
  for (const copy of remove) {
    options.signal?.throwIfAborted();
    await store.remove(`${COPIES_PREFIX}${copy.name}`);
  }

  // Everything a kept copy names. A list chunk shared by many copies is read once.
  const named = new Set<string>();
  const cached = new Set<string>();
  const listsRead = new Set<string>();
  for (const copy of keep) {
    const manifest = await readManifest(repo, copy.name);
    cached.add(`${COPIES_PREFIX}${copy.name}`);
    for (const id of chunkIdsOf(manifest)) named.add(id);
    for (const chunk of manifest.files.chunks) {
      cached.add(objectKey(chunk.id));
      if (listsRead.has(chunk.id)) continue;
      listsRead.add(chunk.id);
      for (const line of (await readDataObject(repo, chunk.id)).toString("utf8").split("\n")) {
        // The file objects' names, as readFileList would give them (each chunk was checked when read).
        if (line) named.add((JSON.parse(line) as { id: string }).id);
      }
    }
  }

  let removedObjects = 0;
  let removedBytes = 0;
  let storedBytes = 0;
  let storedObjects = 0;
  for (const object of await store.list(OBJECTS_PREFIX)) {
    const id = object.key.slice(OBJECTS_PREFIX.length);
    if (named.has(id)) {
      storedBytes += object.bytes;
      storedObjects += 1;
      continue;
    }
    options.signal?.throwIfAborted();
    await store.remove(object.key);
    removedObjects += 1;
    removedBytes += object.bytes;
  }
  storedBytes += keep.reduce((sum, copy) => sum + copy.sealedBytes, 0);
  await trimCache(repo, cached);
  return {
    keptCopies: keep.length,
    removedCopies: remove.map((copy) => copy.name),
    removedObjects,
    removedBytes,
    storedBytes,
    storedObjects,
  };
}
