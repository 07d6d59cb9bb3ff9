import { expect, test } from "@playwright/test";
import { makeImage } from "../fixtures/images";
import { TEST_ADMIN, startTestServer } from "../support/test-server";

// Operations: no browser needed, one server per test.
test.describe("operations", () => {
  test("GET /healthz answers 200 after reading the database", async () => {
    const server = await startTestServer();
    try {
      const res = await fetch(`${server.url}/healthz`);
      expect(res.status).toBe(200);
      expect(await res.json()).toEqual({ status: "ok" });
    } finally {
      await server.stop();
    }
  });

  test("on SIGTERM the server stops accepting, finishes requests in flight and exits within 10 s", async () => {
    const server = await startTestServer();
    try {
      const login = await fetch(`${server.url}/api/login`, {
        method: "POST",
        headers: { "Content-Type": "application/json" },
        body: JSON.stringify(TEST_ADMIN),
      });
      const cookie = login.headers.get("set-cookie")!.split(";")[0]!;
      const { uploadURL } = await (await fetch(`${server.url}/api/objects/upload`, { method: "POST", headers: { Cookie: cookie } })).json();

      // A slow upload: half now, the rest after the signal.
      const jpeg = await makeImage("jpeg", { width: 800, height: 600 });
      const file = Buffer.concat([jpeg, Buffer.alloc(512 * 1024)]);
      let step = 0;
      let signalled!: () => void;
      const afterSignal = new Promise<void>((resolve) => (signalled = resolve));
      const body = new ReadableStream({
        async pull(controller) {
          step += 1;
          if (step === 1) controller.enqueue(new Uint8Array(file.subarray(0, file.length / 2)));
          else if (step === 2) {
            await afterSignal;
            await new Promise((r) => setTimeout(r, 700));
            controller.enqueue(new Uint8Array(file.subarray(file.length / 2)));
          } else controller.close();
        },
      });
      const inFlight = fetch(`${server.url}${uploadURL}`, {
        method: "PUT",
        headers: { "Content-Type": "image/jpeg", Cookie: cookie },
        body,
        duplex: "half",
      } as RequestInit);

      await new Promise((r) => setTimeout(r, 300));
      const signalledAt = Date.now();
      server.signal("SIGTERM");
      signalled();
      await new Promise((r) => setTimeout(r, 200));

      // New connections are refused while the upload finishes.
      await expect(fetch(`${server.url}/healthz`)).rejects.toThrow();
      const response = await inFlight;
      expect(response.status).toBe(200);
      expect(await response.json()).toEqual({ message: "Upload complete" });

      const code = await server.exited;
      expect(code).toBe(0);
      expect(Date.now() - signalledAt).toBeLessThan(10_000);
    } finally {
      await server.stop();
    }
  });
});
