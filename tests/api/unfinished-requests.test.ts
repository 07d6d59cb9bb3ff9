import { randomBytes } from "node:crypto";
import { watch } from "node:fs";
import fs from "node:fs/promises";
import http from "node:http";
import type { Socket } from "node:net";
import path from "node:path";
import type { AppLoadContext } from "react-router";
import { afterEach, describe, expect, it } from "vitest";
import { createManualClock, type ManualClock } from "~/lib/clock";
import { makeImage, makeJpegOfSize } from "../fixtures/images";
import { listenWithFakeBuild } from "../support/app-server";
import { until } from "../support/until";
import { createTestContext, type TestContext } from "./helpers";

/**
 * What visitors' unfinished requests may hold (server/middleware/request-bounds.ts and the disk for
 * photos on their way, server/photo-intake/photo-disk.ts), through the server's own request listener
 * with a stand-in page. Time is a manual clock; the server is waited for by what it has read, never
 * by the passing of time. Behind a proxy (TRUST_PROXY=loopback), X-Forwarded-For names each visitor.
 * The same bounds under a flood of the production server: hold-open-flood.test.ts.
 */

type Answer = { status: number; headers: http.IncomingHttpHeaders; text: string };

let ctx: TestContext | undefined;
let clock: ManualClock;
let server: Awaited<ReturnType<typeof listenWithFakeBuild>>;
const seen: AppLoadContext["contactPhotos"][] = [];
const clients: { req: http.ClientRequest; socket?: Socket }[] = [];

async function start(env: Record<string, string> = {}) {
  clock = createManualClock("2026-05-04T08:00:00.000Z");
  ctx = await createTestContext({ TRUST_PROXY: "loopback", ...env }, { clock });
  seen.length = 0;
  server = await listenWithFakeBuild(ctx.services, {
    action: ({ context }) => {
      seen.push(context.contactPhotos);
      return { received: true };
    },
  });
}

afterEach(async () => {
  for (const { req } of clients.splice(0)) req.destroy();
  await server?.close();
  await ctx?.close();
  ctx = undefined;
});

/**
 * A request from `visitor` whose body is `body`, of which only the first `sent` bytes go now
 * (`send` more, `finish` it). Its answer, if any, is `answer()`.
 */
function post(target: string, visitor: string, body: Buffer, contentType: string, sent = body.length) {
  let answer: Answer | null = null;
  let at = sent;
  const client: (typeof clients)[number] = {
    req: http.request({
      host: "127.0.0.1",
      port: server.port,
      method: "POST",
      path: target,
      agent: false,
      headers: { "Content-Type": contentType, "Content-Length": String(body.length), "X-Forwarded-For": visitor },
    }),
  };
  const { req } = client;
  clients.push(client);
  req.on("socket", (socket) => (client.socket = socket));
  req.on("error", () => {});
  const answered = new Promise<Answer>((resolve) =>
    req.on("response", (res) => {
      let text = "";
      res.setEncoding("utf8");
      res.on("data", (chunk: string) => (text += chunk));
      res.on("end", () => resolve((answer = { status: res.statusCode ?? 0, headers: res.headers, text })));
    }),
  );
  if (sent >= body.length) req.end(body);
  else req.write(body.subarray(0, sent));
  return {
    answered,
    answer: () => answer,
    send(bytes: number) {
      req.write(body.subarray(at, at + bytes));
      at += bytes;
    },
    finish: () => req.end(body.subarray(at)),
    destroy: () => req.destroy(),
  };
}

/** Until the server has read everything these requests have sent so far. */
async function readByServer() {
  const written = () => clients.reduce((sum, client) => sum + (client.socket?.bytesWritten ?? Infinity), 0);
  await until(() => server.received() >= written());
}

const BOUNDARY = `----bounds${randomBytes(6).toString("hex")}`;
function multipart(parts: ({ name: string; value: string } | { name: string; fileName: string; data: Buffer })[]) {
  const chunks = parts.flatMap((part) =>
    "fileName" in part
      ? [
          Buffer.from(
            `--${BOUNDARY}\r\nContent-Disposition: form-data; name="${part.name}"; filename="${part.fileName}"\r\nContent-Type: image/jpeg\r\n\r\n`,
          ),
          part.data,
          Buffer.from("\r\n"),
        ]
      : [Buffer.from(`--${BOUNDARY}\r\nContent-Disposition: form-data; name="${part.name}"\r\n\r\n${part.value}\r\n`)],
  );
  return Buffer.concat([...chunks, Buffer.from(`--${BOUNDARY}--\r\n`)]);
}
const MULTIPART = `multipart/form-data; boundary=${BOUNDARY}`;
const TEXT = [
  { name: "name", value: "Aroha Smith" },
  { name: "email", value: "aroha@example.co.nz" },
  { name: "message", value: "A quote for a basalt retaining wall, photos attached." },
];
const ENQUIRY = Buffer.from(
  JSON.stringify({ name: "Aroha Smith", email: "aroha@example.co.nz", message: "A quote for a wall, please." }),
);

