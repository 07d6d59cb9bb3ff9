import { randomBytes } from "node:crypto";
import fs from "node:fs/promises";
import sharp from "sharp";
import { afterEach, describe, expect, it } from "vitest";
import { submissionFromRow } from "~/notifications/enquiry-fields";
import type { InboxItem } from "~/contact/inbox";
import { enquiryMail } from "~/notifications/enquiry-mails.server";
import { openEnquiryPhotoAttachments } from "~/notifications/enquiry-photo-attachments.server";
import { HOURLY_CAP, hourStartOf } from "~/notifications/outbox-digest.server";
import { makeImage } from "../fixtures/images";
import { startSmtpServer, type TestSmtpServer } from "../support/smtp";
import { NOTIFY_EMAIL, SITE_URL, createMailContext, type MailContext } from "./mail-helpers";

/**
 * An enquiry's photos reach the owner's mailbox as
 * attachments (a real SMTP server receives them), a digest links to the inbox
 * instead, and the CSV export counts them. The photos go in through the real
 * API and image worker.
 */

/** What each test started, stopped after it (last started, first stopped). */
const started: (() => Promise<void>)[] = [];
afterEach(async () => {
  for (const stop of started.splice(0).reverse()) await stop();
});

async function setUp(): Promise<{ smtp: TestSmtpServer; ctx: MailContext }> {
  const smtp = await startSmtpServer();
  started.push(() => smtp.stop());
  const ctx = await createMailContext({ smtpUrl: smtp.url, imageWorker: true });
  started.push(() => ctx.close());
  return { smtp, ctx };
}

/** A camera-sized JPEG of noise: it compresses badly, so its viewing copy has to work to fit 300 KB. */
async function noisyPhoto(width: number, height: number): Promise<Buffer> {
  return sharp(randomBytes(width * height * 3), { raw: { width, height, channels: 3 } })
    .jpeg({ quality: 92 })
    .toBuffer();
}

/** POST /api/enquiry-photos: the photo's token. */
async function photoToken(context: MailContext, photo: Buffer, name: string): Promise<string> {
  const res = await context.api
    .post("/api/enquiry-photos")
    .attach("photos", photo, { filename: name, contentType: "image/jpeg" });
  expect(res.status, JSON.stringify(res.body)).toBe(201);
  return (res.body as { token: string }).token;
}

/** POST /api/contact with the tokens: its answer (the same name sends the same enquiry again). */
async function contact(context: MailContext, name: string, photoTokens: string[]) {
  const res = await context.api
    .post("/api/contact")
    .send({ name, email: "visitor@example.com", message: "Could you quote for this wall, please?", photoTokens });
  expect(res.status, JSON.stringify(res.body)).toBe(201);
  return res.body as { id: string; photos: { attached: number; notAttached: number; notTaken: boolean } };
}

/** POST /api/enquiry-photos for each photo, then POST /api/contact with the tokens, from one address. */
async function enquireWithPhotos(context: MailContext, name: string, photos: Buffer[]): Promise<string> {
  const photoTokens: string[] = [];
  for (const [i, photo] of photos.entries()) photoTokens.push(await photoToken(context, photo, `wall-${i + 1}.jpg`));
  const { id, photos: outcome } = await contact(context, name, photoTokens);
  expect(outcome).toEqual({ attached: photos.length, notAttached: 0, notTaken: false });
  return id;
}

