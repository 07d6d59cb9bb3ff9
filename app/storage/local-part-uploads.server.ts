import { createHash } from "node:crypto";
import { Readable, Transform, pipeline } from "node:stream";
import { IncompletePartError, InvalidPartsError } from "./storage-errors.server";
import type { ObjectStorage, PartUploads } from "./storage.server";

/** 1 MiB: about 11 s on a 750 kbit/s uplink, at most what a dropped signal costs. */
export const DISK_PART_BYTES = 1024 * 1024;

/** Where the disk keeps one part until the upload is put together: beside the object it becomes. */
export function diskPartKey(key: string, partNumber: number): string {
  return `${key}.part-${partNumber}`;
}

/** An ETag as S3 writes it: the MD5 of the bytes, in quotes. */
const quotedMd5 = (hash: ReturnType<typeof createHash>) => `"${hash.digest("hex")}"`;
const unquoted = (etag: string) => etag.replace(/"/g, "").toLowerCase();

/** Parts of an upload kept on the disk, through the disk storage's own write, read and delete. */
export function createLocalPartUploads(storage: Pick<ObjectStorage, "write" | "read" | "delete">): PartUploads {
  return {
    partBytes: DISK_PART_BYTES,

    // The page PUTs parts to this server: nothing stands between them.
    check: async () => ({ available: true }),

    start: async () => ({ multipartId: null }),

    partUrl: async () => null,

    // The path of the single-PUT upload URL, without its signature: what registration recognises (objectIdFromUploadUrl).
    imageUrl: (objectId) => `/api/uploads/${encodeURIComponent(objectId)}`,

    async write(key, partNumber, body, bytes) {
      const hash = createHash("md5");
      const hashing = new Transform({
        transform(chunk: Buffer, _encoding, callback) {
          hash.update(chunk);
          callback(null, chunk);
        },
      });
      // A body that fails or is cut off destroys `hashing` too, so the write below fails and keeps nothing.
      pipeline(body, hashing, () => {});
      const partKey = diskPartKey(key, partNumber);
      const written = await storage.write(partKey, hashing, { maxBytes: bytes });
      if (written.bytes !== bytes) {
        await storage.delete(partKey);
        throw new IncompletePartError(`Part ${partNumber} has ${written.bytes} of its ${bytes} bytes`);
      }
      return { etag: quotedMd5(hash), head: written.head };
    },

    async complete(key, _multipartId, parts) {
      // Each part is read once: hashed as it is copied, so a part replaced since its ETag was given is refused.
      async function* joined() {
        for (const { partNumber, etag } of parts) {
          const part = await storage.read(diskPartKey(key, partNumber));
          if (!part) throw new InvalidPartsError(`Part ${partNumber} has not arrived: send it again`);
          const hash = createHash("md5");
          for await (const chunk of part.stream) {
            hash.update(chunk as Buffer);
            yield chunk as Buffer;
          }
          if (unquoted(quotedMd5(hash)) !== unquoted(etag)) {
            throw new InvalidPartsError(`Part ${partNumber} is not the one whose ETag was given: send it again`);
          }
        }
      }
      await storage.write(key, Readable.from(joined()));
      for (const { partNumber } of parts) await storage.delete(diskPartKey(key, partNumber));
    },

    async abort(key, _multipartId, partCount) {
      for (let partNumber = 1; partNumber <= partCount; partNumber++)
        await storage.delete(diskPartKey(key, partNumber));
      return true;
    },
  };
}
