import type { Readable } from "node:stream";
import { Transform, type TransformCallback } from "node:stream";
import { pipeline } from "node:stream/promises";
import { ObjectTooLargeError } from "./storage-errors.server";

export const HEAD_BYTES = 32;

/** Counts bytes as they pass, keeps the first HEAD_BYTES, and fails past the limit. */
export class CountingTransform extends Transform {
  bytes = 0;
  private headChunks: Buffer[] = [];
  private headLength = 0;

  constructor(private readonly maxBytes: number) {
    super();
  }

  get head(): Buffer {
    return Buffer.concat(this.headChunks, this.headLength);
  }

  override _transform(chunk: unknown, encoding: BufferEncoding, callback: TransformCallback): void {
    const buffer = Buffer.isBuffer(chunk)
      ? chunk
      : typeof chunk === "string"
        ? Buffer.from(chunk, encoding)
        : Buffer.from(chunk as Uint8Array);
    this.bytes += buffer.length;
    if (this.bytes > this.maxBytes) {
      callback(new ObjectTooLargeError(this.maxBytes));
      return;
    }
    if (this.headLength < HEAD_BYTES) {
      const part = buffer.subarray(0, HEAD_BYTES - this.headLength);
      // Copy: the source may reuse its chunk buffers.
      this.headChunks.push(Buffer.from(part));
      this.headLength += part.length;
    }
    callback(null, buffer);
  }
}

/** A whole stream in memory (for stores that need the length first); ObjectTooLargeError past maxBytes. */
export async function collectStream(
  body: NodeJS.ReadableStream | Readable,
  maxBytes = Number.POSITIVE_INFINITY,
): Promise<{ data: Buffer; head: Buffer }> {
  const counter = new CountingTransform(maxBytes);
  const chunks: Buffer[] = [];
  await pipeline(body as Readable, counter, async (source: AsyncIterable<Buffer>) => {
    for await (const chunk of source) chunks.push(chunk);
  });
  return { data: Buffer.concat(chunks, counter.bytes), head: counter.head };
}
