import type { Readable } from "node:stream";

/** Local disk or an S3-compatible bucket (openObjectStorage()): routes and the image pipeline never know which. */
export interface ObjectStorage {
  /** "via-server": PUTs to /api/uploads/:id, checked on the way; "direct": to the bucket, checked at registration. */
  readonly uploadMode: "via-server" | "direct";
  /** Origins the browser must be allowed to connect to (CSP connect-src) for uploads. */
  readonly uploadOrigins: readonly string[];
  /**
   * Past maxBytes: ObjectTooLargeError, nothing left behind. Returns the first bytes for sniffing.
   * A failure destroys body: pass a request you still answer through a PassThrough (and forward its abort).
   */
  write(
    key: string,
    body: NodeJS.ReadableStream | Readable,
    options?: { maxBytes?: number },
  ): Promise<{ bytes: number; head: Buffer }>;
  /** A local file of any size (a backup archive; S3: one PutObject, up to 5 GB); a failed copy leaves nothing. */
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
  /** Rejects when `from` is missing. `contentType` replaces whatever the uploader claimed (S3; the disk keeps none). */
  move(from: string, to: string, options?: { contentType?: string }): Promise<void>;
  /** Idempotent: deleting a missing key is fine. */
  delete(key: string): Promise<void>;
  /**
   * Local: `/api/uploads/<objectId>?expires=&signature=` writing `originals/<objectId>`; S3: a presigned PUT
   * for `incoming/<objectId>`. With `declared`, the size and type are signed too: a PUT of others is refused.
   */
  createUploadTarget(
    objectId: string,
    expiresAt: Date,
    declared?: DeclaredUpload,
  ): Promise<{ uploadURL: string; key: string }>;
  /** The object id in an upload URL this storage issued, or null. `ownOrigins`: this site's origins. */
  objectIdFromUploadUrl(url: URL, ownOrigins: readonly string[]): string | null;
  /** Constant-time ("via-server" only). When "ok", `size` and `type` are the declaration the upload must match. */
  verifyUploadTarget(objectId: string, params: UploadUrlParams, now?: Date): "ok" | "expired" | "invalid";
  /** Where an unsigned GET of the key would go (S3), or null (the disk); the privacy check probes it. */
  anonymousUrl(key: string): string | null;
  /**
   * Writes, reads back and deletes a probe; S3 also checks the CORS rule for `siteOrigin` (null: the scripts).
   * Rejects with StorageCheckError saying what to fix; `siteUrlGiven: false` asks for SITE_URL, not a rule.
   */
  check(options: { siteOrigin: string | null; siteUrlGiven?: boolean }): Promise<void>;
  /** Uploads sent in parts, which survive a dropped connection (decision 0062). */
  readonly parts: PartUploads;
  /** Releases connections. */
  close(): Promise<void>;
}

/**
 * One object in numbered parts: a dropped connection costs at most the part in flight. S3: a multipart upload,
 * the browser keeps each part's ETag (s3rver has no ListParts). Disk: parts come through `write` as `<key>.part-<n>`.
 */
export interface PartUploads {
  /** The size of every part but the last (S3: 5 MiB, its minimum; disk: 1 MiB). */
  readonly partBytes: number;
  /** The disk always; a bucket only if its CORS rule exposes ETag. `reason`: why not, in the owner's words. */
  check(options: { siteOrigin: string }): Promise<PartUploadSupport>;
  /** Begins an upload to `key` (S3: CreateMultipartUpload, stored as `contentType`); its id, or null where none is needed. */
  start(key: string, options: { contentType: string }): Promise<{ multipartId: string | null }>;
  /** S3: a presigned UploadPart URL for exactly `bytes`; disk: null (this server's part route calls `write`). */
  partUrl(
    key: string,
    multipartId: string | null,
    part: { partNumber: number; bytes: number },
    expiresAt: Date,
  ): Promise<string | null>;
  /** The unsigned upload URL `PUT /api/admin/gallery-images` takes for `incoming/<objectId>`. */
  imageUrl(objectId: string): string;
  /** Disk only: exactly `bytes` (else ObjectTooLargeError/IncompletePartError), atomic; ETag is a quoted MD5. */
  write(
    key: string,
    partNumber: number,
    body: NodeJS.ReadableStream,
    bytes: number,
  ): Promise<{ etag: string; head: Buffer }>;
  /** InvalidPartsError when one is missing or its ETag differs; the parts are kept to finish later. */
  complete(key: string, multipartId: string | null, parts: readonly CompletedPart[]): Promise<void>;
  /** False where the store cannot (s3rver: the bucket's lifecycle rule removes them after a day). */
  abort(key: string, multipartId: string | null, partCount: number): Promise<boolean>;
}

export type CompletedPart = { partNumber: number; etag: string };

export type PartUploadSupport = { available: true } | { available: false; reason: string };

/** What the uploader says it will PUT: signed into the upload URL (POST /api/objects/upload's body). */
export type DeclaredUpload = { bytes: number; contentType: string };

/** The query parameters of a local signed upload URL, as received. */
export type UploadUrlParams = { expires: string; signature: string; size?: string; type?: string };
