import http from "node:http";
import type { AddressInfo } from "node:net";
import { createApp } from "../../server/app";
import { fakeReactRouterBuild, type FakePage } from "./fake-react-router-build";

/**
 * The Express app over a test context's services, listening on a loopback port, with a stand-in
 * React Router build whose page the test writes. `close` drops every open connection first.
 */
export async function listenWithFakeBuild(services: Parameters<typeof createApp>[0], page: FakePage) {
  const server = http.createServer(
    createApp(services, { reactRouter: { build: fakeReactRouterBuild(page), mode: "production" } }),
  );
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  return {
    port: (server.address() as AddressInfo).port,
    async close() {
      server.closeAllConnections();
      await new Promise((resolve) => server.close(resolve));
    },
  };
}