const tempFiles = async () => {
  const dir = path.join(ctx!.dataDir, "tmp", "enquiry-photos");
  const names = await fs.readdir(dir).catch(() => [] as string[]);
  return Promise.all(names.map(async (name) => (await fs.stat(path.join(dir, name)).catch(() => null))?.size ?? 0));
};
const MB = 1024 * 1024;

describe("a body kept in memory (JSON, a form)", () => {
  it("must have arrived within 30 s by the clock, however fast it comes: finished at 29 s it is taken, unfinished at 30 s it is answered 408 and its connection closed", async () => {
    await start();
    const finished = post("/api/contact", "203.0.113.1", ENQUIRY, "application/json", ENQUIRY.length - 10);
    // 40 KB within the 30 s, more than the minimum rate asks: only the deadline ends it.
    const long = Buffer.from(JSON.stringify({ message: "m".repeat(60_000) }));
    const unfinished = post("/api/contact", "203.0.113.2", long, "application/json", 1024);
    await readByServer();
    unfinished.send(40 * 1024);
    await readByServer();
    clock.advance(29_000);
    finished.finish();
    expect((await finished.answered).status).toBe(201);
    clock.advance(1_000);
    await expect.poll(() => unfinished.answer()?.status ?? null).toBe(408);
    const answer = unfinished.answer()!;
    expect([answer.status, JSON.parse(answer.text), answer.headers.connection]).toEqual([
      408,
      { message: "The request stopped arriving. Please send it again." },
      "close",
    ]);
  });
});

describe("a photo streamed to disk", () => {
  it("is taken however long it takes at 750 kbit/s: 14 MB in 150 s by the clock", async () => {
    await start();
    const body = multipart([{ name: "photos", fileName: "wall.jpg", data: await makeJpegOfSize(14 * MB) }]);
    const upload = post("/api/enquiry-photos", "203.0.113.3", body, MULTIPART, 0);
    // 750 kbit/s is 93,750 bytes a second; the clock moves a second for each.
    for (let left = body.length; left > 0; left -= 93_750) {
      upload.send(Math.min(93_750, left));
      await readByServer();
      clock.advance(1_000);
    }
    upload.finish();
    const answer = await upload.answered;
    expect([answer.status, Object.keys(JSON.parse(answer.text) as object)]).toEqual([201, ["token", "name"]]);
  });

  it("must bring 30 KB in every 30 s: four no-JS posts trickling a byte every 10 s that hold all the disk are answered 408, and give it back", async () => {
    // 32 MB for photos on their way: four posts of 8 MB, from four visitors, take it all.
    await start({ ENQUIRY_PHOTO_UPLOADS_MB: "32" });
    const photo = await makeJpegOfSize(8 * MB - 64 * 1024);
    const body = multipart([...TEXT, { name: "photos", fileName: "wall.jpg", data: photo }]);
    const trickling = [1, 2, 3, 4].map((n) => post("/contact", `198.51.100.${n}`, body, MULTIPART, body.length - 1024));
    await readByServer();
    const turnedAway = post("/contact", "198.51.100.5", body, MULTIPART);
    expect((await turnedAway.answered).status).toBe(200);
    expect(seen).toEqual([
      {
        status: "refused",
        httpStatus: 503,
        messages: ["Many photos are being sent just now. Please try again in a minute."],
        retryAfterSeconds: 60,
      },
    ]);
    // Their first 30 s brought 8 MB each; the next, 3 bytes: dropped as that window closes.
    for (let second = 10; second <= 60; second += 10) {
      for (const p of trickling) p.send(1);
      await readByServer();
      clock.advance(10_000);
    }
    await expect.poll(() => trickling.map((p) => p.answer()?.status ?? null)).toEqual([408, 408, 408, 408]);
    expect(trickling.map((p) => p.answer()!).map((a) => [a.status, a.text, a.headers.connection])).toEqual(
      Array(4).fill([408, "The form stopped arriving. Please send it again.", "close"]),
    );
    await until(async () => (await tempFiles()).length === 0);
    // The disk is free again.
    const next = post("/contact", "198.51.100.6", body, MULTIPART);
    expect((await next.answered).status).toBe(200);
    expect(seen.at(-1)).toEqual({ status: "accepted", tokens: [expect.any(String)] });
  });
});

