import { randomBytes } from "node:crypto";
import { watch } from "node:fs";
import fs from "node:fs/promises";
import http from "node:http";
import net from "node:net";
import path from "node:path";
import type { AppLoadContext } from "react-router";
import { afterEach, beforeAll, beforeEach, describe, expect, it } from "vitest";
import { listenWithFakeBuild } from "../support/app-server";
import type { FakePage } from "../support/fake-react-router-build";
import { until } from "../support/until";
import { makeImage } from "../fixtures/images";
import { createTestContext, type TestContext } from "./helpers";

/**
 * The no-JS contact form with photos: server/middleware/contact-multipart.ts ahead of
 * React Router. A stand-in route records what its action receives; the middleware, busboy, the disk
 * and the photos' processing are real. Each test has its own data folder, database and server (so its
 * own disk for photos on their way): one that fails with posts held or files on disk leaves nothing behind.
 */

type Part =
  | { name: string; value: string }
  | { name: string; fileName: string; type: string; data: Buffer }
  /** A part no form sends: no Content-Disposition, so neither a field nor a file (only the count of parts bounds it). */
  | { bare: string };
type Seen = { path: string; fields: Record<string, string>; photos: AppLoadContext["contactPhotos"] };

function multipart(parts: Part[]): { body: Buffer; contentType: string } {
  const boundary = `----cornerstone${randomBytes(8).toString("hex")}`;
  const chunks: Buffer[] = [];
  for (const part of parts) {
    if ("bare" in part) {
      chunks.push(Buffer.from(`--${boundary}\r\nContent-Type: text/plain\r\n\r\n${part.bare}\r\n`));
      continue;
    }
    const disposition =
      "fileName" in part
        ? `form-data; name="${part.name}"; filename="${part.fileName}"\r\nContent-Type: ${part.type}`
        : `form-data; name="${part.name}"`;
    chunks.push(Buffer.from(`--${boundary}\r\nContent-Disposition: ${disposition}\r\n\r\n`));
    chunks.push("fileName" in part ? part.data : Buffer.from(part.value));
    chunks.push(Buffer.from("\r\n"));
  }
  chunks.push(Buffer.from(`--${boundary}--\r\n`));
  return { body: Buffer.concat(chunks), contentType: `multipart/form-data; boundary=${boundary}` };
}

const TEXT: { name: string; value: string }[] = [
  { name: "name", value: "Aroha Smith" },
  { name: "email", value: "aroha@example.co.nz" },
  { name: "phone", value: "021 123 4567" },
  { name: "message", value: "A quote for a basalt retaining wall, photos attached." },
  { name: "website", value: "" },
];
const KEPT_TEXT = {
  name: "Aroha Smith",
  email: "aroha@example.co.nz",
  phone: "021 123 4567",
  message: "A quote for a basalt retaining wall, photos attached.",
  website: "",
};

/** The stand-in page's action: records what it received. */
const recordAction: FakePage["action"] = async ({ request, context }) => {
  const fields = Object.fromEntries([...(await request.formData())].map(([key, value]) => [key, String(value)]));
  seen.push({ path: new URL(request.url).pathname, fields, photos: context.contactPhotos });
  return { received: true };
};
const MB = 1024 * 1024;

let ctx: TestContext;
let closeServer: () => Promise<void>;
let port: number;
const seen: Seen[] = [];
let jpeg: Buffer;
let visitor = 0;
/** Requests a test opened by hand: destroyed after it, whether it passed or not. */
const open: http.ClientRequest[] = [];

beforeAll(async () => {
  jpeg = await makeImage("jpeg", { width: 800, height: 600 });
});
beforeEach(async () => {
  ctx = await createTestContext();
  seen.length = 0;
  ({ port, close: closeServer } = await listenWithFakeBuild(ctx.services, { action: recordAction }));
});
afterEach(async () => {
  for (const req of open.splice(0)) req.destroy();
  await closeServer();
  await ctx.close();
});

