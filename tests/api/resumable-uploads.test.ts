/**
 * A photo that survives a dropped signal (decision 0062), on this run's back
 * end: the disk (the site's own part route, 1 MiB parts) or a bucket behind
 * the verifying front (presigned parts, 5 MiB). The admin page's own client
 * sends a 16 MiB photo through a link that is cut once 60 % of it has gone
 * through, and comes back 10 s later on the client's retry clock.
 */
import { createHash } from "node:crypto";
import { afterEach, describe, expect, it } from "vitest";
import { inject } from "vitest";
import { sendInParts } from "~/admin/galleries/resumable-upload";
import { originalKeyFor } from "~/uploads/uploads.server";
import { createCuttingLink, type CuttingLink } from "../support/cutting-link";
import { makeJpegOfSize } from "../fixtures/images";
import { createAdminContext, defaultBackend, type AdminContext } from "./helpers";
import { listen, manualRetrySchedule, pageTransport, partNumberOf, sessionCookie } from "./resumable-helpers";

const PHOTO_BYTES = 16 * 1024 * 1024;
const sha256 = (data: Buffer) => createHash("sha256").update(data).digest("hex");

let ctx: AdminContext | undefined;
let link: CuttingLink | undefined;
let site: { origin: string; close(): Promise<void> } | undefined;
afterEach(async () => {
  await link?.stop();
  await site?.close();
  await ctx?.close();
  ctx = link = site = undefined;
});

/** A site whose every connection, to itself and to its bucket, goes through one link that the test cuts. */
async function siteBehindLink() {
  link = createCuttingLink();
  const storage = defaultBackend().storage;
  // The bucket's endpoint is the link's proxy: presigned part URLs go through the link too.
  const bucketEndpoint = storage === "s3" ? await link.proxy(inject("backends").s3Endpoint) : null;
  ctx = await createAdminContext({}, { s3Endpoint: bucketEndpoint ?? undefined });
  site = await listen(ctx.app);
  const origin = await link.proxy(site.origin);
  return { link, ctx, origin, cookie: await sessionCookie(origin) };
}

describe("a photo sent in parts over a connection that drops", () => {
  it("resumes from the last confirmed part when the signal returns: the upload completes, at most one part is sent twice", async () => {
    const { link, ctx, origin, cookie } = await siteBehindLink();
    const photo = await makeJpegOfSize(PHOTO_BYTES);
    const retries = manualRetrySchedule();
    const connection: string[] = [];
    let highestProgress = 0;

    link.cutAfterBodyBytes(Math.round(PHOTO_BYTES * 0.6));
    const sending = sendInParts({
      file: new Blob([new Uint8Array(photo)], { type: "image/jpeg" }),
      ...pageTransport(origin, cookie),
      waitToRetry: retries.waitToRetry,
      now: () => Date.now() + retries.now(),
      onConnection: (state) => connection.push(state),
      onProgress: (sent) => (highestProgress = Math.max(highestProgress, sent)),
    });
    // The client failing (instead of waiting for the signal) ends the test with its own error at once.
    let failure: unknown;
    sending.catch((error: unknown) => (failure = error));
    /** Until the client waits for its next try (on the retry clock); its failure, if it fails instead, at once. */
    const waitingToRetry = async () => {
      for (let polls = 0; polls < 4000; polls++) {
        if (failure) throw new Error(`The upload failed instead of waiting for the signal: ${String(failure)}`);
        if (retries.pending === 1) return;
        await new Promise((resolve) => setTimeout(resolve, 5));
      }
      throw new Error("The client neither waited for the signal nor failed");
    };

    await link.cutDone;
    const sentBeforeCut = link.bodyBytes;
    expect(sentBeforeCut).toBeGreaterThanOrEqual(PHOTO_BYTES * 0.6);
    expect(sentBeforeCut).toBeLessThan(PHOTO_BYTES);
    // Ten seconds without a signal, on the retry clock: every try meanwhile finds the link down.
    for (let second = 1; second <= 10; second++) {
      await waitingToRetry();
      retries.advance(1000);
    }
    await waitingToRetry();
    expect(connection).toEqual(["lost"]);
    link.restore();
    // The next try, on its own schedule, finds the signal back: nobody presses anything.
    retries.advance(retries.nextAt - retries.now());
    const { imageURL } = await sending;

    expect(connection).toEqual(["lost", "up"]);
    expect(highestProgress).toBe(PHOTO_BYTES);
    expect(retries.waits.length).toBeGreaterThanOrEqual(4);

    // Every part went through once, but the one in flight when the signal dropped.
    const partCount = Math.ceil(PHOTO_BYTES / ctx.services.storage.parts.partBytes);
    const sends = new Map<number, number>();
    for (const request of link.requests) {
      const partNumber = partNumberOf(request);
      if (partNumber !== null) sends.set(partNumber, (sends.get(partNumber) ?? 0) + 1);
    }
    expect([...sends.keys()].sort((a, b) => a - b)).toEqual(Array.from({ length: partCount }, (_, i) => i + 1));
    const twice = [...sends].filter(([, count]) => count > 1);
    expect(twice).toHaveLength(1);
    expect(twice[0]![1]).toBe(2);
    // In bytes: the photo once, and at most one part again (the JSON calls are a few hundred bytes).
    expect(link.bodyBytes).toBeLessThan(PHOTO_BYTES + ctx.services.storage.parts.partBytes + 64 * 1024);
    // The part sent twice is the one that was crossing 60 %.
    expect(twice[0]![0]).toBe(Math.floor((PHOTO_BYTES * 0.6) / ctx.services.storage.parts.partBytes) + 1);

    // Registered as any upload: one image, and its original is the photo as sent, byte for byte.
    const image = await ctx.admin
      .put("/api/admin/gallery-images")
      .send({ imageURL, galleryType: "veneer", caption: "Resumed" })
      .expect(201);
    const uploadId = (await ctx.services.db.selectFrom("uploads").select("id").executeTakeFirstOrThrow()).id;
    const original = await ctx.services.storage.read(originalKeyFor(uploadId));
    const chunks: Buffer[] = [];
    for await (const chunk of original!.stream) chunks.push(chunk as Buffer);
    expect(sha256(Buffer.concat(chunks))).toBe(sha256(photo));
    expect(image.body).toMatchObject({ caption: "Resumed", galleryType: "veneer" });
    // Nothing left of the parts.
    expect(await ctx.storedKeys("incoming/")).toEqual([]);
    await ctx.admin.put("/api/admin/gallery-images").send({ imageURL, galleryType: "veneer" }).expect(400);
  });
});
