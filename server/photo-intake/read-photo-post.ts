import { randomUUID } from "node:crypto";
import { createWriteStream } from "node:fs";
import fs from "node:fs/promises";
import path from "node:path";
import { pipeline } from "node:stream/promises";
import busboy from "busboy";
import type { Request } from "express";
import { ENQUIRY_PHOTO_FIELD, MAX_ENQUIRY_PHOTO_BYTES } from "~/enquiry-photos/enquiry-photos";
import { streamsToDisk } from "../middleware/request-bounds";
import type { PhotoDiskReservation } from "./photo-disk";

/**
 * The one multipart reader for a visitor's photos, bounded. Every stream has its 'error' handled from birth, and
 * however a post ends its temporary files are deleted before the promise settles, unless it succeeded (`discard()`).
 */

type SavedPhoto = {
  fileName: string;
  declaredType: string;
  /** The temporary file: the photo's bytes, at most MAX_ENQUIRY_PHOTO_BYTES + 1. */
  path: string;
  /** Longer than MAX_ENQUIRY_PHOTO_BYTES: the rest of the part was thrown away. */
  tooLarge: boolean;
};

export type PhotoPost = {
  fields: [string, string][];
  /** Photo parts saved to disk, in the order sent. */
  photos: SavedPhoto[];
  /** Photo parts with a file chosen, saved or not. */
  photoParts: number;
  /** More parts or files than the limits allow: the rest was not read. */
  tooManyParts: boolean;
  /** A text field, its name, all the text, or the number of fields went past the limits. */
  tooMuchText: boolean;
  /** Photos were sent while the disk for them was taken: none were saved. */
  noRoom: boolean;
  /** Deletes the photos still on disk and gives their disk back. Call it once, when done with them. */
  discard(): Promise<void>;
};

/** Why a post could not be read; `left` means the visitor went away and there is nobody to answer. */
export type PhotoPostFailure = "not-multipart" | "unreadable" | "too-large" | "left";

export class PhotoPostError extends Error {
  override name = "PhotoPostError";
  constructor(readonly reason: PhotoPostFailure) {
    super(`The photo post could not be read: ${reason}`);
  }
}

export type PhotoPostLimits = {
  /** File parts read at most (any name). */
  files: number;
  fields: number;
  fieldBytes: number;
  /** All the text fields together, their names included (what the reader keeps in memory). */
  textBytes: number;
  parts: number;
  /** Past this many body bytes the post fails ("too-large") and the rest is not read. */
  bodyBytes: number;
};

export type ReadPhotoPostOptions = {
  /** The temporary folder (enquiryPhotoTempDir). */
  dir: string;
  limits: PhotoPostLimits;
  /** Disk for the photos, asked at the first photo part: "busy" throws them away (`noRoom`), "unwanted" (a bot) too. */
  diskForPhotos?: (fields: [string, string][], received: number) => PhotoDiskReservation | "busy" | "unwanted";
};

const ignoreError = () => {};

export async function readPhotoPost(req: Request, options: ReadPhotoPostOptions): Promise<PhotoPost> {
  await fs.mkdir(options.dir, { recursive: true, mode: 0o700 });
  // Gone while the folder was made: its 'close' has already been emitted. (Even a request that had
  // arrived whole is destroyed with its unread bytes when the connection is reset.)
  if (req.destroyed && !req.readableEnded) throw new PhotoPostError("left");
  streamsToDisk(req);
  let parser: busboy.Busboy;
  try {
    parser = busboy({
      headers: req.headers,
      defParamCharset: "utf8",
      limits: {
        files: options.limits.files,
        // One byte more than allowed, so a photo too large is seen as such.
        fileSize: MAX_ENQUIRY_PHOTO_BYTES + 1,
        fields: options.limits.fields,
        fieldSize: options.limits.fieldBytes,
        parts: options.limits.parts,
        headerPairs: 16,
      },
    });
  } catch {
    throw new PhotoPostError("not-multipart");
  }
  return readWith(req, parser, options);
}