/** The one temporary folder of visitors' photos (both ways in). */
const tempRoot = () => path.join(ctx.dataDir, "tmp", "enquiry-photos");
/** Photos on disk, one temporary file each. */
const photosOnDisk = async () =>
  (await fs.readdir(tempRoot()).catch(() => [] as string[])).filter((entry) => entry.endsWith(".upload"));

/** A post over a socket of its own; `hold` sends only this many bytes until `finish()`. */
function rawPost(
  target: string,
  body: Buffer,
  contentType: string,
  options: { hold?: number; headers?: Record<string, string> } = {},
) {
  visitor += 1;
  let finish!: () => void;
  const answered = new Promise<{ status: number; text: string; headers: http.IncomingHttpHeaders }>(
    (resolve, reject) => {
      const req = http.request(
        {
          host: "127.0.0.1",
          port,
          method: "POST",
          path: target,
          headers: {
            "Content-Type": contentType,
            "Content-Length": String(body.length),
            "X-Forwarded-For": `10.77.0.${visitor}`,
            ...options.headers,
          },
        },
        (res) => {
          let text = "";
          res.setEncoding("utf8");
          res.on("data", (chunk: string) => (text += chunk));
          res.on("end", () => resolve({ status: res.statusCode ?? 0, text, headers: res.headers }));
        },
      );
      open.push(req);
      req.on("error", reject);
      if (options.hold === undefined) req.end(body);
      else {
        req.write(body.subarray(0, options.hold));
        finish = () => req.end(body.subarray(options.hold));
      }
    },
  );
  // A test that fails while posts are held leaves them to afterEach, which destroys them: not an unhandled rejection.
  answered.catch(() => {});
  return { answered, finish: () => finish() };
}

/**
 * One photo of zeros posted to /contact, either with a declared length or chunked, written a
 * megabyte at a time until the server answers or the body is all sent. A ceiling that lets the
 * body through answers after the end of it (sentAll), never by leaving the request waiting.
 */
async function postEndlessPhoto(size: { declaredBytes: number } | { streamedMegabytes: number }) {
  const { contentType } = multipart(TEXT);
  const boundary = contentType.split("boundary=")[1]!;
  const head = Buffer.from(
    `--${boundary}\r\nContent-Disposition: form-data; name="photos"; filename="endless.jpg"\r\nContent-Type: image/jpeg\r\n\r\n`,
  );
  const total = "declaredBytes" in size ? size.declaredBytes : head.length + size.streamedMegabytes * 1024 * 1024;
  const length: Record<string, string> =
    "declaredBytes" in size ? { "Content-Length": String(total) } : { "Transfer-Encoding": "chunked" };
  const megabyte = Buffer.alloc(1024 * 1024);
  return new Promise<{ status: number; text: string; sentAll: boolean }>((resolve, reject) => {
    let sent = 0;
    let answered = false;
    const req = http.request(
      {
        host: "127.0.0.1",
        port,
        method: "POST",
        path: "/contact",
        headers: { "Content-Type": contentType, ...length },
      },
      (res) => {
        answered = true;
        let text = "";
        res.on("data", (data: Buffer) => (text += data.toString()));
        res.on("end", () => resolve({ status: res.statusCode ?? 0, text, sentAll: sent === total }));
      },
    );
    req.on("error", (error) => (answered ? undefined : reject(error)));
    const more = () => {
      while (!answered && sent < total) {
        const piece = sent === 0 ? head : megabyte.subarray(0, Math.min(megabyte.length, total - sent));
        sent += piece.length;
        if (!req.write(piece)) return void req.once("drain", more);
      }
      if (!answered) req.end();
    };
    more();
  });
}

const photo = (fileName: string, data = jpeg): Part => ({ name: "photos", fileName, type: "image/jpeg", data });

