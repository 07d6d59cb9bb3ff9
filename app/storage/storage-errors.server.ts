/** The failures every storage reports the same way, whichever adapter is behind it. */

export class StorageCheckError extends Error {
  override name = "StorageCheckError";
}

export class ObjectTooLargeError extends Error {
  override name = "ObjectTooLargeError";
  constructor(readonly maxBytes?: number) {
    super(maxBytes === undefined ? "Object is too large" : `Object exceeds the limit of ${maxBytes} bytes`);
  }
}

export class InvalidStorageKeyError extends Error {
  override name = "InvalidStorageKeyError";
}

/** A part that ended before its declared size (the connection dropped, or a short body). */
export class IncompletePartError extends Error {
  override name = "IncompletePartError";
}

/** Parts that cannot be put together: one missing, or not the one its ETag names. The message says which. */
export class InvalidPartsError extends Error {
  override name = "InvalidPartsError";
}
