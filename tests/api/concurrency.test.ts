import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { seedDemoGallery } from "~/galleries/demo-images.server";
import { createManualClock } from "~/lib/clock";
import { pruneStaleUploads } from "~/uploads/uploads.server";
import { makeImage } from "../fixtures/images";
import { newUploadUrl, registerImage } from "../support/gallery-api";
import { createAdminContext, type AdminContext } from "./helpers";

// Races, run at once through the API (so they hold on PostgreSQL too). Where two
// outcomes are possible, the interleaving is set by pausing one request at a
// known point (pauseNextCall), so each test proves the one outcome its name says.

let ctx: AdminContext;
// Uploads through this server (PUT to its signed URL), so local disk; the database is this run's
// (SQLite, or PostgreSQL with TEST_BACKEND=postgres-s3). Races through the bucket: concurrency-instances.test.ts.
beforeEach(async () => {
  ctx = await createAdminContext({}, { storage: "disk" });
});
afterEach(async () => {
  await ctx.close();
});

async function completedUpload(width = 64): Promise<string> {
  const url = await newUploadUrl(ctx);
  await ctx.admin
    .put(url)
    .set("Content-Type", "image/jpeg")
    .send(await makeImage("jpeg", { width, height: 48 }))
    .expect(200);
  return url;
}

/** The ids of the stored originals. */
async function originals(): Promise<string[]> {
  return (await ctx.storedKeys("originals/")).map((key) => key.slice("originals/".length));
}

/**
 * Holds the next call of `object[method]` (a real service's method, which then runs as usual)
 * until `release()`; `reached` resolves once the call has begun.
 */
function pauseNextCall<T extends object, K extends keyof T>(object: T, method: K) {
  const original = object[method] as (...args: unknown[]) => Promise<unknown>;
  let reachedNow!: () => void;
  const reached = new Promise<void>((resolve) => (reachedNow = resolve));
  let release!: () => void;
  const released = new Promise<void>((resolve) => (release = resolve));
  object[method] = (async (...args: unknown[]) => {
    object[method] = original as T[K];
    reachedNow();
    await released;
    return original.apply(object, args);
  }) as T[K];
  return { reached, release };
}

async function galleryOrders(galleryType: string) {
  const res = await ctx.api.get(`/api/galleries/${galleryType}`).expect(200);
  return (res.body as { id: string; sortOrder: number }[]).map((image) => ({
    id: image.id,
    sortOrder: image.sortOrder,
  }));
}