describe("the enquiry e-mail", () => {
  it(
    "carries the enquiry's photos as JPEG attachments of at most 300 KB each, and says how many",
    { timeout: 120_000 },
    async () => {
      const { smtp, ctx } = await setUp();
      await enquireWithPhotos(ctx, "Aroha", [await noisyPhoto(2400, 1800), await noisyPhoto(1500, 2000)]);
      expect(await ctx.outbox.runDue()).toMatchObject({ sent: 1, failed: 0, retrying: 0 });

      const [mail] = await smtp.waitForMessages(1);
      expect(mail!.subject).toBe("New enquiry from Aroha");
      expect(mail!.text).toContain("2 photos are attached.");
      expect(mail!.attachments.map(({ filename, contentType }) => ({ filename, contentType }))).toEqual([
        { filename: "enquiry-photo-1.jpg", contentType: "image/jpeg" },
        { filename: "enquiry-photo-2.jpg", contentType: "image/jpeg" },
      ]);
      const sizes = [];
      for (const attachment of mail!.attachments) {
        expect(attachment.content.length).toBeLessThanOrEqual(300 * 1024);
        const meta = await sharp(attachment.content).metadata();
        expect(meta.format).toBe("jpeg");
        sizes.push([meta.width, meta.height]);
      }
      // The viewing copies the inbox shows, in the order the visitor chose them: at most 1600 px, their shape kept
      // (noise this big only fits 300 KB smaller still).
      const [item] = (await ctx.admin.get("/api/admin/contact-submissions").expect(200)).body as {
        photos: { width: number; height: number }[];
      }[];
      expect(sizes).toEqual(item!.photos.map(({ width, height }) => [width, height]));
      const [landscape, portrait] = sizes as [number[], number[]];
      expect(Math.max(...landscape, ...portrait)).toBeLessThanOrEqual(1600);
      expect(landscape[0]! / landscape[1]!).toBeCloseTo(4 / 3, 1);
      expect(portrait[0]! / portrait[1]!).toBeCloseTo(3 / 4, 1);
    },
  );

  it("still goes when a photo can no longer be read, without it, and says so", { timeout: 120_000 }, async () => {
    const { smtp, ctx } = await setUp();
    const id = await enquireWithPhotos(ctx, "Hemi", [await noisyPhoto(800, 600), await noisyPhoto(600, 800)]);
    // The first photo's viewing copy is gone from the store by the time the e-mail goes.
    const { view_key: viewKey } = await ctx.services.db
      .selectFrom("enquiry_photos")
      .select("view_key")
      .where("submission_id", "=", id)
      .where("position", "=", 1)
      .executeTakeFirstOrThrow();
    await ctx.services.storage.delete(viewKey!);

    expect(await ctx.outbox.runDue()).toMatchObject({ sent: 1, failed: 0, retrying: 0 });
    const [mail] = await smtp.waitForMessages(1);
    expect(mail!.attachments.map((attachment) => attachment.filename)).toEqual(["enquiry-photo-2.jpg"]);
    expect(mail!.text).toContain(
      "1 photo is attached.\nCould not attach 1 photo (it could not be read; it may have been deleted).",
    );
  });
});

describe("photos sent that are not with the enquiry", () => {
  it("the e-mail and the inbox say how many could not be attached", { timeout: 120_000 }, async () => {
    const { smtp, ctx } = await setUp();
    const token = await photoToken(ctx, await makeImage("jpeg"), "wall.jpg");
    const { id, photos } = await contact(ctx, "Wiremu", [token, "expired-or-made-up"]);
    expect(photos).toEqual({ attached: 1, notAttached: 1, notTaken: false });
    expect(await ctx.outbox.runDue()).toMatchObject({ sent: 1 });
    const [mail] = await smtp.waitForMessages(1);
    expect(mail!.text).toContain("1 photo is attached.\n1 photo could not be attached.");
    expect(mail!.html).toContain("1 photo could not be attached.");
    const [item] = (await ctx.admin.get("/api/admin/contact-submissions").expect(200)).body as InboxItem[];
    expect(item).toMatchObject({ id, photosNotAttached: 1 });
  });
});

