/**
 * A plain HTTP/1.1 GET that reports the bytes on the wire. fetch() decodes
 * compressed bodies and hides their size, so the benchmarks use this instead.
 */
import http from "node:http";
import zlib from "node:zlib";

export type RawResponse = {
  status: number;
  headers: http.IncomingHttpHeaders;
  /** Body bytes as sent (compressed, if the server compressed them). */
  wireBytes: number;
  /** Response head (status line and headers) bytes, approximately as sent. */
  headerBytes: number;
  /** The body, decoded if it was br/gzip/deflate. */
  body: Buffer;
};

export function rawGet(url: string, headers: Record<string, string> = {}): Promise<RawResponse> {
  return new Promise((resolve, reject) => {
    // agent: false → "Connection: close" and no other headers than the ones given (plus Host).
    const request = http.get(url, { headers, agent: false }, (response) => {
      const chunks: Buffer[] = [];
      response.on("data", (chunk: Buffer) => chunks.push(chunk));
      response.on("error", reject);
      response.on("end", () => {
        const wire = Buffer.concat(chunks);
        const encoding = String(response.headers["content-encoding"] ?? "");
        let body = wire;
        if (encoding === "br") body = zlib.brotliDecompressSync(wire);
        else if (encoding === "gzip") body = zlib.gunzipSync(wire);
        else if (encoding === "deflate") body = zlib.inflateSync(wire);
        // "HTTP/1.1 200 OK\r\n" + "name: value\r\n"… + "\r\n"
        let headerBytes = `HTTP/1.1 ${response.statusCode} ${response.statusMessage}\r\n\r\n`.length;
        for (let i = 0; i < response.rawHeaders.length; i += 2) {
          headerBytes += `${response.rawHeaders[i]}: ${response.rawHeaders[i + 1]}\r\n`.length;
        }
        resolve({
          status: response.statusCode ?? 0,
          headers: response.headers,
          wireBytes: wire.length,
          headerBytes,
          body,
        });
      });
    });
    request.on("error", reject);
  });
}
