import { Readable } from "node:stream";
import { afterEach, describe, expect, it } from "vitest";
import { makeImage } from "../fixtures/images";
import { createPhotoContext, type PhotoContext } from "./enquiry-photo-helpers";

/**
 * Visitors' photos wait behind the owner's gallery uploads in
 * the image worker, in a queue of at most 20. The worker is held still with
 * SIGSTOP (no sleeps, no timing): what waits is then known exactly.
 */

let ctx: PhotoContext;
let stoppedPid: number | null = null;
afterEach(async () => {
  if (stoppedPid) process.kill(stoppedPid, "SIGCONT");
  stoppedPid = null;
  await ctx.close();
});

describe("the image worker's queue for visitors' photos", () => {
  it("takes 20 waiting photos, refuses the next with 503 + Retry-After, and runs the owner's upload first", async () => {
    ctx = await createPhotoContext();
    const photo = await makeImage("jpeg", { width: 200, height: 150 });
    await ctx.tokenFor(photo); // the worker is running
    const { images } = ctx.services;
    stoppedPid = images.state().pid!;
    process.kill(stoppedPid, "SIGSTOP");

    // then() sends the request (supertest waits for it). From many addresses: photos waiting to be
    // sent are bounded per address.
    const upload = (i: number) => ctx.upload(photo, `p${i}.jpg`, `203.0.113.${100 + i}`).then((res) => res);
    // The first is sent to the (stopped) worker; the next 20 wait.
    const sent = [upload(0)];
    await expect.poll(async () => (await ctx.photoRows()).length, { interval: 5, timeout: 20_000 }).toBe(2);
    for (let i = 1; i <= 20; i++) sent.push(upload(i));
    await expect.poll(() => images.state().waiting.visitor, { interval: 5, timeout: 20_000 }).toBe(20);

    const refused = await ctx.upload(photo, "one too many.jpg", "198.51.100.1");
    expect(refused.status).toBe(503);
    expect(refused.body).toEqual({ message: "Too many photos are being processed. Please try again in a minute." });
    expect(refused.headers["retry-after"]).toBe("60");

    // The owner's gallery upload, queued after all of them, runs next.
    await ctx.services.storage.write(
      "originals/owner-upload",
      Readable.from([await makeImage("jpeg", { width: 640, height: 480 })]),
    );
    // When it is done, the visitors' photos behind it have not started (at most the next one has).
    const owner = images.process("originals/owner-upload").then(() => images.state().waiting.visitor);
    expect(images.state().waiting).toEqual({ owner: 1, visitor: 20 });

    process.kill(stoppedPid, "SIGCONT");
    stoppedPid = null;
    expect(await owner).toBeGreaterThanOrEqual(19);
    const answers = await Promise.all(sent);
    expect(answers.map((res) => res.status)).toEqual(Array(21).fill(201));
    // Nothing of the refused photo is left.
    expect(await ctx.photoRows()).toHaveLength(22);
  });
});
