import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { seedDemoGallery } from "~/galleries/demo-images.server";
import { createManualClock } from "~/lib/clock";
import { pruneStaleUploads } from "~/uploads/uploads.server";
import { makeImage } from "../fixtures/images";
import { createAdminContext, type AdminContext } from "./helpers";

// Races, run at once through the API (so they hold on PostgreSQL too): each
// asserts what must be true whichever request the database serves first.

let ctx: AdminContext;
// Uploads through this server (PUT to its signed URL), so local disk; the database is this run's
// (SQLite, or PostgreSQL with TEST_BACKEND=postgres-s3). Races through the bucket: concurrency-instances.test.ts.
beforeEach(async () => {
  ctx = await createAdminContext({}, { storage: "disk" });
});
afterEach(async () => {
  await ctx.close();
});

async function newUploadUrl(): Promise<string> {
  return ((await ctx.admin.post("/api/objects/upload").expect(200)).body as { uploadURL: string }).uploadURL;
}

async function completedUpload(width = 64): Promise<string> {
  const url = await newUploadUrl();
  await ctx.admin.put(url).set("Content-Type", "image/jpeg").send(await makeImage("jpeg", { width, height: 48 })).expect(200);
  return url;
}

const register = (imageURL: string, galleryType = "traditional") =>
  ctx.admin.put("/api/admin/gallery-images").send({ imageURL, galleryType, caption: "", sortOrder: "0" });

/** The ids of the stored originals. */
async function originals(): Promise<string[]> {
  return (await ctx.storedKeys("originals/")).map((key) => key.slice("originals/".length));
}

async function galleryOrders(galleryType: string) {
  const res = await ctx.api.get(`/api/galleries/${galleryType}`).expect(200);
  return (res.body as { id: string; sortOrder: number }[]).map((image) => ({ id: image.id, sortOrder: image.sortOrder }));
}

