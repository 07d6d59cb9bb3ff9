/**
 * A network link a test can cut and restore, as a phone's signal drops and
 * comes back: HTTP proxies in front of upstreams (the site, the bucket), all
 * on one link. Cut, every connection through it closes at once, bodies half
 * sent included, and new connections are closed as soon as they open, until
 * the link is restored. It can cut itself once a number of request-body bytes
 * have gone through it (no timer), or hold every body there, the connections
 * open, until released (a barrier: the upload is surely mid-way). Requests
 * that got through are recorded.
 */
import { createServer, request as forward, type ClientRequest, type IncomingMessage } from "node:http";
import type { AddressInfo, Socket } from "node:net";

export type CuttingLink = {
  /** A proxy on this link in front of `upstream` (an http:// origin); its own origin. */
  proxy(upstream: string): Promise<string>;
  /** Cuts the link as soon as `bytes` request-body bytes in all have gone through it. */
  cutAfterBodyBytes(bytes: number): void;
  /** Stops forwarding request bodies once `bytes` in all have gone through; settles then. */
  holdAfterBodyBytes(bytes: number): Promise<void>;
  /** Forwards the held bodies again. */
  releaseHold(): void;
  cut(): void;
  restore(): void;
  readonly isCut: boolean;
  /** Request-body bytes that went through, in all. */
  readonly bodyBytes: number;
  /** Settles when the link is cut (by cutAfterBodyBytes or cut()). */
  readonly cutDone: Promise<void>;
  /** Every request that reached an upstream: method, path with query, and the proxy it came through. */
  readonly requests: { method: string; url: string; proxy: string }[];
  stop(): Promise<void>;
};

export function createCuttingLink(): CuttingLink {
  const sockets = new Set<Socket>();
  const upstreamRequests = new Set<ClientRequest>();
  const servers: ReturnType<typeof createServer>[] = [];
  const requests: CuttingLink["requests"] = [];
  let isCut = false;
  let bodyBytes = 0;
  let cutAt = Number.POSITIVE_INFINITY;
  let holdAt = Number.POSITIVE_INFINITY;
  let markHeld = () => {};
  const held: (() => void)[] = [];
  let markCut!: () => void;
  const cutDone = new Promise<void>((resolve) => (markCut = resolve));

  function cut() {
    isCut = true;
    for (const request of upstreamRequests) request.destroy();
    for (const socket of sockets) socket.destroy();
    markCut();
  }

  async function proxy(upstream: string): Promise<string> {
    const target = new URL(upstream);
    let origin = "";
    const server = createServer((req: IncomingMessage, res) => {
      if (isCut) return void req.socket.destroy();
      requests.push({ method: req.method ?? "", url: req.url ?? "", proxy: origin });
      // The Host header goes on unchanged: a presigned URL signs the host it was made for (this proxy).
      const upstreamRequest = forward(
        { host: target.hostname, port: target.port, method: req.method, path: req.url, headers: req.headers },
        (answer) => {
          res.writeHead(answer.statusCode ?? 502, answer.headers);
          answer.pipe(res);
          answer.on("error", () => res.destroy());
        },
      );
      upstreamRequests.add(upstreamRequest);
      upstreamRequest.on("close", () => upstreamRequests.delete(upstreamRequest));
      upstreamRequest.on("error", () => res.destroy());
      req.on("data", (chunk: Buffer) => {
        bodyBytes += chunk.length;
        if (!isCut && bodyBytes >= cutAt) cut();
        if (bodyBytes >= holdAt) {
          req.unpipe(upstreamRequest);
          req.pause();
          held.push(() => req.pipe(upstreamRequest));
          markHeld();
        }
      });
      req.on("error", () => upstreamRequest.destroy());
      req.pipe(upstreamRequest);
    });
    server.on("connection", (socket: Socket) => {
      if (isCut) return void socket.destroy();
      sockets.add(socket);
      socket.on("close", () => sockets.delete(socket));
    });
    await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
    servers.push(server);
    origin = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
    return origin;
  }

  return {
    proxy,
    cutAfterBodyBytes(bytes) {
      cutAt = bytes;
      if (!isCut && bodyBytes >= cutAt) cut();
    },
    holdAfterBodyBytes(bytes) {
      holdAt = bytes;
      return new Promise<void>((resolve) => (markHeld = resolve));
    },
    releaseHold() {
      holdAt = Number.POSITIVE_INFINITY;
      for (const resume of held.splice(0)) resume();
    },
    cut,
    restore() {
      isCut = false;
      cutAt = Number.POSITIVE_INFINITY;
    },
    get isCut() {
      return isCut;
    },
    get bodyBytes() {
      return bodyBytes;
    },
    cutDone,
    requests,
    async stop() {
      for (const socket of sockets) socket.destroy();
      await Promise.all(servers.map((server) => new Promise<void>((resolve) => server.close(() => resolve()))));
    },
  };
}
