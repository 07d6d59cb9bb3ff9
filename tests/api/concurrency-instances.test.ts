import { randomBytes } from "node:crypto";
import { sql } from "kysely";
import { afterEach, describe, expect, it } from "vitest";
import { lockForTransaction, type Database } from "~/db/database.server";
import { createGalleryImage, listGalleryImages } from "~/galleries/galleries.server";
import type { GalleryType } from "~/galleries/gallery";
import type { ProcessedImage } from "~/images/processed-image";
import { makeImage } from "../fixtures/images";
import { createAdminContext, signedInAgent, type AdminContext } from "./helpers";

/**
 * Gallery writes that race, on this run's back end (TEST_BACKEND): under
 * PostgreSQL's READ COMMITTED they really overlap, and only the gallery lock
 * keeps sort orders 0..n-1. Then the same across two instances sharing one
 * PostgreSQL database and one bucket.
 */

let ctx: AdminContext;
afterEach(async () => {
  await ctx?.close();
});

/** A processed image's record without the pixels: enough for order bookkeeping. */
function fakeProcessed(): ProcessedImage {
  const hash = randomBytes(10).toString("hex");
  const variant = { width: 480, height: 320, path: `/media/${hash}.jpg`, bytes: 1000 };
  return {
    width: 480,
    height: 320,
    placeholder: "data:image/webp;base64,AA==",
    variants: { avif: [], webp: [], jpeg: variant },
    storageKeys: [],
  };
}

async function addImages(galleryType: GalleryType, count: number) {
  const images = [];
  for (let i = 0; i < count; i++) {
    images.push(
      await createGalleryImage(ctx.services, {
        galleryType,
        caption: `#${i}`,
        processed: fakeProcessed(),
        originalKey: null,
      }),
    );
  }
  return images;
}

async function orderOf(galleryType: GalleryType) {
  return (await listGalleryImages(ctx.services, galleryType)).map((image) => image.sortOrder);
}

const range = (n: number) => Array.from({ length: n }, (_, i) => i);

async function uploadUrlWithPhoto(agent: AdminContext["admin"], width: number): Promise<string> {
  const { uploadURL } = (await agent.post("/api/objects/upload").expect(200)).body as { uploadURL: string };
  const photo = await makeImage("jpeg", { width, height: 48 });
  if (/^https?:/.test(uploadURL)) {
    expect(
      (
        await fetch(uploadURL, {
          method: "PUT",
          headers: { "Content-Type": "image/jpeg" },
          body: new Uint8Array(photo),
        })
      ).status,
    ).toBe(200);
  } else {
    await agent.put(uploadURL).set("Content-Type", "image/jpeg").send(photo).expect(200);
  }
  return uploadURL;
}