describe("races", () => {
  it("two PUTs to one upload URL: exactly one succeeds, and one file is kept", async () => {
    const url = await newUploadUrl();
    const [a, b] = await Promise.all([
      ctx.admin.put(url).set("Content-Type", "image/jpeg").send(await makeImage("jpeg", { width: 80 })),
      ctx.admin.put(url).set("Content-Type", "image/jpeg").send(await makeImage("jpeg", { width: 90 })),
    ]);
    expect([a.status, b.status].sort()).toEqual([200, 403]);
    expect([a, b].find((r) => r.status === 403)!.body.message).toMatch(/already been used/);
    expect(await originals()).toHaveLength(1);
    await register(url).expect(201);
  });

  it("two registrations of one upload: exactly one image is created", async () => {
    const url = await completedUpload();
    const [a, b] = await Promise.all([register(url), register(url, "veneer")]);
    expect([a.status, b.status].sort()).toEqual([201, 400]);
    const created = [a, b].find((r) => r.status === 201)!.body as { galleryType: string };
    expect(await galleryOrders(created.galleryType)).toHaveLength(1);
    expect(await galleryOrders(created.galleryType === "traditional" ? "veneer" : "traditional")).toEqual([]);
    // The winner's original is kept.
    expect(await originals()).toHaveLength(1);
  });

  it("five uploads added to one gallery at once get the orders 0..4", async () => {
    const urls = await Promise.all([0, 1, 2, 3, 4].map((i) => completedUpload(40 + i)));
    const results = await Promise.all(urls.map((url) => register(url, "landscaping")));
    expect(results.map((r) => r.status)).toEqual([201, 201, 201, 201, 201]);
    expect(results.map((r) => (r.body as { sortOrder: number }).sortOrder).sort()).toEqual([0, 1, 2, 3, 4]);
    const listed = await galleryOrders("landscaping");
    expect(listed.map((image) => image.sortOrder)).toEqual([0, 1, 2, 3, 4]);
    expect(new Set(listed.map((image) => image.id)).size).toBe(5);
  });

  it("a reorder racing an add: either the reorder sees the whole gallery or it is refused; orders stay 0..n-1", async () => {
    const seeded = (await seedDemoGallery(ctx.services, "veneer", 3, { width: 300, height: 200 })).map((image) => image.id);
    const url = await completedUpload();
    const reversed = [...seeded].reverse();
    const [reorder, add] = await Promise.all([
      ctx.admin.put("/api/admin/gallery-images/reorder").send({ galleryType: "veneer", imageIds: reversed }),
      register(url, "veneer"),
    ]);
    expect(add.status).toBe(201);
    const added = (add.body as { id: string }).id;
    const listed = await galleryOrders("veneer");
    expect(listed.map((image) => image.sortOrder)).toEqual([0, 1, 2, 3]);
    if (reorder.status === 200) {
      // The reorder ran first: the new image went to the end of the new order.
      expect(listed.map((image) => image.id)).toEqual([...reversed, added]);
    } else {
      // The add ran first: the reorder no longer listed every image and changed nothing.
      expect(reorder.status).toBe(400);
      expect(listed.map((image) => image.id)).toEqual([...seeded, added]);
    }
  });

  it("a reorder racing a delete: no gaps or duplicates in the order, whichever wins", async () => {
    const seeded = (await seedDemoGallery(ctx.services, "homepage", 4, { width: 300, height: 200 })).map((image) => image.id);
    const [reorder, removed] = await Promise.all([
      ctx.admin.put("/api/admin/gallery-images/reorder").send({ galleryType: "homepage", imageIds: [...seeded].reverse() }),
      ctx.admin.delete(`/api/admin/gallery-images/${seeded[1]}`),
    ]);
    expect(removed.status).toBe(204);
    const listed = await galleryOrders("homepage");
    expect(listed.map((image) => image.sortOrder)).toEqual([0, 1, 2]);
    const survivors = seeded.filter((id) => id !== seeded[1]);
    if (reorder.status === 200) expect(listed.map((image) => image.id)).toEqual([...survivors].reverse());
    else {
      expect(reorder.status).toBe(400);
      expect(listed.map((image) => image.id)).toEqual(survivors);
    }
  });

  it("concurrent deletes of images in one gallery close every gap", async () => {
    const seeded = (await seedDemoGallery(ctx.services, "traditional", 5, { width: 300, height: 200 })).map((image) => image.id);
    const results = await Promise.all([seeded[0], seeded[2], seeded[4]].map((id) => ctx.admin.delete(`/api/admin/gallery-images/${id}`)));
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
    const unused = await newUploadUrl();
    const completed = await completedUpload();
    const used = await completedUpload(70);
    await register(used).expect(201);
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

  it("the owner adds a day-old upload while housekeeping is pruning it: added with its original, or pruned, never half of each", async () => {
    const url = await completedUpload();
    const clock = createManualClock(Date.now() + 25 * 60 * 60 * 1000);
    // Housekeeping has picked the upload and is deleting its file when the owner's request comes in.
    let entered!: () => void;
    const deleting = new Promise<void>((resolve) => (entered = resolve));
    let release!: () => void;
    const released = new Promise<void>((resolve) => (release = resolve));
    const storage = {
      ...ctx.services.storage,
      delete: async (key: string) => {
        entered();
        await released;
        await ctx.services.storage.delete(key);
      },
    };
    const pruning = pruneStaleUploads({ ...ctx.services, storage }, clock);
    await deleting;
    const added = await register(url, "veneer");
    release();
    await pruning;

    const id = idOf(url);
    const statuses = await uploadStatuses();
    if (added.status === 201) {
      expect(statuses[id]).toBe("used");
      expect(await originals()).toContain(id);
    } else {
      expect(added.status).toBe(400);
      expect(statuses[id]).toBeUndefined();
      expect(await originals()).not.toContain(id);
      expect(await galleryOrders("veneer")).toEqual([]);
    }
  });

  it("finishes an upload a crash left half-pruned", async () => {
    const url = await completedUpload();
    await ctx.services.db.updateTable("uploads").set({ status: "pruning" }).where("id", "=", idOf(url)).execute();
    expect(await pruneStaleUploads(ctx.services, createManualClock(Date.now()))).toBe(1);
    expect(await uploadStatuses()).toEqual({});
    expect(await originals()).toEqual([]);
  });
});