describe("the same enquiry sent again with more photos", () => {
  it(
    "adds them to the first, up to 5; its mail gone, the owner gets a short mail with each repeat's",
    { timeout: 180_000 },
    async () => {
      const { smtp, ctx } = await setUp();
      const photo = await makeImage("jpeg");
      const [a, b, c, d, e, f] = await Promise.all(
        ["a", "b", "c", "d", "e", "f"].map((name) => photoToken(ctx, photo, `${name}.jpg`)),
      );
      const first = await contact(ctx, "Aroha", [a!]);
      expect(await ctx.outbox.runDue()).toMatchObject({ sent: 1 });

      // Sent again (an answer lost on a weak signal) with the first photo and two more.
      const again = await contact(ctx, "Aroha", [a!, b!, c!]);
      expect(again).toMatchObject({ id: first.id, photos: { attached: 3, notAttached: 0, notTaken: false } });
      expect(await ctx.outbox.runDue()).toMatchObject({ sent: 1 });
      // Past 5 in all: the answer says how many did not go.
      const third = await contact(ctx, "Aroha", [d!, e!, f!]);
      expect(third).toMatchObject({ id: first.id, photos: { attached: 2, notAttached: 1, notTaken: false } });
      expect(await ctx.outbox.runDue()).toMatchObject({ sent: 1 });

      const [, more, most] = await smtp.waitForMessages(3);
      expect(more!.subject).toBe("2 more photos from Aroha");
      expect(more!.header("reply-to")).toBe("Aroha <visitor@example.com>");
      expect(more!.attachments.map((attachment) => attachment.filename)).toEqual([
        "enquiry-photo-2.jpg",
        "enquiry-photo-3.jpg",
      ]);
      expect(most!.subject).toBe("2 more photos from Aroha");
      expect(most!.attachments.map((attachment) => attachment.filename)).toEqual([
        "enquiry-photo-4.jpg",
        "enquiry-photo-5.jpg",
      ]);
      expect(most!.text).toContain("2 photos are attached.\n1 photo could not be attached.");
      // One enquiry in the inbox, with all five.
      const items = (await ctx.admin.get("/api/admin/contact-submissions").expect(200)).body as InboxItem[];
      expect(items.map((item) => [item.id, item.photos.map(({ n }) => n), item.photosNotAttached])).toEqual([
        [first.id, [1, 2, 3, 4, 5], 1],
      ]);
    },
  );

  it("before the first mail has gone, that mail carries them: no second mail", { timeout: 120_000 }, async () => {
    const { smtp, ctx } = await setUp();
    const photo = await makeImage("jpeg");
    await contact(ctx, "Hine", [await photoToken(ctx, photo, "a.jpg")]);
    await contact(ctx, "Hine", [await photoToken(ctx, photo, "b.jpg")]);
    expect(await ctx.outbox.runDue()).toMatchObject({ sent: 1 });
    const [mail] = await smtp.waitForMessages(1);
    expect(mail!.subject).toBe("New enquiry from Hine");
    expect(mail!.attachments).toHaveLength(2);
    expect(await ctx.services.db.selectFrom("notification_jobs").select("kind").execute()).toEqual([
      { kind: "enquiry" },
    ]);
  });
});

describe("the photos' streams", () => {
  it(
    "are all let go after a send that failed (SMTP down), and the retry attaches them",
    { timeout: 120_000 },
    async () => {
      const { smtp, ctx } = await setUp();
      await enquireWithPhotos(ctx, "Rawiri", [await noisyPhoto(800, 600), await noisyPhoto(600, 800)]);
      await smtp.stop();
      expect(await ctx.outbox.runDue()).toMatchObject({ sent: 0, retrying: 1 });
      // On disk, an unread stream holds a file handle open (a bucket holds a connection instead).
      await expect.poll(openPhotoFiles).toEqual([]);

      await smtp.start();
      ctx.clock.advance(60_000);
      expect(await ctx.outbox.runDue()).toMatchObject({ sent: 1 });
      const [mail] = await smtp.waitForMessages(1);
      expect(mail!.attachments).toHaveLength(2);
      await expect.poll(openPhotoFiles).toEqual([]);
    },
  );

  it(
    "that fail before the mailer reads them fail that send, never the process; the others are let go",
    { timeout: 120_000 },
    async () => {
      const { ctx } = await setUp();
      const id = await enquireWithPhotos(ctx, "Tane", [await noisyPhoto(800, 600), await noisyPhoto(600, 800)]);
      const opened = await openEnquiryPhotoAttachments(ctx.services, id);
      expect(opened.attachments).toHaveLength(2);
      try {
        // As an S3 connection reset while the SMTP server is still greeting us: an unheard error would crash the server.
        const failing = opened.attachments[0]!.content;
        failing.destroy(new Error("connection reset"));
        // 'close' comes after 'error': by then an unheard error would have been thrown.
        await new Promise((resolve) => failing.on("close", resolve));
        const enquiry = submissionFromRow(
          await ctx.services.db
            .selectFrom("contact_submissions")
            .selectAll()
            .where("id", "=", id)
            .executeTakeFirstOrThrow(),
        );
        const mail = enquiryMail(
          { from: ctx.services.mail!.from, to: NOTIFY_EMAIL, siteUrl: SITE_URL },
          enquiry,
          "<tane@example.nz>",
          opened,
        );
        await expect(ctx.services.mail!.mailer.send(mail)).rejects.toThrow("connection reset");
      } finally {
        opened.close();
      }
      await expect.poll(openPhotoFiles).toEqual([]);
    },
  );

  it("are let go when the mail adapter refuses a mail before reading them", { timeout: 120_000 }, async () => {
    const { ctx } = await setUp();
    const id = await enquireWithPhotos(ctx, "Nikau", [await noisyPhoto(800, 600), await noisyPhoto(600, 800)]);
    const opened = await openEnquiryPhotoAttachments(ctx.services, id);
    const enquiry = submissionFromRow(
      await ctx.services.db
        .selectFrom("contact_submissions")
        .selectAll()
        .where("id", "=", id)
        .executeTakeFirstOrThrow(),
    );
    // Refused before nodemailer sees it: nothing else would ever read or close these streams.
    const mail = enquiryMail(
      { from: ctx.services.mail!.from, to: "not an address", siteUrl: SITE_URL },
      enquiry,
      "<nikau@example.nz>",
      opened,
    );
    await expect(ctx.services.mail!.mailer.send(mail)).rejects.toThrow("Not a valid recipient address");
    opened.close();
    await expect.poll(openPhotoFiles).toEqual([]);
  });
});

