import http from "node:http";
import type { AddressInfo, Socket } from "node:net";
import { createRequestListener } from "../../server/app";
import { fakeReactRouterBuild, type FakePage } from "./fake-react-router-build";

/**
 * The server's request listener (the bounds of unfinished requests, then the Express app) over a
 * test context's services, listening on a loopback port, with a stand-in React Router build whose
 * page the test writes. `received()` is what the server has read from every connection so far (to
 * wait for it before moving a clock on); `close` drops every open connection first.
 */
export async function listenWithFakeBuild(services: Parameters<typeof createRequestListener>[0], page: FakePage) {
  const server = http.createServer(
    createRequestListener(services, { reactRouter: { build: fakeReactRouterBuild(page), mode: "production" } }),
  );
  const sockets = new Set<Socket>();
  server.on("connection", (socket) => sockets.add(socket));
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  return {
    port: (server.address() as AddressInfo).port,
    received: () => [...sockets].reduce((sum, socket) => sum + socket.bytesRead, 0),
    async close() {
      server.closeAllConnections();
      await new Promise((resolve) => server.close(resolve));
    },
  };
}