describe("concurrent gallery writes on one instance", () => {
  it("images added at the same moment each get their own place at the end", async () => {
    ctx = await createAdminContext();
    await addImages("veneer", 2);
    const added = await Promise.all(
      range(12).map(() =>
        createGalleryImage(ctx.services, {
          galleryType: "veneer",
          caption: "",
          processed: fakeProcessed(),
          originalKey: null,
        }),
      ),
    );
    expect(added.map((image) => image.sortOrder).sort((a, b) => a - b)).toEqual(range(12).map((i) => i + 2));
    expect(await orderOf("veneer")).toEqual(range(14));
  });

  it("uploads registered at the same moment through the API keep the order complete", async () => {
    ctx = await createAdminContext();
    const urls = await Promise.all(range(4).map((i) => uploadUrlWithPhoto(ctx.admin, 60 + i)));
    const results = await Promise.all(
      urls.map((imageURL) => ctx.admin.put("/api/admin/gallery-images").send({ imageURL, galleryType: "landscaping" })),
    );
    expect(results.map((r) => r.status)).toEqual([201, 201, 201, 201]);
    expect(await orderOf("landscaping")).toEqual(range(4));
  });

  it("one upload registered twice at the same moment becomes one image", async () => {
    ctx = await createAdminContext();
    const imageURL = await uploadUrlWithPhoto(ctx.admin, 64);
    const results = await Promise.all(
      range(3).map(() => ctx.admin.put("/api/admin/gallery-images").send({ imageURL, galleryType: "traditional" })),
    );
    expect(results.map((r) => r.status).sort()).toEqual([201, 400, 400]);
    expect(await orderOf("traditional")).toEqual([0]);
  });

  it("deleting several images at the same moment closes every gap", async () => {
    ctx = await createAdminContext();
    const images = await addImages("traditional", 10);
    const doomed = [1, 3, 4, 7, 9].map((i) => images[i]!.id);
    const results = await Promise.all(doomed.map((id) => ctx.admin.delete(`/api/admin/gallery-images/${id}`)));
    expect(results.map((r) => r.status)).toEqual([204, 204, 204, 204, 204]);
    const left = await listGalleryImages(ctx.services, "traditional");
    expect(left.map((image) => image.sortOrder)).toEqual(range(5));
    expect(left.map((image) => image.caption)).toEqual(["#0", "#2", "#5", "#6", "#8"]);
  });

  it("reorders, additions and deletions racing each other leave a complete order", async () => {
    ctx = await createAdminContext();
    const images = await addImages("homepage", 6);
    const ids = images.map((image) => image.id);
    const [reversed, deleted2, created, restored, deleted4] = await Promise.all([
      ctx.admin
        .put("/api/admin/gallery-images/reorder")
        .send({ galleryType: "homepage", imageIds: [...ids].reverse() }),
      ctx.admin.delete(`/api/admin/gallery-images/${ids[2]}`),
      createGalleryImage(ctx.services, {
        galleryType: "homepage",
        caption: "new",
        processed: fakeProcessed(),
        originalKey: null,
      }),
      ctx.admin.put("/api/admin/gallery-images/reorder").send({ galleryType: "homepage", imageIds: ids }),
      ctx.admin.delete(`/api/admin/gallery-images/${ids[4]}`),
    ]);
    // Additions and deletions always go through.
    expect([deleted2.status, deleted4.status]).toEqual([204, 204]);
    expect(created).toMatchObject({ galleryType: "homepage", caption: "new" });
    // A reorder either ran before every change of membership (200, the six images it named, in its order)
    // or is refused whole (400, with the reason): never half-applied.
    const refused = { status: 400, body: { message: "imageIds must list every image of the gallery exactly once" } };
    const outcome = (reorder: typeof reversed) =>
      reorder.status === 200
        ? { status: 200, ids: (reorder.body as { id: string }[]).map((image) => image.id) }
        : { status: reorder.status, body: reorder.body };
    expect([{ status: 200, ids: [...ids].reverse() }, refused]).toContainEqual(outcome(reversed));
    expect([{ status: 200, ids }, refused]).toContainEqual(outcome(restored));
    const left = await listGalleryImages(ctx.services, "homepage");
    expect(left.map((image) => image.sortOrder)).toEqual(range(5));
    expect(left.map((image) => image.id).toSorted()).toEqual([ids[0], ids[1], ids[3], ids[5], created.id].toSorted());
  });
});

/** How many connections to this database wait for a lock now (PostgreSQL). */
async function lockWaiters(db: Database): Promise<number> {
  const { rows } = await sql<{ waiting: number }>`select count(*)::int as waiting from pg_stat_activity
    where datname = current_database() and wait_event_type = 'Lock'`.execute(db);
  return rows[0]!.waiting;
}

