import type { Readable } from "node:stream";

/**
 * Object storage behind one small interface: local disk
 * (local-storage.server.ts) or an S3-compatible bucket (s3-storage.server.ts),
 * chosen by openObjectStorage(). Routes and the image pipeline never know which.
 */
export interface ObjectStorage {
  /**
   * How an upload's bytes arrive: "via-server" PUTs to this server's
   * /api/uploads/:id, which streams them here and checks them on the way;
   * "direct" PUTs go straight to the bucket, and registration checks them.
   */
  readonly uploadMode: "via-server" | "direct";
  /** Origins the browser must be allowed to connect to (CSP connect-src) for uploads. */
  readonly uploadOrigins: readonly string[];
  /**
   * Streams body into the object at key. Rejects with ObjectTooLargeError (and
   * leaves nothing behind, not even a temp file) once more than maxBytes
   * arrive. Writes to a temp file then renames atomically. Returns bytes
   * written and the first 32 bytes (for magic-number sniffing).
   * On any failure body is destroyed (stream.pipeline), so pass an HTTP
   * request through a PassThrough if you still want to answer on it, and
   * forward the request's abort to that PassThrough or the write never ends.
   */
  write(
    key: string,
    body: NodeJS.ReadableStream | Readable,
    options?: { maxBytes?: number },
  ): Promise<{ bytes: number; head: Buffer }>;
  /**
   * Copies a local file of any size into the object at key (a backup archive:
   * S3 streams it in one PutObject of known length, up to S3's 5 GB limit).
   * An abort stops the copy; a copy that fails leaves no object at key.
   */
  writeFile(key: string, file: string, options?: { signal?: AbortSignal }): Promise<{ bytes: number }>;
  /** Every object whose key starts with `prefix` (e.g. "backups/"), sorted by key. */
  list(prefix: string): Promise<{ key: string; bytes: number }[]>;
  /** Returns a readable stream, or null when missing. Consume or destroy the stream: it holds a file handle. */
  read(key: string): Promise<{ stream: Readable; bytes: number } | null>;
  exists(key: string): Promise<boolean>;
  /** The object's size (S3: a HEAD request), or null when missing. */
  stat(key: string): Promise<{ bytes: number } | null>;
  /** At most the first `length` bytes (S3: a ranged GET), or null when missing. */
  readHead(key: string, length: number): Promise<Buffer | null>;
  /**
   * Moves an object to another key, replacing what is there. Rejects when
   * `from` is missing. `contentType`: what the bucket serves it as from now
   * on (S3; the disk keeps no type), instead of whatever the uploader claimed.
   */
  move(from: string, to: string, options?: { contentType?: string }): Promise<void>;
  /** Idempotent: deleting a missing key is fine. */
  delete(key: string): Promise<void>;
  /**
   * A URL a client can PUT one object to, and the key it lands at. Local:
   * the same-origin relative URL `/api/uploads/<objectId>?expires=<unixMs>&signature=<hex hmac-sha256>`
   * writing `originals/<objectId>`. S3: a presigned PUT for `incoming/<objectId>`.
   * With `declared`, the URL also signs the file's size and type: a PUT of
   * another Content-Length or Content-Type is refused (local: `&size=&type=`
   * in the URL and its signature; S3: both headers signed).
   */
  createUploadTarget(
    objectId: string,
    expiresAt: Date,
    declared?: DeclaredUpload,
  ): Promise<{ uploadURL: string; key: string }>;
  /**
   * The object id in an upload URL this storage issued, or null (another host,
   * another path, junk). `ownOrigins`: the origins this site is reached at.
   */
  objectIdFromUploadUrl(url: URL, ownOrigins: readonly string[]): string | null;
  /**
   * Verifies a signed upload URL's object id and query parameters in constant
   * time. Only "via-server" storage issues such URLs. When "ok", a `size`
   * and `type` in `params` are the signed declaration the upload must match.
   */
  verifyUploadTarget(objectId: string, params: UploadUrlParams, now?: Date): "ok" | "expired" | "invalid";
  /**
   * The address anyone could fetch the object at without credentials if the
   * store let them (S3: the bucket's own URL for the key), or null when
   * objects have no address of their own (the disk: /media serves variants only).
   * The start-up privacy check GETs it unsigned (bucket-privacy.server.ts).
   */
  anonymousUrl(key: string): string | null;
  /**
   * The start-up check: writes, reads back and deletes a probe object (S3:
   * and checks the bucket's CORS rule lets `siteOrigin` PUT; null skips that for the scripts,
   * which take no uploads). Rejects with
   * StorageCheckError, whose message says what to fix. It only ever advises
   * a CORS rule for SITE_URL's origin: with `siteUrlGiven: false` (SITE_URL
   * unset, so `siteOrigin` is a stand-in) it asks for SITE_URL instead.
   */
  check(options: { siteOrigin: string | null; siteUrlGiven?: boolean }): Promise<void>;
  /** Uploads sent in parts, which survive a dropped connection (decision 0062). */
  readonly parts: PartUploads;
  /** Releases connections. */
  close(): Promise<void>;
}

