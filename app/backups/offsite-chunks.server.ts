import { createHmac } from "node:crypto";

/**
 * Splits JSON lines into chunks whose boundaries depend only on the lines
 * themselves (decision 0060): a boundary falls after a line whose keyed hash
 * ends in six zero bits, once the chunk holds at least MIN_CHUNK_BYTES. An
 * edited row changes its own chunk, and an added or deleted row at most the
 * chunk around it: every other chunk keeps its bytes, so its name, and is not
 * sent again. The hash is keyed (the store's naming key), so the chunks' sizes
 * say nothing about the rows to whoever reads the store.
 */
export const MIN_CHUNK_BYTES = 16 * 1024;
/** A chunk is cut here whatever its lines (one huge row becomes one chunk of its own). */
export const MAX_CHUNK_BYTES = 1024 * 1024;
/** One line in 64 ends a chunk (past the minimum): about 16 KiB + 64 lines on average. */
const BOUNDARY_MASK = 0x3f;

export type LineChunker = {
  /** Adds one line (without its newline); returns the chunks it completed (zero or one). */
  push(line: string): Buffer[];
  /** The last chunk, if any lines are left. */
  end(): Buffer[];
};

export function createLineChunker(namingKey: Buffer): LineChunker {
  let lines: Buffer[] = [];
  let bytes = 0;
  const take = () => {
    const chunk = Buffer.concat(lines, bytes);
    lines = [];
    bytes = 0;
    return [chunk];
  };
  return {
    push(line) {
      const buffer = Buffer.from(`${line}\n`);
      if (bytes > 0 && bytes + buffer.length > MAX_CHUNK_BYTES) {
        const full = take();
        lines.push(buffer);
        bytes += buffer.length;
        return full;
      }
      lines.push(buffer);
      bytes += buffer.length;
      if (bytes < MIN_CHUNK_BYTES) return [];
      const mark = createHmac("sha256", namingKey).update("chunk-boundary\n").update(buffer).digest();
      return (mark[0]! & BOUNDARY_MASK) === 0 ? take() : [];
    },
    end() {
      return bytes > 0 ? take() : [];
    },
  };
}

/** Every chunk of `lines`, in order. */
export async function chunkAllLines(
  namingKey: Buffer,
  lines: AsyncIterable<string> | Iterable<string>,
): Promise<Buffer[]> {
  const chunker = createLineChunker(namingKey);
  const chunks: Buffer[] = [];
  for await (const line of lines) chunks.push(...chunker.push(line));
  chunks.push(...chunker.end());
  return chunks;
}