describe("the no-JS contact form's multipart post", () => {
  it("reaches the action with its text fields and a token per photo, and leaves no temporary file", async () => {
    const { body, contentType } = multipart([...TEXT, photo("wall.jpg"), photo("slope.jpg")]);
    const { answered } = rawPost("/contact", body, contentType);
    expect((await answered).status).toBe(200);
    expect(seen).toHaveLength(1);
    expect(seen[0]!.fields).toEqual(KEPT_TEXT);
    const photos = seen[0]!.photos;
    expect(photos?.status).toBe("accepted");
    expect(photos?.status === "accepted" && photos.tokens).toHaveLength(2);
    expect(await photosOnDisk()).toEqual([]);
  });

  it("more than five photos: the whole body is read, then refused with the text kept and nothing processed", async () => {
    const kept = await ctx.storedKeys("enquiry-photos/");
    const { body, contentType } = multipart([
      ...TEXT,
      ...["1", "2", "3", "4", "5", "6"].map((n) => photo(`photo-${n}.jpg`)),
    ]);
    const { answered } = rawPost("/contact", body, contentType);
    expect((await answered).status).toBe(200);
    expect(seen).toEqual([
      {
        path: "/contact",
        fields: KEPT_TEXT,
        photos: { status: "refused", httpStatus: 413, messages: ["Up to 5 photos."] },
      },
    ]);
    expect(await ctx.storedKeys("enquiry-photos/")).toEqual(kept);
    expect(await photosOnDisk()).toEqual([]);
  });

  it("a post of 41 parts is refused (at most 40), with the text before them kept; one of 30 parts is read whole", async () => {
    const bare = (count: number): Part[] => Array.from({ length: count }, (_, n) => ({ bare: `part ${n}` }));
    // Five text fields and bare parts: within the limits of fields (10) and files (5), so only the count of parts stops it.
    const within = multipart([...TEXT, ...bare(25)]);
    expect((await rawPost("/contact", within.body, within.contentType).answered).status).toBe(200);
    expect(seen).toEqual([{ path: "/contact", fields: KEPT_TEXT, photos: { status: "accepted", tokens: [] } }]);

    seen.length = 0;
    const beyond = multipart([...TEXT, ...bare(36)]);
    expect((await rawPost("/contact", beyond.body, beyond.contentType).answered).status).toBe(200);
    expect(seen).toEqual([
      {
        path: "/contact",
        fields: KEPT_TEXT,
        photos: { status: "refused", httpStatus: 413, messages: ["Up to 5 photos."] },
      },
    ]);
    expect(await photosOnDisk()).toEqual([]);
  });

  it("a photo over 15 MB is refused by its name, with the text kept", async () => {
    const kept = await ctx.storedKeys("enquiry-photos/");
    const huge = Buffer.concat([jpeg, Buffer.alloc(15 * 1024 * 1024 + 1 - jpeg.length)]);
    const { body, contentType } = multipart([...TEXT, photo("wall.jpg"), photo("huge.jpg", huge)]);
    expect((await rawPost("/contact", body, contentType).answered).status).toBe(200);
    expect(seen).toEqual([
      {
        path: "/contact",
        fields: KEPT_TEXT,
        photos: { status: "refused", httpStatus: 413, messages: ["Photo huge.jpg is larger than 15 MB."] },
      },
    ]);
    // Refused while the post was read: the other photo was not processed for nothing.
    expect(await ctx.storedKeys("enquiry-photos/")).toEqual(kept);
    expect(await photosOnDisk()).toEqual([]);
  });

  it("photo parts go to a private file on disk as they arrive, and it is deleted after", async () => {
    const big = Buffer.concat([jpeg, randomBytes(15 * 1024 * 1024 - jpeg.length)]);
    const { body, contentType } = multipart([...TEXT, photo("big.jpg", big)]);
    const post = rawPost("/contact", body, contentType, { hold: body.length - 4 * 1024 * 1024 });
    let onDisk = "";
    await until(async () => {
      const [file] = await photosOnDisk();
      if (!file) return false;
      onDisk = path.join(tempRoot(), file);
      const size = await fs.stat(onDisk).then(
        (stat) => stat.size,
        () => 0,
      );
      return size > 8 * 1024 * 1024;
    });
    expect((await fs.stat(onDisk)).mode & 0o777).toBe(0o600);
    post.finish();
    await post.answered;
    expect(await photosOnDisk()).toEqual([]);
  });

  it("photos on their way hold at most ENQUIRY_PHOTO_UPLOADS_MB, one address half of it: past either, a post is told to try again in a minute, with its text, and none of its photos is written", async () => {
    await closeServer();
    await ctx.close();
    ctx = await createTestContext({ ENQUIRY_PHOTO_UPLOADS_MB: "32", TRUST_PROXY: "loopback" });
    ({ port, close: closeServer } = await listenWithFakeBuild(ctx.services, { action: recordAction }));
    // 10 MB each: three visitors' posts fit in 32 MB; one visitor's second does not fit in its 16.
    const { body, contentType } = multipart([...TEXT, photo("wall.jpg", Buffer.concat([jpeg, Buffer.alloc(10 * MB)]))]);
    const from = (visitor: string, hold?: number) =>
      rawPost("/contact", body, contentType, { hold, headers: { "X-Forwarded-For": visitor } });
    const held = ["192.0.2.1", "192.0.2.2", "192.0.2.3"].map((visitor) => from(visitor, body.length - 1024));
    await until(async () => (await photosOnDisk()).length === 3);
    const busy = {
      path: "/contact",
      fields: KEPT_TEXT,
      photos: {
        status: "refused",
        httpStatus: 503,
        messages: ["Many photos are being sent just now. Please try again in a minute."],
        retryAfterSeconds: 60,
      },
    };
    expect((await from("192.0.2.1").answered).status).toBe(200);
    expect((await from("192.0.2.4").answered).status).toBe(200);
    expect(seen).toEqual([busy, busy]);
    expect(await photosOnDisk()).toHaveLength(3);
    for (const post of held) post.finish();
    await Promise.all(held.map((post) => post.answered));
    expect(await photosOnDisk()).toEqual([]);
    // Given back: the visitor turned away is taken now.
    seen.length = 0;
    expect((await from("192.0.2.4").answered).status).toBe(200);
    expect(seen[0]!.photos).toEqual({ status: "accepted", tokens: [expect.any(String)] });
  });

  it("a bot's post (the hidden field filled) with a photo: no file written, the image worker never asked, no photo kept", async () => {
    const rowsBefore = await ctx.services.db.selectFrom("enquiry_photos").select("id").execute();
    const asked: string[] = [];
    const images = ctx.services.images;
    const processEnquiryPhoto = images.processEnquiryPhoto.bind(images);
    images.processEnquiryPhoto = (...args) => {
      asked.push(args[0]);
      return processEnquiryPhoto(...args);
    };
    await fs.mkdir(tempRoot(), { recursive: true });
    const written = new Set<string>();
    const watcher = watch(tempRoot(), (_event, name) => name && written.add(name));
    try {
      // In the form's order: the hidden field comes before the photos.
      const { body, contentType } = multipart([
        ...TEXT.filter((part) => part.name !== "website"),
        { name: "website", value: "https://cheap-pills.example" },
        photo("wall.jpg"),
      ]);
      expect((await rawPost("/contact", body, contentType).answered).status).toBe(200);
    } finally {
      watcher.close();
    }
    expect([...written]).toEqual([]);
    // A bot that sends the photo first: it is on disk for a moment, but never processed or kept.
    const botFirst = multipart([
      photo("wall.jpg"),
      ...TEXT.filter((part) => part.name !== "website"),
      { name: "website", value: "x" },
    ]);
    expect((await rawPost("/contact", botFirst.body, botFirst.contentType).answered).status).toBe(200);
    expect(seen.map((post) => post.photos)).toEqual([
      { status: "accepted", tokens: [] },
      { status: "accepted", tokens: [] },
    ]);
    expect(asked).toEqual([]);
    expect(await photosOnDisk()).toEqual([]);
    expect(await ctx.services.db.selectFrom("enquiry_photos").select("id").execute()).toEqual(rowsBefore);
  });

  it('an empty photo input (a part with filename="" and no bytes, as a browser sends it) is no photo: the text goes through', async () => {
    const { body, contentType } = multipart([
      ...TEXT,
      { name: "photos", fileName: "", type: "application/octet-stream", data: Buffer.alloc(0) },
    ]);
    expect((await rawPost("/contact", body, contentType).answered).status).toBe(200);
    expect(seen).toEqual([{ path: "/contact", fields: KEPT_TEXT, photos: { status: "accepted", tokens: [] } }]);
    expect(await photosOnDisk()).toEqual([]);
  });

  it("a post broken off mid-photo leaves nothing behind and runs no action", async () => {
    const { body, contentType } = multipart([
      ...TEXT,
      photo("wall.jpg", Buffer.concat([jpeg, Buffer.alloc(1024 * 1024)])),
    ]);
    visitor += 1;
    const req = http.request({
      host: "127.0.0.1",
      port,
      method: "POST",
      path: "/contact",
      headers: { "Content-Type": contentType, "Content-Length": String(body.length) },
    });
    open.push(req);
    req.on("error", () => {});
    req.write(body.subarray(0, body.length - 100 * 1024));
    await until(async () => (await photosOnDisk()).length === 1);
    req.destroy();
    await until(async () => (await photosOnDisk()).length === 0);
    expect(seen).toEqual([]);
  });

  it("text the form would refuse anyway: its photos are not processed", async () => {
    const kept = await ctx.storedKeys("enquiry-photos/");
    const { body, contentType } = multipart([
      ...TEXT.filter((part) => part.name !== "email"),
      { name: "email", value: "not-an-email" },
      photo("wall.jpg"),
    ]);
    expect((await rawPost("/contact", body, contentType).answered).status).toBe(200);
    expect(seen[0]!.photos).toEqual({ status: "accepted", tokens: [] });
    expect(await ctx.storedKeys("enquiry-photos/")).toEqual(kept);
  });

  it("a post refused for one photo lets go of the photos taken before it: none waits to be sent", async () => {
    const kept = await ctx.storedKeys("enquiry-photos/");
    const rowsBefore = (await ctx.services.db.selectFrom("enquiry_photos").select("id").execute()).length;
    const notAPhoto: Part = {
      name: "photos",
      fileName: "notes.txt",
      type: "text/plain",
      data: Buffer.from("Dear Mark, my notes."),
    };
    const { body, contentType } = multipart([...TEXT, photo("wall.jpg"), notAPhoto]);
    expect((await rawPost("/contact", body, contentType).answered).status).toBe(200);
    expect(seen[0]!.photos).toEqual({
      status: "refused",
      httpStatus: 415,
      messages: ["File notes.txt is not a supported photo. Please use JPEG, PNG, WebP or AVIF."],
      retryAfterSeconds: undefined,
    });
    expect((await ctx.services.db.selectFrom("enquiry_photos").select("id").execute()).length).toBe(rowsBefore);
    expect(await ctx.storedKeys("enquiry-photos/")).toEqual(kept);
    expect(await photosOnDisk()).toEqual([]);
  });

  it("text beyond the bounds is refused with the rest of the text kept", async () => {
    const { body, contentType } = multipart([
      ...TEXT.filter((part) => part.name !== "message"),
      { name: "message", value: "x".repeat(40 * 1024) },
    ]);
    expect((await rawPost("/contact", body, contentType).answered).status).toBe(200);
    expect(seen).toEqual([
      {
        path: "/contact",
        fields: { name: "Aroha Smith", email: "aroha@example.co.nz", phone: "021 123 4567", website: "" },
        photos: {
          status: "refused",
          httpStatus: 413,
          messages: ["The form has more text than it can take. Please shorten the message and send it again."],
        },
      },
    ]);
  });

  it("a body declared over 200 MB is refused at once", async () => {
    // 200 MB and one byte, declared; the body is sent only until the answer comes.
    const answer = await postEndlessPhoto({ declaredBytes: 209_715_201 });
    expect([answer.status, answer.text]).toEqual([413, "Request body too large"]);
    expect(answer.sentAll, "the whole declared body was read before the answer").toBe(false);
    expect(seen).toEqual([]);
  });

  it("after the refusal, what was already on its way is still taken, so no reset can lose the answer", async () => {
    // A phone has sent more before it reads the answer: bytes reaching a closed socket would make the
    // kernel reset the connection, and a reset can throw away the answer the phone has not read yet.
    const { contentType } = multipart(TEXT);
    // Half-open, as a browser still sending once the answer has come.
    const socket = net.connect({ port, host: "127.0.0.1", allowHalfOpen: true });
    const errors: string[] = [];
    socket.on("error", (error: NodeJS.ErrnoException) => errors.push(error.code ?? error.message));
    const closed = new Promise((resolve) => socket.once("close", resolve));
    let answer = "";
    const answered = new Promise<void>((resolve) =>
      socket.on("data", (data: Buffer) => {
        answer += data.toString();
        if (answer.includes("Request body too large")) resolve();
      }),
    );
    socket.write(
      `POST /contact HTTP/1.1\r\nHost: localhost\r\nContent-Type: ${contentType}\r\nContent-Length: 209715201\r\n\r\n`,
    );
    await answered;
    expect(answer).toMatch(/^HTTP\/1\.1 413 /);
    for (let sent = 0; sent < 8 && !socket.destroyed; sent += 1) {
      socket.write(Buffer.alloc(128 * 1024));
      await new Promise((resolve) => setTimeout(resolve, 20));
    }
    socket.end();
    await closed;
    expect(errors).toEqual([]);
  });

  it("a body streamed past 200 MB is answered 413 and cut off", async () => {
    // 250 MB of one photo, then the end of the body: well past the ceiling, but a body that ends.
    // The close that cuts the body off can beat the answer to the sender (EPIPE): each try is cut off, one is read.
    let answer: Awaited<ReturnType<typeof postEndlessPhoto>> | undefined;
    for (let attempt = 0; attempt < 3 && answer?.status !== 413; attempt += 1) {
      answer = await postEndlessPhoto({ streamedMegabytes: 250 }).catch((error: NodeJS.ErrnoException) => {
        if (error.code !== "EPIPE" && error.code !== "ECONNRESET") throw error;
        return undefined;
      });
      if (answer) expect(answer.sentAll, "the whole body was read before the answer").toBe(false);
    }
    expect([answer?.status, answer?.text]).toEqual([413, "Request body too large"]);
    expect(seen).toEqual([]);
    await until(async () => (await photosOnDisk()).length === 0);
  });

  it("every other page post keeps the 64 KB limit, multipart or not", async () => {
    const large = multipart([
      ...TEXT,
      { name: "notes", value: "x".repeat(30 * 1024) },
      { name: "more", value: "y".repeat(40 * 1024) },
    ]);
    const elsewhere = await rawPost("/stonework", large.body, large.contentType).answered;
    expect([elsewhere.status, elsewhere.text]).toEqual([413, "Request body too large"]);
    const form = Buffer.from(new URLSearchParams({ ...KEPT_TEXT, message: "x".repeat(70 * 1024) }).toString());
    const urlEncoded = await rawPost("/contact", form, "application/x-www-form-urlencoded").answered;
    expect([urlEncoded.status, urlEncoded.text]).toEqual([413, "Request body too large"]);
    expect(seen).toEqual([]);
    // The control: a small multipart post elsewhere is read by React Router as before.
    const small = multipart(TEXT);
    expect((await rawPost("/stonework", small.body, small.contentType).answered).status).toBe(200);
    expect(seen).toEqual([{ path: "/stonework", fields: KEPT_TEXT, photos: undefined }]);
  });

  it("a post from another site is not read: no file on disk, no action", async () => {
    const kept = await ctx.storedKeys("enquiry-photos/");
    const { body, contentType } = multipart([...TEXT, photo("wall.jpg")]);
    const refused = await rawPost("/contact", body, contentType, { headers: { Origin: "http://evil.example" } })
      .answered;
    expect(refused.status).toBe(403);
    expect(seen).toEqual([]);
    expect(await photosOnDisk()).toEqual([]);
    expect(await ctx.storedKeys("enquiry-photos/")).toEqual(kept);
  });
});