describe("races", () => {
  it("two PUTs to one upload URL: exactly one succeeds, and one file is kept", async () => {
    const url = await newUploadUrl(ctx);
    const [a, b] = await Promise.all([
      ctx.admin
        .put(url)
        .set("Content-Type", "image/jpeg")
        .send(await makeImage("jpeg", { width: 80 })),
      ctx.admin
        .put(url)
        .set("Content-Type", "image/jpeg")
        .send(await makeImage("jpeg", { width: 90 })),
    ]);
    expect([a.status, b.status].sort()).toEqual([200, 403]);
    expect([a, b].find((r) => r.status === 403)!.body.message).toMatch(/already been used/);
    expect(await originals()).toHaveLength(1);
    await registerImage(ctx, url).expect(201);
  });

  it("two registrations of one upload: exactly one image is created", async () => {
    const url = await completedUpload();
    const [a, b] = await Promise.all([registerImage(ctx, url), registerImage(ctx, url, { galleryType: "veneer" })]);
    expect([a.status, b.status].sort()).toEqual([201, 400]);
    const created = [a, b].find((r) => r.status === 201)!.body as { galleryType: string };
    expect(await galleryOrders(created.galleryType)).toHaveLength(1);
    expect(await galleryOrders(created.galleryType === "traditional" ? "veneer" : "traditional")).toEqual([]);
    // The winner's original is kept.
    expect(await originals()).toHaveLength(1);
  });

  it("five uploads added to one gallery at once get the orders 0..4", async () => {
    const urls = await Promise.all([0, 1, 2, 3, 4].map((i) => completedUpload(40 + i)));
    const results = await Promise.all(urls.map((url) => registerImage(ctx, url, { galleryType: "landscaping" })));
    expect(results.map((r) => r.status)).toEqual([201, 201, 201, 201, 201]);
    expect(results.map((r) => (r.body as { sortOrder: number }).sortOrder).sort()).toEqual([0, 1, 2, 3, 4]);
    const listed = await galleryOrders("landscaping");
    expect(listed.map((image) => image.sortOrder)).toEqual([0, 1, 2, 3, 4]);
    expect(new Set(listed.map((image) => image.id)).size).toBe(5);
  });

  it("a reorder that commits while an add is being processed: the new image goes to the end of the new order", async () => {
    const seeded = (await seedDemoGallery(ctx.services, "veneer", 3, { width: 300, height: 200 })).map(
      (image) => image.id,
    );
    const url = await completedUpload();
    const reversed = [...seeded].reverse();
    // The add has claimed its upload and is making the variants when the reorder comes in.
    const processing = pauseNextCall(ctx.services.images, "process");
    const adding = registerImage(ctx, url, { galleryType: "veneer" }).then((res) => res);
    await processing.reached;
    const reorder = await ctx.admin
      .put("/api/admin/gallery-images/reorder")
      .send({ galleryType: "veneer", imageIds: reversed });
    processing.release();
    const add = await adding;
    expect([reorder.status, add.status]).toEqual([200, 201]);
    const added = (add.body as { id: string }).id;
    expect(await galleryOrders("veneer")).toEqual([...reversed, added].map((id, sortOrder) => ({ id, sortOrder })));
  });

  it("a reorder sent before an add committed, arriving after: refused whole, and the order stays 0..n-1", async () => {
    const seeded = (await seedDemoGallery(ctx.services, "veneer", 3, { width: 300, height: 200 })).map(
      (image) => image.id,
    );
    const url = await completedUpload();
    // The admin's page listed three images; another tab adds a fourth before the reorder lands.
    const add = await registerImage(ctx, url, { galleryType: "veneer" });
    expect(add.status).toBe(201);
    const reorder = await ctx.admin
      .put("/api/admin/gallery-images/reorder")
      .send({ galleryType: "veneer", imageIds: [...seeded].reverse() });
    expect({ status: reorder.status, body: reorder.body }).toEqual({
      status: 400,
      body: { message: "imageIds must list every image of the gallery exactly once" },
    });
    const added = (add.body as { id: string }).id;
    expect(await galleryOrders("veneer")).toEqual([...seeded, added].map((id, sortOrder) => ({ id, sortOrder })));
  });

  it("a reorder that arrives while a committed delete is still removing its files: refused whole, no gaps", async () => {
    const seeded = (await seedDemoGallery(ctx.services, "homepage", 4, { width: 300, height: 200 })).map(
      (image) => image.id,
    );
    // The delete has committed and is removing the image's files when the reorder comes in.
    const removingFiles = pauseNextCall(ctx.services.storage, "delete");
    const deleting = ctx.admin.delete(`/api/admin/gallery-images/${seeded[1]}`).then((res) => res);
    await removingFiles.reached;
    const reorder = await ctx.admin
      .put("/api/admin/gallery-images/reorder")
      .send({ galleryType: "homepage", imageIds: [...seeded].reverse() });
    removingFiles.release();
    expect((await deleting).status).toBe(204);
    expect({ status: reorder.status, body: reorder.body }).toEqual({
      status: 400,
      body: { message: "imageIds must list every image of the gallery exactly once" },
    });
    const survivors = seeded.filter((id) => id !== seeded[1]);
    expect(await galleryOrders("homepage")).toEqual(survivors.map((id, sortOrder) => ({ id, sortOrder })));
  });

  it("a delete after a reorder committed: the gap in the new order is closed", async () => {
    const seeded = (await seedDemoGallery(ctx.services, "homepage", 4, { width: 300, height: 200 })).map(
      (image) => image.id,
    );
    const reversed = [...seeded].reverse();
    await ctx.admin
      .put("/api/admin/gallery-images/reorder")
      .send({ galleryType: "homepage", imageIds: reversed })
      .expect(200);
    await ctx.admin.delete(`/api/admin/gallery-images/${seeded[1]}`).expect(204);
    const survivors = reversed.filter((id) => id !== seeded[1]);
    expect(await galleryOrders("homepage")).toEqual(survivors.map((id, sortOrder) => ({ id, sortOrder })));
  });

  it("concurrent deletes of images in one gallery close every gap", async () => {
    const seeded = (await seedDemoGallery(ctx.services, "traditional", 5, { width: 300, height: 200 })).map(
      (image) => image.id,
    );
    const results = await Promise.all(
      [seeded[0], seeded[2], seeded[4]].map((id) => ctx.admin.delete(`/api/admin/gallery-images/${id}`)),
    );
    expect(results.map((r) => r.status)).toEqual([204, 204, 204]);
    expect(await galleryOrders("traditional")).toEqual([
      { id: seeded[1], sortOrder: 0 },
      { id: seeded[3], sortOrder: 1 },
    ]);
  });
});

