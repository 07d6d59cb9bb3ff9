import { randomBytes } from "node:crypto";
import fs from "node:fs/promises";
import http from "node:http";
import path from "node:path";
import type { AppLoadContext } from "react-router";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { createManualClock, type ManualClock } from "~/lib/clock";
import { CONCURRENT_PHOTO_POSTS } from "../../server/middleware/contact-multipart";
import { makeImage } from "../fixtures/images";
import { listenWithFakeBuild } from "../support/app-server";
import { createTestContext, type TestContext } from "./helpers";

/**
 * The no-JS form's slots for posts with photos on disk (CONCURRENT_PHOTO_POSTS per process): a post
 * takes one only when its photo part starts, and one that then sends nothing for 30 s (by the
 * injected clock) is answered 408 and gives its slot back. Posts without photos keep Node's own
 * timeouts, and nothing is limited per address.
 */

let ctx: TestContext;
let clock: ManualClock;
let closeServer: () => Promise<void>;
let port: number;
const seen: AppLoadContext["contactPhotos"][] = [];
const open: http.ClientRequest[] = [];

beforeEach(async () => {
  clock = createManualClock("2026-05-04T08:00:00.000Z");
  ctx = await createTestContext({}, { clock });
  seen.length = 0;
  ({ port, close: closeServer } = await listenWithFakeBuild(ctx.services, {
    action: ({ context }) => {
      seen.push(context.contactPhotos);
      return { received: true };
    },
  }));
});
afterEach(async () => {
  for (const req of open.splice(0)) req.destroy();
  await closeServer();
  await ctx.close();
});

const BOUNDARY = `----slots${randomBytes(6).toString("hex")}`;
const TEXT = [
  ["name", "Aroha Smith"],
  ["email", "aroha@example.co.nz"],
  ["message", "A quote for a basalt retaining wall, photos attached."],
] as const;

function textParts(): Buffer {
  return Buffer.from(
    TEXT.map(
      ([name, value]) => `--${BOUNDARY}\r\nContent-Disposition: form-data; name="${name}"\r\n\r\n${value}\r\n`,
    ).join(""),
  );
}
function photoPart(data: Buffer): Buffer {
  return Buffer.concat([
    Buffer.from(
      `--${BOUNDARY}\r\nContent-Disposition: form-data; name="photos"; filename="wall.jpg"\r\nContent-Type: image/jpeg\r\n\r\n`,
    ),
    data,
    Buffer.from("\r\n"),
  ]);
}
const CLOSING = Buffer.from(`--${BOUNDARY}--\r\n`);

type Answer = { status: number; text: string; connection: string | undefined };

/** Posts `body` to /contact (all 20 from one address), sending only its first `sent` bytes for now. */
function post(body: Buffer, sent = body.length) {
  let answer: Answer | null = null;
  const req = http.request(
    {
      host: "127.0.0.1",
      port,
      method: "POST",
      path: "/contact",
      headers: { "Content-Type": `multipart/form-data; boundary=${BOUNDARY}`, "Content-Length": String(body.length) },
    },
    (res) => {
      let text = "";
      res.setEncoding("utf8");
      res.on("data", (chunk: string) => (text += chunk));
      res.on("end", () => (answer = { status: res.statusCode ?? 0, text, connection: res.headers.connection }));
    },
  );
  req.on("error", () => {});
  open.push(req);
  if (sent >= body.length) req.end(body);
  else req.write(body.subarray(0, sent));
  return { answer: () => answer, finish: () => req.end(body.subarray(sent)) };
}

const tempFiles = async () =>
  (await fs.readdir(path.join(ctx.dataDir, "tmp", "enquiry-photos")).catch(() => [] as string[])).length;

/** Lets the server read what was sent (real time, never a timing assertion). */
const settle = () => new Promise((resolve) => setTimeout(resolve, 300));

describe("slots for posts with photos", () => {
  it("are taken when a photo part starts: four slow posts still on their text keep no one's photos out", async () => {
    const jpeg = await makeImage("jpeg", { width: 320, height: 240 });
    const body = Buffer.concat([textParts(), photoPart(jpeg), CLOSING]);
    // Four posts stopped inside their text, before any photo part.
    const slow = Array.from({ length: CONCURRENT_PHOTO_POSTS }, () => post(body, textParts().length - 10));
    await settle();
    const fifth = post(body);
    await expect.poll(() => fifth.answer()?.status, { timeout: 20_000 }).toBe(200);
    expect(seen).toEqual([{ status: "accepted", tokens: [expect.any(String)] }]);

    // Without a slot they keep Node's own timeouts: a minute of silence by the clock is not answered 408.
    clock.advance(60_000);
    await settle();
    await settle();
    expect(slow.map((p) => p.answer())).toEqual([null, null, null, null]);
    for (const p of slow) p.finish();
    await expect.poll(() => slow.map((p) => p.answer()?.status), { timeout: 20_000 }).toEqual([200, 200, 200, 200]);
    expect(await tempFiles()).toBe(0);
  });

  it("a post holding one that sends nothing for 30 s is answered 408 and gives it back", async () => {
    const jpeg = await makeImage("jpeg", { width: 320, height: 240 });
    const big = Buffer.concat([jpeg, randomBytes(512 * 1024)]);
    const body = Buffer.concat([textParts(), photoPart(big), CLOSING]);
    // Four posts stopped inside their photo: every slot is held.
    const stalled = Array.from({ length: CONCURRENT_PHOTO_POSTS }, () => post(body, body.length - 64 * 1024));
    await expect.poll(tempFiles, { timeout: 20_000 }).toBe(CONCURRENT_PHOTO_POSTS);
    const turnedAway = post(body);
    await expect.poll(() => turnedAway.answer()?.status, { timeout: 20_000 }).toBe(200);
    expect(seen).toEqual([
      {
        status: "refused",
        httpStatus: 503,
        messages: [expect.stringContaining("try again in a minute")],
        retryAfterSeconds: 60,
      },
    ]);

    clock.advance(29_000);
    await settle();
    await settle();
    expect(stalled.map((p) => p.answer())).toEqual([null, null, null, null]);

    clock.advance(1_000);
    await expect.poll(() => stalled.map((p) => p.answer()?.status), { timeout: 5_000 }).toEqual([408, 408, 408, 408]);
    expect(stalled[0]!.answer()!.text).toBe("The form stopped arriving. Please send it again.");
    // The rest of a stalled post is not read: its connection is closed.
    expect(stalled.map((p) => p.answer()!.connection)).toEqual(["close", "close", "close", "close"]);
    await expect.poll(tempFiles, { timeout: 5_000 }).toBe(0);

    // The slots are free again.
    const next = post(body);
    await expect.poll(() => next.answer()?.status, { timeout: 20_000 }).toBe(200);
    expect(seen.at(-1)).toEqual({ status: "accepted", tokens: [expect.any(String)] });
  });
});
