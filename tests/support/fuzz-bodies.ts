import { randomBytes } from "node:crypto";

/**
 * Request bodies for the disconnect fuzzer, each with the positions worth
 * cutting it at (structure: boundaries, part heads, separators), and the cut
 * plan that turns them into 50 or more places to break a connection off.
 */

export type FuzzBody = {
  label: string;
  contentType?: string;
  bytes: Buffer;
  /** The Content-Length sent, when it is not the body's own (a body declared past a limit). */
  declaredLength?: number;
  /** Sent as Transfer-Encoding: chunked (one chunk), with no Content-Length. */
  chunked?: boolean;
  /** Positions in `bytes` where its structure changes. */
  marks: number[];
  /** More positions worth a cut (around a size limit). */
  extraCuts?: number[];
  /** Spread the remaining cuts over only this many first bytes (a body of many MB); a few still go through the rest. */
  denseBytes?: number;
};

type Part = { name: string; value: string | Buffer; fileName?: string; type?: string; rawHead?: string };

export function jsonBody(label: string, value: unknown, options: { contentType?: string } = {}): FuzzBody {
  const text = typeof value === "string" ? value : JSON.stringify(value);
  const marks: number[] = [];
  for (let i = 0; i < text.length; i++) if ('{}[]:,"'.includes(text[i]!)) marks.push(i);
  return {
    label,
    contentType: options.contentType ?? "application/json",
    bytes: Buffer.from(text),
    marks: sample(marks, 30),
  };
}

export function formBody(label: string, pairs: [string, string][]): FuzzBody {
  const text = new URLSearchParams(pairs).toString();
  const marks: number[] = [];
  for (let i = 0; i < text.length; i++) if (text[i] === "=" || text[i] === "&") marks.push(i);
  return {
    label,
    contentType: "application/x-www-form-urlencoded",
    bytes: Buffer.from(text),
    marks: sample(marks, 30),
  };
}

export function multipartBody(
  label: string,
  parts: Part[],
  options: { boundary?: string; declaredLength?: number; chunked?: boolean } = {},
): FuzzBody {
  const boundary = options.boundary ?? `----fuzz${randomBytes(8).toString("hex")}`;
  const chunks: Buffer[] = [];
  const marks: number[] = [];
  let length = 0;
  const push = (chunk: Buffer) => {
    chunks.push(chunk);
    length += chunk.length;
  };
  for (const part of parts) {
    marks.push(length);
    const disposition =
      part.fileName !== undefined
        ? `form-data; name="${part.name}"; filename="${part.fileName}"`
        : `form-data; name="${part.name}"`;
    const head =
      part.rawHead ?? `Content-Disposition: ${disposition}\r\n${part.type ? `Content-Type: ${part.type}\r\n` : ""}`;
    push(Buffer.from(`--${boundary}\r\n${head}\r\n`));
    marks.push(length);
    push(Buffer.isBuffer(part.value) ? part.value : Buffer.from(part.value));
    push(Buffer.from("\r\n"));
  }
  marks.push(length);
  push(Buffer.from(`--${boundary}--\r\n`));
  return {
    label,
    contentType: `multipart/form-data; boundary=${boundary}`,
    bytes: Buffer.concat(chunks, length),
    marks,
    declaredLength: options.declaredLength,
    chunked: options.chunked,
  };
}

export function rawBody(label: string, bytes: Buffer, contentType: string, options: Partial<FuzzBody> = {}): FuzzBody {
  return { label, contentType, bytes, marks: [0, Math.min(bytes.length, 32)], ...options };
}

/** At most `count` of `values`, evenly picked. */
function sample(values: number[], count: number): number[] {
  if (values.length <= count) return values;
  return Array.from({ length: count }, (_, i) => values[Math.floor((i * values.length) / count)]!);
}

export type Request = { bytes: Buffer; headLength: number };

/** The whole request as it goes on the wire: head, then body (chunk-framed when `chunked`). */
export function requestBytes(
  method: string,
  target: string,
  port: number,
  body: FuzzBody | null,
  headers: Record<string, string>,
): Request {
  const lines = [`${method} ${target} HTTP/1.1`, `Host: 127.0.0.1:${port}`];
  for (const [name, value] of Object.entries(headers)) lines.push(`${name}: ${value}`);
  let payload: Buffer = Buffer.alloc(0);
  if (body) {
    if (body.contentType) lines.push(`Content-Type: ${body.contentType}`);
    if (body.chunked) {
      lines.push("Transfer-Encoding: chunked");
      payload = Buffer.concat([
        Buffer.from(`${body.bytes.length.toString(16)}\r\n`),
        body.bytes,
        Buffer.from("\r\n0\r\n\r\n"),
      ]);
    } else {
      lines.push(`Content-Length: ${body.declaredLength ?? body.bytes.length}`);
      payload = body.bytes;
    }
  } else {
    lines.push("Content-Length: 0");
  }
  const head = Buffer.from(`${lines.join("\r\n")}\r\n\r\n`);
  return { bytes: Buffer.concat([head, payload]), headLength: head.length };
}

export const MIN_CUTS = 50;

/**
 * Where to break `request` off: inside its head, at and around each mark of
 * its body, spread through its data, one byte short of the end, and the
 * whole of it (sent, then the connection closed without waiting for the
 * answer). Positions count bytes sent; at least MIN_CUTS distinct ones.
 */
export function cutPlan(request: Request, body: FuzzBody | null): number[] {
  const total = request.bytes.length;
  const start = request.headLength;
  const cuts = new Set<number>([
    1,
    Math.floor(start / 3),
    Math.floor(start / 2),
    start - 3,
    start - 1,
    start,
    total - 1,
    total,
  ]);
  const chunkOffset = body?.chunked ? body.bytes.length.toString(16).length + 2 : 0;
  const at = (position: number) => {
    const cut = start + chunkOffset + position;
    if (cut > start && cut < total) cuts.add(cut);
  };
  for (const mark of body?.marks ?? []) for (const delta of [-1, 0, 1, 3]) at(mark + delta);
  for (const extra of body?.extraCuts ?? []) for (const delta of [-1, 0, 1]) at(extra + delta);
  const bodyLength = total - start;
  if (bodyLength > 0) {
    // A few through the whole body, the rest through its dense part.
    for (let i = 1; i <= 4; i++) at(Math.floor((i * bodyLength) / 5));
    const dense = Math.min(bodyLength, body?.denseBytes ?? bodyLength);
    const step = Math.max(1, Math.floor(dense / (MIN_CUTS + 1)));
    for (let position = step; cuts.size < MIN_CUTS && position < dense; position += step) at(position);
  }
  // A short body: the rest inside the head.
  for (let i = 2; cuts.size < MIN_CUTS && i < start; i += 3) cuts.add(i);
  return [...cuts].filter((cut) => cut >= 1 && cut <= total).sort((a, b) => a - b);
}