describe("pruning stale uploads (the clock injected)", () => {
  async function uploadStatuses() {
    const rows = await ctx.services.db.selectFrom("uploads").select(["id", "status"]).execute();
    return Object.fromEntries(rows.map((row) => [row.id, row.status]));
  }
  const idOf = (url: string) => new URL(url, "http://x").pathname.split("/").pop()!;

  it("forgets unused URLs an hour after they expire and deletes originals never added after a day; keeps what is in use", async () => {
    const unused = await newUploadUrl(ctx);
    const completed = await completedUpload();
    const used = await completedUpload(70);
    await registerImage(ctx, used).expect(201);
    const clock = createManualClock(Date.now());

    expect(await pruneStaleUploads(ctx.services, clock)).toBe(0);
    // Expired, but a slow PUT may still be arriving: kept for an hour's grace.
    clock.advance(16 * 60 * 1000);
    expect(await pruneStaleUploads(ctx.services, clock)).toBe(0);
    clock.advance(60 * 60 * 1000);
    // The unused URL and the used ticket are forgotten; the used upload's original stays (an image refers to it).
    expect(await pruneStaleUploads(ctx.services, clock)).toBe(2);
    expect(await uploadStatuses()).toEqual({ [idOf(completed)]: "completed" });
    expect((await originals()).sort()).toEqual([idOf(completed), idOf(used)].sort());
    expect(Object.keys(await uploadStatuses())).not.toContain(idOf(unused));

    clock.advance(24 * 60 * 60 * 1000);
    expect(await pruneStaleUploads(ctx.services, clock)).toBe(1);
    expect(await uploadStatuses()).toEqual({});
    expect(await originals()).toEqual([idOf(used)]);
  });

  it("the owner adds a day-old upload while housekeeping is deleting it: refused, and nothing of it is left", async () => {
    const url = await completedUpload();
    const clock = createManualClock(Date.now() + 25 * 60 * 60 * 1000);
    // Housekeeping has claimed the upload and is deleting its file when the owner's request comes in.
    const deletingFile = pauseNextCall(ctx.services.storage, "delete");
    const pruning = pruneStaleUploads(ctx.services, clock);
    await deletingFile.reached;
    const added = await registerImage(ctx, url, { galleryType: "veneer" });
    deletingFile.release();
    expect(await pruning).toBe(1);

    expect({ status: added.status, body: added.body }).toEqual({ status: 400, body: { message: expect.any(String) } });
    const id = idOf(url);
    expect((await uploadStatuses())[id]).toBeUndefined();
    expect(await originals()).not.toContain(id);
    expect(await galleryOrders("veneer")).toEqual([]);
  });

  it("an upload the owner added before housekeeping ran keeps its original", async () => {
    const url = await completedUpload();
    const added = await registerImage(ctx, url, { galleryType: "veneer" });
    expect(added.status).toBe(201);
    const clock = createManualClock(Date.now() + 25 * 60 * 60 * 1000);
    // Its expired ticket is forgotten; the file a gallery image refers to stays.
    expect(await pruneStaleUploads(ctx.services, clock)).toBe(1);
    const id = idOf(url);
    expect((await uploadStatuses())[id]).toBeUndefined();
    expect(await originals()).toEqual([id]);
    expect(await galleryOrders("veneer")).toEqual([{ id: (added.body as { id: string }).id, sortOrder: 0 }]);
  });

  it("finishes an upload a crash left half-pruned", async () => {
    const url = await completedUpload();
    await ctx.services.db.updateTable("uploads").set({ status: "pruning" }).where("id", "=", idOf(url)).execute();
    expect(await pruneStaleUploads(ctx.services, createManualClock(Date.now()))).toBe(1);
    expect(await uploadStatuses()).toEqual({});
    expect(await originals()).toEqual([]);
  });
});