/**
 * One object sent in numbered parts, over as many requests as the connection
 * needs, so a dropped connection costs at most the part in flight. S3: a
 * multipart upload; the browser PUTs each part to a presigned URL and keeps
 * the ETag the bucket answers (s3rver has no ListParts to ask later). Disk:
 * each part comes through this server (`write`) and is kept as the object
 * `<key>.part-<n>` until `complete` puts them together at `key`.
 */
export interface PartUploads {
  /** The size of every part but the last (S3: 5 MiB, its minimum; disk: 1 MiB). */
  readonly partBytes: number;
  /**
   * Whether browsers can send parts here, as start-up found it: the disk
   * always; a bucket only if its CORS rule lets the page read the ETag of a
   * part (`ExposeHeaders: ["ETag"]`). `reason` says why not, in the owner's words.
   */
  check(options: { siteOrigin: string }): Promise<PartUploadSupport>;
  /** Begins an upload to `key` (S3: CreateMultipartUpload, stored as `contentType`); its id, or null where none is needed. */
  start(key: string, options: { contentType: string }): Promise<{ multipartId: string | null }>;
  /**
   * Where the browser PUTs one part. S3: a presigned UploadPart URL for
   * exactly `bytes` bytes (Content-Length is signed). Disk: null, the part
   * goes to this server's own part route, which calls `write`.
   */
  partUrl(
    key: string,
    multipartId: string | null,
    part: { partNumber: number; bytes: number },
    expiresAt: Date,
  ): Promise<string | null>;
  /**
   * The address `PUT /api/admin/gallery-images` takes for the upload put
   * together at `incoming/<objectId>`: its upload URL without a signature
   * (S3: the bucket's address of the key; disk: `/api/uploads/<objectId>`).
   */
  imageUrl(objectId: string): string;
  /**
   * Disk: keeps one part, which must be exactly `bytes` long (more: ObjectTooLargeError; fewer:
   * IncompletePartError), replacing any earlier copy atomically; nothing of a part cut off is
   * kept. Its ETag (quoted MD5, as S3's) and its first bytes. S3: never called.
   */
  write(
    key: string,
    partNumber: number,
    body: NodeJS.ReadableStream,
    bytes: number,
  ): Promise<{ etag: string; head: Buffer }>;
  /**
   * Puts the listed parts together, in order, into the object at `key`.
   * Rejects with InvalidPartsError when one is missing or its ETag is not the
   * one given; the parts are then kept, so the upload can be finished later.
   */
  complete(key: string, multipartId: string | null, parts: readonly CompletedPart[]): Promise<void>;
  /**
   * Forgets an unfinished upload's parts. Resolves false where the store
   * cannot (s3rver has no AbortMultipartUpload: the bucket's lifecycle rule
   * removes them after a day).
   */
  abort(key: string, multipartId: string | null, partCount: number): Promise<boolean>;
}

export type CompletedPart = { partNumber: number; etag: string };

export type PartUploadSupport = { available: true } | { available: false; reason: string };

/** What the uploader says it will PUT: signed into the upload URL (POST /api/objects/upload's body). */
export type DeclaredUpload = { bytes: number; contentType: string };

/** The query parameters of a local signed upload URL, as received. */
export type UploadUrlParams = { expires: string; signature: string; size?: string; type?: string };