function readWith(req: Request, parser: busboy.Busboy, options: ReadPhotoPostOptions): Promise<PhotoPost> {
  return new Promise((resolve, reject) => {
    const photos: SavedPhoto[] = [];
    const fields: [string, string][] = [];
    let photoParts = 0;
    let tooManyParts = false;
    let tooMuchText = false;
    let noRoom = false;
    let disk: PhotoDiskReservation | "busy" | "unwanted" | undefined;
    let textBytes = 0;
    /** Each temporary file's write, settled (never rejected): its error, or null. */
    const writes: Promise<unknown>[] = [];
    let settled = false;
    let received = 0;

    let discarded: Promise<void> | undefined;
    const discard = () =>
      (discarded ??= (async () => {
        // Every write has closed its file first: none is created after its deletion.
        await Promise.all(writes);
        await Promise.all(photos.map((photo) => fs.rm(photo.path, { force: true }).catch(ignoreError)));
        if (typeof disk === "object") disk.release();
      })());

    const stopWatching = () => {
      req.off("data", onData);
      req.off("close", onClose);
    };

    const fail = (reason: PhotoPostFailure) => {
      if (settled) return;
      settled = true;
      stopWatching();
      req.unpipe(parser);
      // The rest is thrown away until the answer closes the connection: with nothing left unread then,
      // the close is a FIN the visitor's browser reads the answer before, not a reset that loses it.
      req.resume();
      // Ends the part being read with an error, which its listener takes.
      parser.destroy();
      void discard().then(() => reject(new PhotoPostError(reason)));
    };

    const onData = (chunk: Buffer) => {
      received += chunk.length;
      if (received > options.limits.bodyBytes) fail("too-large");
    };
    // Closed before its end was read: the rest will never come, whether or not it had all arrived.
    const onClose = () => {
      if (!req.readableEnded) fail("left");
    };

    parser.on("field", (name, value, info) => {
      textBytes += name.length + value.length;
      if (info.nameTruncated || info.valueTruncated || textBytes > options.limits.textBytes) tooMuchText = true;
      else fields.push([name, value]);
    });

    parser.on("file", (name, stream, info) => {
      // First, whatever the part: a post that ends mid-part destroys it with an error.
      stream.on("error", ignoreError);
      // An empty file input still sends a part, with no file name and no bytes.
      if (settled || name !== ENQUIRY_PHOTO_FIELD || !info.filename) {
        stream.resume();
        return;
      }
      photoParts += 1;
      disk ??= options.diskForPhotos?.(fields, received);
      noRoom = disk === "busy";
      if (disk === "busy" || disk === "unwanted") {
        stream.resume();
        return;
      }
      const photo: SavedPhoto = {
        fileName: info.filename,
        declaredType: info.mimeType,
        path: path.join(options.dir, `${randomUUID()}.upload`),
        tooLarge: false,
      };
      photos.push(photo);
      stream.on("limit", () => (photo.tooLarge = true));
      const file = createWriteStream(photo.path, { mode: 0o600, flags: "wx" });
      // A failed pipeline settles at the first error, perhaps before the file is even open: its deletion
      // waits for the file's own 'close' (emitted once the descriptor is closed, however the write ended).
      const fileClosed = new Promise<void>((resolve) => file.once("close", () => resolve()));
      writes.push(
        pipeline(stream, file)
          .then(
            () => null,
            (error: unknown) => error,
          )
          .then(async (outcome) => {
            await fileClosed;
            return outcome;
          }),
      );
    });
    parser.on("filesLimit", () => (tooManyParts = true));
    parser.on("partsLimit", () => (tooManyParts = true));
    parser.on("fieldsLimit", () => (tooMuchText = true));
    parser.on("error", () => fail("unreadable"));
    // The whole body is read (or skipped); the files are written once their writes settle.
    parser.on("close", () => {
      if (settled) return;
      settled = true;
      stopWatching();
      void Promise.all(writes).then(async (errors) => {
        const failed = errors.find((error) => error !== null);
        if (failed) {
          // Not the visitor's doing (a full disk, say): the caller answers 500.
          await discard();
          reject(failed instanceof Error ? failed : new Error(String(failed)));
          return;
        }
        resolve({ fields, photos, photoParts, tooManyParts, tooMuchText, noRoom, discard });
      });
    });

    req.on("data", onData);
    req.once("close", onClose);
    // Not pipeline(): that would destroy the request, and an answer would never reach the visitor.
    req.pipe(parser);
  });
}
