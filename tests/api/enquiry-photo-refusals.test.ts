import { once } from "node:events";
import fs from "node:fs/promises";
import http from "node:http";
import type { AddressInfo } from "node:net";
import path from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { createManualClock } from "~/lib/clock";
import { pngBomb, truncatedJpeg } from "../fixtures/image-bombs";
import { makeImage } from "../fixtures/images";
import type { InboxItem } from "~/contact/inbox";
import { hashPhotoToken } from "~/enquiry-photos/enquiry-photo-accept.server";
import { createPhotoContext, type PhotoContext } from "./enquiry-photo-helpers";

/** Photos refused with a message that names them, tokens that attach nothing, and the limits anonymous traffic cannot pass. */

let ctx: PhotoContext;
afterEach(async () => {
  await ctx.close();
});

/** Temp uploads waiting for the worker: none may outlive their request. */
const tempFiles = () => fs.readdir(path.join(ctx.dataDir, "tmp", "enquiry-photos")).catch(() => [] as string[]);

describe("refused photos", () => {
  it("names the photo: a bomb, a file that is not an image, a GIF, a broken JPEG, one over 15 MB; nothing is kept", async () => {
    ctx = await createPhotoContext();
    const cases: [Buffer, string, number, string][] = [
      [pngBomb(20_000, 20_000), "bomb.png", 413, "Photo bomb.png is too large to process."],
      [
        Buffer.from("Dear Mark, here are my notes."),
        "notes.txt",
        415,
        "File notes.txt is not a supported photo. Please use JPEG, PNG, WebP or AVIF.",
      ],
      [
        await makeImage("gif"),
        "moving.gif",
        415,
        "File moving.gif is not a supported photo. Please use JPEG, PNG, WebP or AVIF.",
      ],
      [await truncatedJpeg(1200, 900), "cut off.jpg", 400, "Photo cut off.jpg could not be read as an image."],
      [
        Buffer.concat([await makeImage("jpeg"), Buffer.alloc(15 * 1024 * 1024)]),
        "huge.jpg",
        413,
        "Photo huge.jpg is larger than 15 MB.",
      ],
    ];
    for (const [file, name, status, message] of cases) {
      const res = await ctx.upload(file, name);
      expect(res.status, name).toBe(status);
      expect(res.body).toEqual({ message });
    }
    expect(await ctx.photoRows()).toEqual([]);
    expect(await ctx.storedKeys("enquiry-photos/")).toEqual([]);
    expect(await tempFiles()).toEqual([]);
    // The worker carries on.
    expect((await ctx.upload(await makeImage("webp"), "fine.webp")).status).toBe(201);
  });

  it("a 20 MB photo is read to its end and refused by name; nothing is kept", async () => {
    ctx = await createPhotoContext();
    const res = await ctx.upload(
      Buffer.concat([await makeImage("jpeg"), Buffer.alloc(20 * 1024 * 1024)]),
      "camera roll.jpg",
    );
    expect(res.status).toBe(413);
    expect(res.body).toEqual({ message: "Photo camera roll.jpg is larger than 15 MB." });
    expect(await ctx.photoRows()).toEqual([]);
    expect(await tempFiles()).toEqual([]);
  });

  it("a photo cut off mid-upload leaves no temp file and no row", async () => {
    ctx = await createPhotoContext();
    const server = ctx.app.listen(0, "127.0.0.1");
    await once(server, "listening");
    try {
      const boundary = "----cut-off";
      const req = http.request({
        host: "127.0.0.1",
        port: (server.address() as AddressInfo).port,
        path: "/api/enquiry-photos",
        method: "POST",
        headers: { "Content-Type": `multipart/form-data; boundary=${boundary}` },
      });
      req.on("error", () => {});
      req.write(
        `--${boundary}\r\nContent-Disposition: form-data; name="photos"; filename="half.jpg"\r\nContent-Type: image/jpeg\r\n\r\n`,
      );
      req.write(await makeImage("jpeg", { width: 800, height: 600 }));
      await expect.poll(tempFiles, { interval: 5, timeout: 20_000 }).toHaveLength(1);
      req.destroy();
      await expect.poll(tempFiles, { interval: 5, timeout: 20_000 }).toEqual([]);
      expect(await ctx.photoRows()).toEqual([]);
    } finally {
      server.close();
    }
  });

  it("answers 400 without a photo in the field photos, and 415 for a body that is not multipart", async () => {
    ctx = await createPhotoContext();
    const wrongField = await ctx.api.post("/api/enquiry-photos").attach("picture", await makeImage("jpeg"), "a.jpg");
    expect(wrongField.status).toBe(400);
    expect(wrongField.body).toEqual({ message: 'Send one photo, as multipart/form-data in the field "photos".' });
    const json = await ctx.api.post("/api/enquiry-photos").send({ photos: "x" });
    expect(json.status).toBe(415);
    expect(await ctx.photoRows()).toEqual([]);
  });
});

