import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { createGalleryImage, listGalleryImages } from "~/galleries/galleries.server";
import { processImage } from "~/images/image-pipeline.server";
import type { Clock } from "~/lib/clock";
import { claimCompletedUpload, claimDirectUpload, pruneStaleUploads } from "~/uploads/uploads.server";
import { makeImage } from "../fixtures/images";
import { newUploadUrl } from "../support/gallery-api";
import { createAdminContext, putUpload, type AdminContext } from "./helpers";

// pruneStaleUploads on this run's back end: nothing half-done stays, nothing in use goes.
let ctx: AdminContext;
beforeEach(async () => {
  ctx = await createAdminContext();
});
afterEach(async () => {
  await ctx.close();
});

const HOUR = 60 * 60 * 1000;
/** A clock standing `ms` after now. */
const later = (ms: number): Clock => ({ now: () => new Date(Date.now() + ms) });

/** An upload URL with a photo PUT to it, as the admin page leaves it just before registering. */
async function uploaded(): Promise<{ url: string; id: string }> {
  const uploadURL = await newUploadUrl(ctx);
  expect((await putUpload(ctx, uploadURL, await makeImage("jpeg", { width: 120, height: 90 }))).status).toBe(200);
  const { id } = await ctx.services.db
    .selectFrom("uploads")
    .select("id")
    .orderBy("created_at", "desc")
    .executeTakeFirstOrThrow();
  return { url: uploadURL, id };
}

/** What an instance does when it claims an upload, before it processes it. */
async function claim(id: string): Promise<string> {
  if (ctx.services.storage.uploadMode === "direct") {
    const result = await claimDirectUpload(ctx.services, id);
    if (result.status !== "claimed") throw new Error(result.status);
    return result.originalKey;
  }
  return (await claimCompletedUpload(ctx.services, id))!;
}

const stored = async () => [...(await ctx.storedKeys("incoming/")), ...(await ctx.storedKeys("originals/"))];
const tickets = () => ctx.services.db.selectFrom("uploads").select(["id", "status"]).execute();

describe("pruning stale uploads", () => {
  it("keeps an upload never registered for a while, then forgets it and deletes its file", async () => {
    await uploaded();
    expect(await pruneStaleUploads(ctx.services, later(15 * 60_000 + 30 * 60_000))).toBe(0);
    expect(await stored()).toHaveLength(1);
    // Bucket: an hour after its URL expired (a slow PUT may still land meanwhile). Disk: a day after.
    expect(await pruneStaleUploads(ctx.services, later(25 * HOUR))).toBe(1);
    expect(await stored()).toEqual([]);
    expect(await tickets()).toEqual([]);
  });

  it("deletes the original an instance was registering when it died, a day later", async () => {
    const { id } = await uploaded();
    await claim(id);
    expect(await tickets()).toEqual([{ id, status: "registering" }]);
    expect(await pruneStaleUploads(ctx.services, later(23 * HOUR))).toBe(0);
    expect(await stored()).toHaveLength(1);
    expect(await pruneStaleUploads(ctx.services, later(25 * HOUR))).toBe(1);
    expect(await stored()).toEqual([]);
    expect(await tickets()).toEqual([]);
  });

  it("never deletes the original of an image that was stored just before its instance died", async () => {
    const { id } = await uploaded();
    const originalKey = await claim(id);
    const processed = await processImage(ctx.services.storage, originalKey);
    await createGalleryImage(ctx.services, { galleryType: "veneer", caption: "", processed, originalKey });
    // (The instance died before marking the ticket used.)
    expect(await pruneStaleUploads(ctx.services, later(25 * HOUR))).toBe(1);
    expect(await ctx.storedKeys("originals/")).toEqual([originalKey]);
    expect(await listGalleryImages(ctx.services, "veneer")).toHaveLength(1);
  });

  it("forgets a used ticket after its URL expired, keeping the image's original; the URL stays refused", async () => {
    const { url, id } = await uploaded();
    await ctx.admin.put("/api/admin/gallery-images").send({ imageURL: url, galleryType: "traditional" }).expect(201);
    expect(await tickets()).toEqual([{ id, status: "used" }]);
    expect(await pruneStaleUploads(ctx.services, later(15 * 60_000 + HOUR + 1000))).toBe(1);
    expect(await tickets()).toEqual([]);
    expect(await ctx.storedKeys("originals/")).toHaveLength(1);
    await ctx.admin.put("/api/admin/gallery-images").send({ imageURL: url, galleryType: "traditional" }).expect(400);
  });
});

describe("pruning unused URLs", () => {
  it("forgets a URL nothing was uploaded to an hour after it expired", async () => {
    await ctx.admin.post("/api/objects/upload").expect(200);
    expect(await pruneStaleUploads(ctx.services, later(15 * 60_000 + 30 * 60_000))).toBe(0);
    expect(await pruneStaleUploads(ctx.services, later(15 * 60_000 + HOUR + 1000))).toBe(1);
    expect(await tickets()).toEqual([]);
  });
});
