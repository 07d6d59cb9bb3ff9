import http from "node:http";
import type { AddressInfo } from "node:net";

/**
 * A store that refuses writes, for the off-site tests: a front before an S3
 * endpoint that passes everything on, unchanged, except that while `refusing`
 * it answers every PUT, POST and DELETE with S3's 403 AccessDenied (a key that
 * lost its write permission, a bucket over its cap).
 */
export type RefusingFront = { endpoint: string; refusing: boolean; refused: number; stop(): Promise<void> };

export async function startRefusingFront(upstream: string): Promise<RefusingFront> {
  const target = new URL(upstream);
  const server = http.createServer((req, res) => {
    if (front.refusing && req.method !== "GET" && req.method !== "HEAD") {
      front.refused += 1;
      req.resume();
      res.writeHead(403, { "Content-Type": "application/xml" });
      res.end(
        '<?xml version="1.0" encoding="UTF-8"?><Error><Code>AccessDenied</Code><Message>Access Denied</Message></Error>',
      );
      return;
    }
    // The Host header stays as signed: the signature is checked behind this front as it was made.
    const forward = http.request(
      { host: target.hostname, port: target.port, method: req.method, path: req.url, headers: req.headers },
      (answer) => {
        res.writeHead(answer.statusCode!, answer.headers);
        answer.pipe(res);
      },
    );
    forward.on("error", () => res.destroy());
    req.pipe(forward);
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const front: RefusingFront = {
    endpoint: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
    refusing: false,
    refused: 0,
    stop: () => new Promise((resolve) => server.close(() => resolve())),
  };
  return front;
}