describe("cross-site posts", () => {
  it("a photo posted from another site is refused with 403, as every other API post is; nothing is stored", async () => {
    ctx = await createPhotoContext();
    const res = await ctx.upload(await makeImage("jpeg")).set("Origin", "https://elsewhere.example");
    expect(res.status).toBe(403);
    expect(res.body).toEqual({ message: "Cross-site requests are not allowed" });
    const fetchSite = await ctx.upload(await makeImage("jpeg")).set("Sec-Fetch-Site", "cross-site");
    expect(fetchSite.status).toBe(403);
    expect(await ctx.photoRows()).toEqual([]);
  });
});

describe("tokens: the browser's own secret", () => {
  it("attach from another address: a phone that changed network between upload and send keeps its photos", async () => {
    ctx = await createPhotoContext();
    const token = await ctx.tokenFor(await makeImage("jpeg"), "wall.jpg", "203.0.113.7");
    // Wi-Fi at home for the upload, mobile data (IPv6) for the send.
    const res = await ctx.enquire([token], "2001:db8:9:1::5");
    expect(res.body).toMatchObject({ photos: { attached: 1, notAttached: 0, notTaken: false } });
    expect((await ctx.photoRows()).map((row) => row.submission_id)).toEqual([(res.body as { id: string }).id]);
  });

  it("work for 24 hours: one 2 hours old is attached; one a day old is not, and the answer says so", async () => {
    const clock = createManualClock("2026-03-02T09:00:00.000Z");
    ctx = await createPhotoContext({}, clock);
    const dayOld = await ctx.tokenFor(await makeImage("jpeg"), "yesterday.jpg");
    // The token is stored only as a hash.
    expect((await ctx.photoRows()).map((row) => row.token_hash)).toEqual([expect.not.stringContaining(dayOld)]);
    clock.advance(22 * 60 * 60_000);
    const twoHoursOld = await ctx.tokenFor(await makeImage("jpeg"), "this morning.jpg");
    clock.advance(2 * 60 * 60_000);
    const res = await ctx.enquire([dayOld, twoHoursOld]);
    expect(res.body).toMatchObject({ photos: { attached: 1, notAttached: 1, notTaken: false } });
    const id = (res.body as { id: string }).id;
    expect((await ctx.photoRows()).map((row) => row.submission_id)).toEqual([null, id]);
    // The owner's inbox says so too.
    const [item] = (await ctx.admin.get("/api/admin/contact-submissions").expect(200)).body as InboxItem[];
    expect(item).toMatchObject({ id, photosNotAttached: 1, photos: [{ n: 1 }] });
  });

  it("an unknown token, or one an enquiry has used, is reported as notAttached, never an error", async () => {
    ctx = await createPhotoContext();
    const token = await ctx.tokenFor(await makeImage("jpeg"), "wall.jpg");
    const first = await ctx.enquire([token]);
    expect(first.body).toMatchObject({ photos: { attached: 1, notAttached: 0, notTaken: false } });
    const second = await ctx.enquire([token, "made-up-token"]);
    expect(second.status).toBe(201);
    expect(second.body).toMatchObject({ photos: { attached: 0, notAttached: 2, notTaken: false } });
    // The first keeps its photo; the second has none, and says how many did not come.
    expect((await ctx.photoRows()).map((row) => row.submission_id)).toEqual([(first.body as { id: string }).id]);
    const items = (await ctx.admin.get("/api/admin/contact-submissions").expect(200)).body as InboxItem[];
    expect(items.map((item) => [item.photos.length, item.photosNotAttached])).toEqual([
      [0, 2],
      [1, 0],
    ]);
  });
});