/** This process's open files under an enquiry-photos/ directory (Linux). */
async function openPhotoFiles(): Promise<string[]> {
  const links = await Promise.all(
    (await fs.readdir("/proc/self/fd")).map((fd) => fs.readlink(`/proc/self/fd/${fd}`).catch(() => "")),
  );
  return links.filter((link) => link.includes("enquiry-photos"));
}

describe("the hourly digest", () => {
  it("carries no photos and sends the owner to the inbox for them", { timeout: 120_000 }, async () => {
    const { smtp, ctx } = await setUp();
    // This hour's allowance is used up: the enquiry waits for the hour's digest.
    await ctx.services.db
      .insertInto("notification_hourly_sends")
      .values({ hour: hourStartOf(ctx.clock.now()).toISOString(), sends: HOURLY_CAP })
      .execute();
    await enquireWithPhotos(ctx, "Mere", [
      await noisyPhoto(800, 600),
      await noisyPhoto(800, 600),
      await noisyPhoto(600, 800),
    ]);
    expect(await ctx.outbox.runDue()).toMatchObject({ sent: 0, held: 1 });

    ctx.clock.set("2026-02-28T21:00:00.000Z");
    expect(await ctx.outbox.runDue()).toMatchObject({ sent: 1 });
    const [digest] = await smtp.waitForMessages(1);
    expect(digest!.subject).toBe("1 more enquiry from the website");
    expect(digest!.attachments).toEqual([]);
    expect(digest!.text).toContain(`3 photos: see them in the inbox: ${SITE_URL}/admin?view=submissions`);
    expect(digest!.html).toContain(`href="${SITE_URL}/admin?view=submissions">3 photos: see them in the inbox`);
  });
});

describe("the CSV export", () => {
  it("counts each enquiry's photos in its last column, Photos", { timeout: 120_000 }, async () => {
    const { ctx } = await setUp();
    await enquireWithPhotos(ctx, "Tama", [await noisyPhoto(800, 600), await noisyPhoto(600, 800)]);
    ctx.clock.advance(60_000);
    await ctx.enquire({ name: "Ana" });
    const res = await ctx.admin.get("/api/admin/contact-submissions/export.csv").expect(200);
    const lines = (res.text as string)
      .replace(/^\uFEFF/, "")
      .trimEnd()
      .split("\r\n");
    expect(lines[0]).toBe("Received,Name,Email,Phone,Message,Read,Notification,Photos");
    expect(lines.slice(1).map((line) => [line.split(",")[1], line.split(",").at(-1)])).toEqual([
      ["Ana", "0"],
      ["Tama", "2"],
    ]);
  });
});
