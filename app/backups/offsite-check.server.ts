import { objectKey, OBJECTS_PREFIX, openFileStream } from "./offsite-objects.server";
import {
  listCopies,
  readDataObject,
  readFileList,
  readManifest,
  type OffsiteRepository,
} from "./offsite-repository.server";

/**
 * `npm run backup -- --verify` and `--read-data` (decision 0060), as restic's
 * `check` and `check --read-data`: every copy's manifest and list of files is
 * read and checked, and every object a copy names must be in the store. With
 * readData, each object is also downloaded, decrypted and its HMAC compared
 * with its name, so a changed byte anywhere is found.
 */
export type CheckReport = {
  copies: number;
  /** Distinct objects the copies name. */
  objects: number;
  /** Copies whose manifest or list could not be read, with why. */
  unreadableCopies: { name: string; message: string }[];
  /** Objects named but absent, with the copies that name them. */
  missing: { id: string; copies: string[] }[];
  /** Objects present but not what was written (readData only). */
  damaged: { id: string; message: string }[];
  /** Bytes downloaded to check the objects' contents (readData only). */
  bytesRead: number;
};

export const checkPassed = (report: CheckReport) =>
  !report.unreadableCopies.length && !report.missing.length && !report.damaged.length;

export async function checkOffsiteStore(
  repo: OffsiteRepository,
  options: { readData: boolean; onProgress?: (done: number, total: number) => void },
): Promise<CheckReport> {
  const report: CheckReport = { copies: 0, objects: 0, unreadableCopies: [], missing: [], damaged: [], bytesRead: 0 };
  // id → how to check it (data chunks are small; files are streamed) and who names it.
  const named = new Map<string, { kind: "data" | "file"; bytes: number; copies: string[] }>();
  const note = (id: string, kind: "data" | "file", bytes: number, copy: string) => {
    const entry = named.get(id) ?? { kind, bytes, copies: [] };
    entry.copies.push(copy);
    named.set(id, entry);
  };
  for (const copy of await listCopies(repo.store)) {
    report.copies += 1;
    try {
      const manifest = await readManifest(repo, copy.name);
      for (const table of Object.values(manifest.tables))
        for (const chunk of table.chunks) note(chunk.id, "data", chunk.bytes, copy.name);
      for (const chunk of manifest.files.chunks) note(chunk.id, "data", chunk.bytes, copy.name);
      for (const file of await readFileList(repo, manifest)) note(file.id, "file", file.bytes, copy.name);
    } catch (error) {
      report.unreadableCopies.push({ name: copy.name, message: (error as Error).message });
    }
  }
  report.objects = named.size;
  const present = new Map(
    (await repo.store.list(OBJECTS_PREFIX)).map((object) => [object.key.slice(OBJECTS_PREFIX.length), object.bytes]),
  );
  for (const [id, entry] of named) if (!present.has(id)) report.missing.push({ id, copies: entry.copies });
  if (!options.readData) return report;

  let done = 0;
  for (const [id, entry] of named) {
    if (!present.has(id)) continue;
    try {
      if (entry.kind === "data") {
        report.bytesRead += present.get(id)!;
        // Read from the store, not a cache: this is what a restore would get.
        await readDataObject({ ...repo, cacheDir: undefined, memory: { entries: new Map(), bytes: 0 } }, id);
      } else {
        const sealed = await repo.store.read(objectKey(id));
        if (!sealed) throw new Error("it went missing while being checked");
        report.bytesRead += sealed.bytes;
        for await (const _chunk of await openFileStream(repo.keys, sealed.stream, id, entry.bytes)) {
          // Decrypted and hashed on the way; the stream fails at its end if the HMAC does not match.
        }
      }
    } catch (error) {
      report.damaged.push({ id, message: (error as Error).message });
    }
    options.onProgress?.((done += 1), present.size);
  }
  return report;
}