describe("caps counted in the database, when photos are sent with an enquiry", () => {
  it("ENQUIRY_PHOTOS_PER_DAY: past it, across instances, the photo is left out of the enquiry, which says so", async () => {
    const clock = createManualClock("2026-03-02T09:00:00.000Z");
    ctx = await createPhotoContext({ ENQUIRY_PHOTOS_PER_DAY: "2" }, clock);
    const other = await ctx.openInstance();
    const photo = await makeImage("jpeg");
    const first = await ctx.tokenFor(photo);
    const second = (
      await other.api.post("/api/enquiry-photos").set("X-Forwarded-For", "203.0.113.7").attach("photos", photo, "b.jpg")
    ).body as { token: string };
    // Uploads are not counted against the day: the third is taken as any other.
    const third = await ctx.upload(photo, "c.jpg");
    expect(third.status).toBe(201);
    expect(third.body).toEqual({ token: expect.any(String), name: "c.jpg" });

    expect((await ctx.enquire([first])).body).toMatchObject({ photos: { attached: 1, notTaken: false } });
    const res = await other.api
      .post("/api/contact")
      .set("X-Forwarded-For", "203.0.113.7")
      .send({
        name: "Aroha Visitor",
        email: "aroha@example.nz",
        message: "Two more photos of the wall.",
        photoTokens: [second.token, (third.body as { token: string }).token],
      });
    expect(res.status).toBe(201);
    expect(res.body).toMatchObject({ photos: { attached: 1, notTaken: true } });
    // The photo left out is gone, row and files.
    expect(await ctx.storedKeys("enquiry-photos/")).toHaveLength(4);
    expect((await ctx.photoRows()).map((row) => row.submission_id)).toEqual([expect.any(String), expect.any(String)]);

    // A day later there is room again.
    clock.advance(24 * 60 * 60_000 + 1000);
    const later = await ctx.tokenFor(photo, "d.jpg");
    expect((await ctx.enquire([later])).body).toMatchObject({ photos: { attached: 1, notTaken: false } });
  });

  it("photos uploaded and never sent use none of the day's allowance: the next visitor's enquiry has its photos", async () => {
    ctx = await createPhotoContext({ ENQUIRY_PHOTOS_PER_DAY: "2" });
    const tiny = await makeImage("jpeg", { width: 16, height: 12 });
    // The reported attack: many small photos from two addresses, never sent with an enquiry.
    for (const ip of ["198.51.100.20", "198.51.100.21"]) {
      for (let i = 0; i < 5; i++) expect((await ctx.upload(tiny, `junk-${i}.jpg`, ip)).status).toBe(201);
    }
    const tokens = [await ctx.tokenFor(tiny, "wall.jpg"), await ctx.tokenFor(tiny, "slope.jpg")];
    expect((await ctx.enquire(tokens)).body).toMatchObject({ photos: { attached: 2, notTaken: false } });
  });

  it("ENQUIRY_PHOTOS_MAX_MB: once the kept copies of sent photos add up to it, photos are left out", async () => {
    ctx = await createPhotoContext({ ENQUIRY_PHOTOS_MAX_MB: "1" });
    const tokens = [
      await ctx.tokenFor(await makeImage("jpeg")),
      await ctx.tokenFor(await makeImage("jpeg"), "later.jpg"),
    ];
    // What other enquiries' photos already hold (as another instance would have stored them): one byte short of 1 MB.
    await ctx.services.db
      .insertInto("enquiry_photos")
      .values({
        id: "earlier",
        token_hash: "0".repeat(64),
        address_hash: "elsewhere",
        status: "ready",
        submission_id: "an-earlier-enquiry",
        position: 1,
        thumb_key: null,
        view_key: null,
        thumb_bytes: 40_000,
        view_bytes: 1024 * 1024 - 40_001,
        created_at: "2026-01-01T00:00:00.000Z",
        expires_at: "2026-01-01T01:00:00.000Z",
      })
      .execute();
    const res = await ctx.enquire(tokens);
    expect(res.body).toMatchObject({ photos: { attached: 1, notTaken: true } });
  });
});

/** A processed photo waiting to be sent, as another instance would have stored it (no files). */
function waitingPhoto(token: string, addressHash: string, createdAt: Date) {
  return {
    id: `waiting-${token}`,
    token_hash: hashPhotoToken(token),
    address_hash: addressHash,
    status: "ready",
    submission_id: null,
    position: null,
    thumb_key: null,
    view_key: null,
    created_at: createdAt.toISOString(),
    expires_at: new Date(createdAt.getTime() + 60 * 60_000).toISOString(),
  };
}

