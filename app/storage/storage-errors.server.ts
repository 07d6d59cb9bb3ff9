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