describe("two instances sharing one PostgreSQL database and one bucket", () => {
  it("a reorder, a delete and an add wait for the gallery's lock while another instance holds it, then run one at a time", async () => {
    ctx = await createAdminContext({}, { database: "postgres", storage: "s3" });
    const other = (await ctx.openInstance()).services.db;
    const ids = (await addImages("traditional", 4)).map((image) => image.id);

    // Another instance is in the middle of changing this gallery.
    let release!: () => void;
    const released = new Promise<void>((resolve) => (release = resolve));
    let locked!: () => void;
    const lockTaken = new Promise<void>((resolve) => (locked = resolve));
    const holding = other.transaction().execute(async (trx) => {
      await lockForTransaction(trx, "gallery:traditional");
      locked();
      await released;
    });
    await lockTaken;
    let held = true;
    const letGo = async () => {
      if (!held) return;
      held = false;
      release();
      await holding;
    };

    try {
      // Each starts once the one before it is queued for the lock, so they are served in this order.
      const settled: string[] = [];
      const queued = async <T>(
        name: string,
        waiters: number,
        start: () => Promise<T>,
      ): Promise<{ running: Promise<T> }> => {
        const running = start().finally(() => settled.push(name));
        while (settled.length === 0 && (await lockWaiters(other)) < waiters)
          await new Promise((resolve) => setTimeout(resolve, 5));
        return { running };
      };
      const reversed = [...ids].reverse();
      const reorder = await queued("reorder", 1, async () =>
        ctx.admin.put("/api/admin/gallery-images/reorder").send({ galleryType: "traditional", imageIds: reversed }),
      );
      const removal = await queued("delete", 2, async () => ctx.admin.delete(`/api/admin/gallery-images/${ids[1]}`));
      const addition = await queued("add", 3, () =>
        createGalleryImage(ctx.services, {
          galleryType: "traditional",
          caption: "new",
          processed: fakeProcessed(),
          originalKey: null,
        }),
      );
      // All three are waiting: none has touched the gallery.
      expect({ waiting: await lockWaiters(other), settled }).toEqual({ waiting: 3, settled: [] });
      expect(await orderOf("traditional")).toEqual(range(4));

      await letGo();
      const [reordered, removed, added] = await Promise.all([reorder.running, removal.running, addition.running]);
      expect([reordered.status, removed.status]).toEqual([200, 204]);
      const left = await listGalleryImages(ctx.services, "traditional");
      expect(left.map((image) => [image.id, image.sortOrder])).toEqual(
        [...reversed.filter((id) => id !== ids[1]), added.id].map((id, sortOrder) => [id, sortOrder]),
      );
    } finally {
      // A failed check must not leave the lock held.
      await letGo();
    }
  });

  it("uploads, deletes and reorders through both at once keep every gallery's order complete", async () => {
    ctx = await createAdminContext({}, { database: "postgres", storage: "s3" });
    const b = await ctx.openInstance();
    const adminB = await signedInAgent(b);
    const images = await addImages("veneer", 8);

    const urlsA = await Promise.all(range(2).map((i) => uploadUrlWithPhoto(ctx.admin, 70 + i)));
    const urlsB = await Promise.all(range(2).map((i) => uploadUrlWithPhoto(adminB, 80 + i)));
    const results = await Promise.all([
      ...urlsA.map((imageURL) => ctx.admin.put("/api/admin/gallery-images").send({ imageURL, galleryType: "veneer" })),
      ...urlsB.map((imageURL) => adminB.put("/api/admin/gallery-images").send({ imageURL, galleryType: "veneer" })),
      ctx.admin.delete(`/api/admin/gallery-images/${images[0]!.id}`),
      adminB.delete(`/api/admin/gallery-images/${images[5]!.id}`),
      adminB.delete(`/api/admin/gallery-images/${images[6]!.id}`),
      ...range(3).map(() =>
        createGalleryImage(b.services, {
          galleryType: "veneer",
          caption: "",
          processed: fakeProcessed(),
          originalKey: null,
        }),
      ),
    ]);
    expect(results.slice(0, 4).map((r) => ("status" in r ? r.status : 0))).toEqual([201, 201, 201, 201]);
    expect(await orderOf("veneer")).toEqual(range(8 + 4 - 3 + 3));
    // An upload registered through one instance is served by the other.
    const uploaded = results[0] as { body: { variants: { jpeg: { path: string } } } };
    await b.api.get(uploaded.body.variants.jpeg.path).expect(200).expect("Content-Type", "image/jpeg");
  });
});