describe("photos waiting to be sent with an enquiry", () => {
  it("at most 10 per address, an IPv6 client counted by its /56: the 11th takes the place of that address's oldest", async () => {
    ctx = await createPhotoContext();
    const tiny = await makeImage("jpeg", { width: 16, height: 12 });
    const tokens: string[] = [];
    for (let i = 0; i < 10; i++) tokens.push(await ctx.tokenFor(tiny, `p${i}.jpg`, `2001:db8:7:${i}::1`));
    // Another /64 of the same /56: taken, in the place of the oldest.
    const eleventh = await ctx.tokenFor(tiny, "one more.jpg", "2001:db8:7:ff::9");
    expect(await ctx.photoRows()).toHaveLength(10);
    // Another /56 pushes out nothing of theirs.
    await ctx.tokenFor(tiny, "elsewhere.jpg", "2001:db8:7:100::1");
    expect(await ctx.photoRows()).toHaveLength(11);

    const res = await ctx.enquire([tokens[0]!, tokens[1]!, eleventh], "2001:db8:7:1::1");
    expect(res.body).toMatchObject({ photos: { attached: 2, notAttached: 1, notTaken: false } });
    expect(await ctx.storedKeys("enquiry-photos/")).toHaveLength(2 * 11);
  });

  it("past 200 from everyone, a new photo takes the place of the oldest of the address holding the most", async () => {
    ctx = await createPhotoContext();
    const now = ctx.services.clock.now().getTime();
    // 90 visitors with 2 photos each, then one flood of 20.
    // The flood's photos are the newest: the one that goes is picked by who holds the most, not by age.
    const rows = Array.from({ length: 200 }, (_, i) =>
      waitingPhoto(`token-${i}`, i < 180 ? `visitor-${Math.floor(i / 2)}` : "flood", new Date(now - (200 - i) * 1000)),
    );
    await ctx.services.db.insertInto("enquiry_photos").values(rows).execute();
    const token = await ctx.tokenFor(await makeImage("jpeg"), "wall.jpg", "192.0.2.44");
    const left = await ctx.photoRows();
    expect(left).toHaveLength(200);
    expect(left.filter((row) => row.address_hash === "flood")).toHaveLength(19);
    expect(left.map((row) => row.token_hash)).not.toContain(hashPhotoToken("token-180"));
    // Its visitor learns it when sending: the displaced photo is not attached.
    const flood = await ctx.enquire(["token-180", "token-181"], "198.51.100.77");
    expect(flood.body).toMatchObject({ photos: { attached: 1, notAttached: 1, notTaken: false } });
    const visitor = await ctx.enquire([token], "192.0.2.44");
    expect(visitor.body).toMatchObject({ photos: { attached: 1, notAttached: 0, notTaken: false } });
  });
});

describe("the day's allowance, per address", () => {
  it("one address attaches at most 10 photos a day; past that its photos are notTaken, and others still attach", async () => {
    const clock = createManualClock("2026-03-02T09:00:00.000Z");
    ctx = await createPhotoContext({}, clock);
    // Photos waiting to be sent, uploaded from wherever: this is about where they are sent from.
    let uploaded = 0;
    const fivePhotos = async () => {
      const tokens = Array.from({ length: 5 }, () => `token-${++uploaded}`);
      const rows = tokens.map((token) => waitingPhoto(token, "anywhere", clock.now()));
      await ctx.services.db.insertInto("enquiry_photos").values(rows).execute();
      return tokens;
    };
    // From one IPv6 /56, through two of its /64s.
    for (const ip of ["2001:db8:8:1::1", "2001:db8:8:2::1"]) {
      const res = await ctx.enquire(await fivePhotos(), ip);
      expect(res.body).toMatchObject({ photos: { attached: 5, notAttached: 0, notTaken: false } });
    }
    const past = await ctx.enquire(await fivePhotos(), "2001:db8:8:3::1");
    expect(past.body).toMatchObject({ photos: { attached: 0, notAttached: 0, notTaken: true } });
    // The rest of the day's 50 stays for others.
    const other = await ctx.enquire(await fivePhotos(), "198.51.100.9");
    expect(other.body).toMatchObject({ photos: { attached: 5, notAttached: 0, notTaken: false } });
    // A day later the address may attach again.
    clock.advance(24 * 60 * 60_000 + 1000);
    const later = await ctx.enquire(await fivePhotos(), "2001:db8:8:4::1");
    expect(later.body).toMatchObject({ photos: { attached: 5, notAttached: 0, notTaken: false } });
  });
});

describe("the per-address limit", () => {
  it("25 photos per address per 10 minutes (5 enquiries × 5 photos); another address is not held up", async () => {
    ctx = await createPhotoContext();
    const notAPhoto = Buffer.from("not a photo");
    for (let i = 0; i < 25; i++) expect((await ctx.upload(notAPhoto, `n${i}.txt`)).status).toBe(415);
    const limited = await ctx.upload(await makeImage("jpeg"));
    expect(limited.status).toBe(429);
    expect(limited.body).toEqual({
      message: "Too many photos from this address. Please try again later or e-mail them.",
    });
    expect(Number(limited.headers["retry-after"])).toBeGreaterThan(0);
    expect((await ctx.upload(await makeImage("jpeg"), "ok.jpg", "198.51.100.9")).status).toBe(201);
  });
});
