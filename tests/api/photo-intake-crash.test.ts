import net from "node:net";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { makeImage } from "../fixtures/images";
import { serverEnds } from "../support/disconnect-probes";
import { isRunning } from "../support/process-memory";
import { until } from "../support/until";
import type { TestServer } from "../support/test-server";
import { startProductionServerOnBackend } from "./production-server-helpers";

/**
 * The reported crash, exactly as reported, against the production server as a child process: a
 * multipart post whose file part is not named `photos`, declaring 100,000 bytes and cut off after
 * 1,267 of them, ended the process (`Unhandled 'error' event … The upload was cut off` on
 * /api/enquiry-photos, `Unexpected end of file` on /contact). The same process must answer after it.
 * The whole class (every route, every cut) is tests/api/disconnect-fuzzer.test.ts.
 */

let server: TestServer;
// A server of its own per case: one crash must not hide the other.
beforeEach(async () => {
  server = await startProductionServerOnBackend();
}, 60_000);
afterEach(async () => {
  await server?.stop();
});

const BOUNDARY = "----reportedCrash7MA4YWxkTrZu0gW";

async function reportedBody(): Promise<Buffer> {
  const photo = await makeImage("jpeg", { width: 640, height: 480 });
  return Buffer.concat([
    Buffer.from(
      `--${BOUNDARY}\r\nContent-Disposition: form-data; name="picture"; filename="wall.jpg"\r\nContent-Type: image/jpeg\r\n\r\n`,
    ),
    photo,
    Buffer.from(`\r\n--${BOUNDARY}--\r\n`),
  ]);
}

/**
 * Sends the head and the first `sent` bytes of `body` (declared as 100,000), waits until the server
 * has read them all, closes the connection, and waits until the server has closed its end: whatever
 * the cut did to the process has happened by then.
 */
async function cutOffPost(target: string, body: Buffer, sent: number): Promise<void> {
  const socket = net.connect(server.port, "127.0.0.1");
  await new Promise<void>((resolve, reject) => socket.once("connect", resolve).once("error", reject));
  socket.on("error", () => {});
  const head =
    `POST ${target} HTTP/1.1\r\nHost: 127.0.0.1:${server.port}\r\nContent-Type: multipart/form-data; boundary=${BOUNDARY}\r\n` +
    `Content-Length: 100000\r\nX-Forwarded-For: 203.0.113.25\r\n\r\n`;
  await new Promise<void>((resolve) =>
    socket.write(Buffer.concat([Buffer.from(head), body.subarray(0, sent)]), () => resolve()),
  );
  const ours = new Set([socket.localPort!]);
  await until(async () => {
    const end = await serverEnds(server.pid, server.port, ours);
    return end.open === 1 && end.unreadBytes === 0;
  });
  socket.destroy();
  await until(async () => !isRunning(server.pid) || (await serverEnds(server.pid, server.port, ours)).open === 0);
}

/** The same process still serves: not exited, and /healthz answers 200. */
async function expectStillServing() {
  expect(isRunning(server.pid), `the server exited:\n${server.output().slice(-2000)}`).toBe(true);
  const health = await fetch(`${server.url}/healthz`);
  expect(health.status).toBe(200);
  expect(isRunning(server.pid)).toBe(true);
}

describe("a photo post cut off after 1,267 of its 100,000 declared bytes, with its file part not named photos", () => {
  it("to /api/enquiry-photos leaves the same process serving", async () => {
    const body = await reportedBody();
    expect(body.length).toBeGreaterThan(1267);
    await cutOffPost("/api/enquiry-photos", body, 1267);
    await expectStillServing();
  });

  it("to /contact (the no-JS form) leaves the same process serving", async () => {
    await cutOffPost("/contact", await reportedBody(), 1267);
    await expectStillServing();
  });
});
