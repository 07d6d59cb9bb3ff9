// @desktop-only: server behaviour, the same at any screen size
import { expect, test } from "@playwright/test";
import { PRODUCTION_MALLOC_ENV } from "../../scripts/lib/production-server";
import { pngBomb, truncatedJpeg } from "../fixtures/image-bombs";
import { makeImage, makeNoisyJpeg } from "../fixtures/images";
import { registerOverHttp, signInOverHttp, uploadOverHttp } from "../support/admin-api-client";
import { childPids, commandLine, cpuTicks, isRunning, mapsLibrary, peakRssMB } from "../support/process-memory";
import { startTestServer, type TestServer } from "../support/test-server";

// The image worker on the production build, started on its own as in production (with
// `npm run serve`'s malloc settings), measured from outside through /proc. Desktop project
// only, like operations.spec.ts: nothing here depends on the screen.

/** The web process's ceiling while it registers image bombs. */
const WEB_PEAK_RSS_LIMIT_MB = 250;

/** The server's one child: the image worker (there is none before the first image). */
async function workerPid(server: TestServer): Promise<number> {
  const children = await childPids(server.pid);
  expect(children).toHaveLength(1);
  expect(await commandLine(children[0]!)).toContain("build/server/image-worker.js");
  return children[0]!;
}