describe("photos on their way to POST /api/enquiry-photos", () => {
  it("40 unfinished 15 MB posts hold at most 100 MB of disk: the others are answered 503 with Retry-After before any of theirs is written", async () => {
    await start();
    const photo = await makeJpegOfSize(15 * MB - 4096);
    const body = multipart([{ name: "photos", fileName: "wall.jpg", data: photo }]);
    // Two posts from each of 20 visitors, all but their last kilobyte sent.
    const posts = Array.from({ length: 40 }, (_, i) =>
      post("/api/enquiry-photos", `192.0.2.${Math.floor(i / 2) + 1}`, body, MULTIPART, body.length - 1024),
    );
    const settled = async () => {
      const refused = posts.filter((p) => p.answer() !== null).length;
      const files = await tempFiles();
      return refused + files.length === posts.length && files.every((size) => size >= photo.length - 2048);
    };
    await until(settled, { timeoutMs: 60_000 });
    const onDisk = (await tempFiles()).reduce((sum, size) => sum + size, 0);
    expect(onDisk).toBeLessThanOrEqual(100 * MB);
    const refused = posts.map((p) => p.answer()).filter((answer) => answer !== null);
    expect(refused.length).toBeGreaterThan(0);
    for (const answer of refused)
      expect([answer.status, answer.headers["retry-after"], JSON.parse(answer.text)]).toEqual([
        503,
        "60",
        { message: "Many photos are being sent just now. Please try again in a minute." },
      ]);
    for (const p of posts) p.destroy();
    await until(async () => (await tempFiles()).length === 0);
  });

  it("a post with two photo parts writes one file at most, and is answered 400", async () => {
    await start();
    const photo = await makeImage("jpeg", { width: 64, height: 48 });
    const body = multipart([
      { name: "photos", fileName: "one.jpg", data: photo },
      { name: "photos", fileName: "two.jpg", data: photo },
    ]);
    const dir = path.join(ctx!.dataDir, "tmp", "enquiry-photos");
    await fs.mkdir(dir, { recursive: true });
    const written = new Set<string>();
    const watcher = watch(dir, (_event, name) => name && written.add(name));
    try {
      const answer = await post("/api/enquiry-photos", "203.0.113.9", body, MULTIPART).answered;
      expect([answer.status, JSON.parse(answer.text)]).toEqual([
        400,
        { message: 'Send one photo, as multipart/form-data in the field "photos".' },
      ]);
      await until(async () => (await tempFiles()).length === 0);
    } finally {
      watcher.close();
    }
    expect(written.size).toBeLessThanOrEqual(1);
  });
});

describe("requests open at once", () => {
  it("one address has a few dozen at most, the next answered 429; behind the proxy each visitor counts alone, never the proxy; all given back once closed", async () => {
    await start();
    const held = (visitor: string) => post("/api/contact", visitor, ENQUIRY, "application/json", 10);
    const crowd = Array.from({ length: 100 }, () => held("203.0.113.50"));
    const others = Array.from({ length: 100 }, (_, i) => held(`198.18.0.${i + 1}`));
    await until(() => crowd.filter((p) => p.answer()?.status === 429).length > 0);
    await readByServer();
    const refused = crowd.filter((p) => p.answer() !== null).map((p) => p.answer()!);
    expect(refused.every((a) => a.status === 429 && a.headers["retry-after"] === "30")).toBe(true);
    expect(JSON.parse(refused[0]!.text)).toEqual({
      message: "Too many requests from this address at once. Please try again in a minute.",
    });
    // Generous: many phones share one carrier's address.
    expect(crowd.length - refused.length).toBeGreaterThanOrEqual(50);
    // 100 visitors through the same proxy, held alike: none refused.
    expect(others.filter((p) => p.answer() !== null)).toEqual([]);
    const health = await fetch(`http://127.0.0.1:${server.port}/healthz`, {
      headers: { "X-Forwarded-For": "203.0.113.50" },
    });
    expect(health.status).toBe(429);

    for (const p of [...crowd, ...others]) p.destroy();
    await until(
      async () =>
        (await fetch(`http://127.0.0.1:${server.port}/healthz`, { headers: { "X-Forwarded-For": "203.0.113.50" } }))
          .status === 200,
    );
    expect((await post("/api/contact", "203.0.113.50", ENQUIRY, "application/json").answered).status).toBe(201);
  });
});