test.describe("image processing in production", () => {
  let server: TestServer;
  test.beforeEach(async () => {
    server = await startTestServer({ env: { ...PRODUCTION_MALLOC_ENV } });
  });
  test.afterEach(async () => {
    await server.stop();
  });

  test("image bombs get 422 from a separate worker while the web process stays under 250 MB", async () => {
    const cookie = await signInOverHttp(server.url);
    const photo = await registerOverHttp(
      server.url,
      cookie,
      await uploadOverHttp(server.url, cookie, await makeImage("jpeg", { width: 1600, height: 1200 })),
    );
    expect(photo.status).toBe(201);
    const worker = await workerPid(server);

    const bombs: [Buffer, RegExp][] = [
      [pngBomb(2400, 110_000), /^The image is too tall for the gallery \(46:1; at most 20:1\)/],
      [pngBomb(20_000, 20_000), /^The image is too large \(400 megapixels; PNG images can have at most 40\)/],
      [await truncatedJpeg(), /^The image could not be read\. Please try a different file\.$/],
    ];
    for (const [bomb, message] of bombs) {
      const refused = await registerOverHttp(server.url, cookie, await uploadOverHttp(server.url, cookie, bomb));
      expect(refused.status).toBe(422);
      expect(refused.body.message).toMatch(message);
    }

    // Still the same worker, and it still works.
    const after = await registerOverHttp(
      server.url,
      cookie,
      await uploadOverHttp(server.url, cookie, await makeImage("png", { width: 800, height: 600 })),
    );
    expect(after.status).toBe(201);
    expect(await workerPid(server)).toBe(worker);

    // The web process never loaded libvips, and its peak stayed low.
    expect(await mapsLibrary(server.pid, "libvips")).toBe(false);
    expect(await mapsLibrary(worker, "libvips")).toBe(true);
    const webPeak = await peakRssMB(server.pid);
    expect(webPeak, `web process peak RSS ${webPeak.toFixed(0)} MB`).toBeLessThan(WEB_PEAK_RSS_LIMIT_MB);
  });

  test("visitors' photos sent all at once, bombs among them, while the owner adds a photo: the web process stays under 250 MB", async () => {
    const cookie = await signInOverHttp(server.url);
    const sendPhoto = async (file: Buffer, name: string) => {
      const form = new FormData();
      form.append("photos", new Blob([new Uint8Array(file)], { type: "image/jpeg" }), name);
      const response = await fetch(`${server.url}/api/enquiry-photos`, { method: "POST", body: form });
      return { status: response.status, body: (await response.json()) as { token?: string; message?: string } };
    };
    // Five 12-megapixel camera photos (about 11 MB each), a PNG bomb and a truncated photo, at once.
    const noisy = await makeNoisyJpeg(4000, 3000);
    const [sent, ownerPhoto] = await Promise.all([
      Promise.all([
        ...[1, 2, 3, 4, 5].map((n) => sendPhoto(noisy, `wall-${n}.jpg`)),
        sendPhoto(pngBomb(20_000, 20_000), "bomb.png"),
        sendPhoto(await truncatedJpeg(), "half.jpg"),
      ]),
      registerOverHttp(
        server.url,
        cookie,
        await uploadOverHttp(server.url, cookie, await makeImage("jpeg", { width: 1600, height: 1200 })),
      ),
    ]);
    for (const photo of sent.slice(0, 5)) {
      expect(photo.status).toBe(201);
      expect(photo.body.token).toEqual(expect.any(String));
    }
    expect(sent[5]).toEqual({ status: 413, body: { message: "Photo bomb.png is too large to process." } });
    expect(sent[6]).toEqual({ status: 400, body: { message: "Photo half.jpg could not be read as an image." } });
    expect(ownerPhoto.status).toBe(201);

    expect(await mapsLibrary(server.pid, "libvips")).toBe(false);
    const webPeak = await peakRssMB(server.pid);

    expect(webPeak, `web process peak RSS ${webPeak.toFixed(0)} MB`).toBeLessThan(WEB_PEAK_RSS_LIMIT_MB);
  });

  test("a worker killed mid-job: that upload gets 422, the next one works on a new worker", async () => {
    const cookie = await signInOverHttp(server.url);
    // Warm up, so the worker exists and sits idle before the photo arrives.
    expect(
      (await registerOverHttp(server.url, cookie, await uploadOverHttp(server.url, cookie, await makeImage("jpeg"))))
        .status,
    ).toBe(201);
    const worker = await workerPid(server);

    const noisy = await makeNoisyJpeg(2400, 1800);
    const url = await uploadOverHttp(server.url, cookie, noisy);
    const idleTicks = await cpuTicks(worker);
    const pending = registerOverHttp(server.url, cookie, url, { caption: "never stored" });
    // Busy on the photo: a quarter of a second of CPU beyond what it had used while idle.
    await expect
      .poll(async () => (await cpuTicks(worker)) - idleTicks, { intervals: [10], timeout: 20_000 })
      .toBeGreaterThan(25);
    process.kill(worker, "SIGKILL");

    const crashed = await pending;
    expect(crashed).toEqual({
      status: 422,
      body: { message: "The image could not be read. Please try a different file." },
    });
    expect(isRunning(worker)).toBe(false);

    const next = await registerOverHttp(
      server.url,
      cookie,
      await uploadOverHttp(server.url, cookie, await makeImage("webp", { width: 700, height: 500 })),
    );
    expect(next.status).toBe(201);
    const replacement = await workerPid(server);
    expect(replacement).not.toBe(worker);
    expect(server.output()).toContain("the image worker exited");

    const gallery = (await (await fetch(`${server.url}/api/galleries/traditional`)).json()) as { caption: string }[];
    expect(gallery.map((image) => image.caption)).toEqual(["", ""]);
  });

  test("the worker ends with the server: at a graceful stop, and when the server itself is killed", async () => {
    const cookie = await signInOverHttp(server.url);
    expect(
      (await registerOverHttp(server.url, cookie, await uploadOverHttp(server.url, cookie, await makeImage("jpeg"))))
        .status,
    ).toBe(201);
    const worker = await workerPid(server);
    server.signal("SIGTERM");
    expect(await server.exited).toBe(0);
    expect(isRunning(worker)).toBe(false);

    const other = await startTestServer({ env: { ...PRODUCTION_MALLOC_ENV } });
    try {
      const otherCookie = await signInOverHttp(other.url);
      expect(
        (
          await registerOverHttp(
            other.url,
            otherCookie,
            await uploadOverHttp(other.url, otherCookie, await makeImage("png")),
          )
        ).status,
      ).toBe(201);
      const orphan = await workerPid(other);
      other.signal("SIGKILL");
      await other.exited;
      // Its channel to the server closed: the worker leaves by itself.
      await expect.poll(() => isRunning(orphan)).toBe(false);
    } finally {
      await other.stop();
    }
  });
});
