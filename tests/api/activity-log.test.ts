import fs from "node:fs/promises";
import os from "node:os";
import path from "node:path";
import type supertest from "supertest";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import type { ActivityEntry, ActivityPage } from "~/activity/activity-kinds";
import { pruneActivity, readActivity, recordActivity } from "~/activity/activity-log.server";
import { backupsDirOf } from "~/backups/backup-files.server";
import { createBackup } from "~/backups/backup.server";
import { startRefusalTallyFlush } from "~/activity/refusal-tally.server";
import { restoreBackup } from "~/backups/restore.server";
import { seedDemoGallery } from "~/galleries/demo-images.server";
import { createManualClock, type ManualClock } from "~/lib/clock";
import { makeImage } from "../fixtures/images";
import { openSite } from "../support/backup-site";
import { newUploadUrl } from "../support/gallery-api";
import { ADMIN, createAdminContext, putUpload, type AdminContext } from "./helpers";

// Every security event and every change to the site is in the security log.

const PHONE =
  "Mozilla/5.0 (Linux; Android 14; Pixel 8) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/130.0.0.0 Mobile Safari/537.36";
const FROM = "198.51.100.77";
const NEW_PASSWORD = "another long password";

let ctx: AdminContext;
let clock: ManualClock;
beforeEach(async () => {
  clock = createManualClock("2026-06-01T09:00:00.000Z");
  // TRUST_PROXY=loopback: each request names its client in X-Forwarded-For.
  ctx = await createAdminContext({ TRUST_PROXY: "loopback" }, { clock });
});
afterEach(async () => {
  await ctx.close();
});

/** A request from the owner's phone at FROM. */
const fromPhone = (req: supertest.Test) => req.set("User-Agent", PHONE).set("X-Forwarded-For", FROM);

async function activity(query = ""): Promise<ActivityPage> {
  return (await ctx.admin.get(`/api/admin/activity${query}`).expect(200)).body as ActivityPage;
}

async function uploadPhoto(galleryType: string) {
  const uploadURL = await newUploadUrl(ctx);
  expect((await putUpload(ctx, uploadURL, await makeImage("jpeg"))).status).toBe(200);
  return fromPhone(ctx.admin.put("/api/admin/gallery-images"))
    .send({ imageURL: uploadURL, galleryType, caption: "", sortOrder: "0" })
    .expect(201);
}

async function seedPhotos(count: number) {
  return seedDemoGallery(ctx.services, "landscaping", count, { width: 300, height: 200 });
}

type Case = {
  event: string;
  act: () => Promise<unknown>;
  expected: Pick<ActivityEntry, "kind" | "outcome" | "summary">;
};

const CASES: Case[] = [
  {
    event: "a sign-in with the password",
    act: () => fromPhone(ctx.api.post("/api/login")).send(ADMIN).expect(200),
    expected: { kind: "sign-in.password", outcome: "success", summary: "Signed in with password" },
  },
  {
    event: "a failed sign-in",
    act: () =>
      fromPhone(ctx.api.post("/api/login"))
        .send({ ...ADMIN, password: "a wrong guess" })
        .expect(401),
    expected: { kind: "sign-in.password", outcome: "failure", summary: "Failed sign-in: wrong username or password" },
  },
  {
    event: "a lock-out",
    act: async () => {
      for (let i = 0; i < 5; i++)
        await fromPhone(ctx.api.post("/api/login"))
          .send({ ...ADMIN, password: "wrong" })
          .expect(401);
      await fromPhone(ctx.api.post("/api/login")).send(ADMIN).expect(429);
    },
    expected: { kind: "sign-in.locked", outcome: "refused", summary: "Sign-in refused: too many attempts" },
  },
  {
    event: "a password change",
    act: () =>
      fromPhone(ctx.admin.post("/api/admin/password"))
        .send({ currentPassword: ADMIN.password, newPassword: NEW_PASSWORD, confirmPassword: NEW_PASSWORD })
        .expect(200),
    expected: { kind: "account.password-changed", outcome: "success", summary: "Changed the password" },
  },
  {
    event: "a refused password change",
    act: () =>
      fromPhone(ctx.admin.post("/api/admin/password"))
        .send({ currentPassword: "not it", newPassword: NEW_PASSWORD, confirmPassword: NEW_PASSWORD })
        .expect(400),
    expected: {
      kind: "account.password-changed",
      outcome: "failure",
      summary: "Password change refused: wrong current password",
    },
  },
  {
    event: "sign out everywhere",
    act: () => fromPhone(ctx.admin.delete("/api/admin/sessions")).expect(204),
    expected: { kind: "account.signed-out-everywhere", outcome: "success", summary: "Signed out everywhere" },
  },
  {
    event: "a text saved",
    act: () => fromPhone(ctx.admin.put("/api/admin/content/hero.title")).send({ content: "New title" }).expect(200),
    expected: { kind: "text.saved", outcome: "success", summary: "Saved the text 'Hero Title'" },
  },
  {
    event: "a text restored",
    act: async () => {
      await ctx.admin.put("/api/admin/content/hero.title").send({ content: "First" }).expect(200);
      await ctx.admin.put("/api/admin/content/hero.title").send({ content: "Second" }).expect(200);
      const [older] = (await ctx.admin.get("/api/admin/content/hero.title/history").expect(200)).body as {
        id: string;
      }[];
      await fromPhone(ctx.admin.post(`/api/admin/content/hero.title/history/${older!.id}/restore`)).expect(200);
    },
    expected: { kind: "text.restored", outcome: "success", summary: "Restored an earlier version of 'Hero Title'" },
  },
  {
    event: "a text reset",
    act: () => fromPhone(ctx.admin.delete("/api/admin/content/hero.title")).expect(204),
    expected: { kind: "text.reset", outcome: "success", summary: "Reset 'Hero Title' to the original wording" },
  },
  {
    event: "a photo uploaded",
    act: () => uploadPhoto("landscaping"),
    expected: { kind: "image.uploaded", outcome: "success", summary: "Uploaded 1 photo to Hard Landscaping" },
  },
  {
    event: "a caption changed",
    act: async () => {
      const [image] = await seedPhotos(1);
      await fromPhone(ctx.admin.patch(`/api/admin/gallery-images/${image!.id}`))
        .send({ caption: "Basalt wall" })
        .expect(200);
    },
    expected: { kind: "image.captioned", outcome: "success", summary: "Changed a photo's caption in Hard Landscaping" },
  },
  {
    event: "photos reordered",
    act: async () => {
      const images = await seedPhotos(2);
      const imageIds = images.map((image) => image.id).reverse();
      await fromPhone(ctx.admin.put("/api/admin/gallery-images/reorder"))
        .send({ galleryType: "landscaping", imageIds })
        .expect(200);
    },
    expected: { kind: "image.reordered", outcome: "success", summary: "Reordered the photos in Hard Landscaping" },
  },
  {
    event: "a photo deleted",
    act: async () => {
      const [image] = await seedPhotos(1);
      await fromPhone(ctx.admin.delete(`/api/admin/gallery-images/${image!.id}`)).expect(204);
    },
    expected: { kind: "image.deleted", outcome: "success", summary: "Deleted 1 photo from Hard Landscaping" },
  },
  {
    event: "an enquiry deleted",
    act: async () => {
      const sent = await ctx.api
        .post("/api/contact")
        .send({ name: "Aroha Visitor", email: "aroha@example.nz", message: "Please call me back about a wall." })
        .expect(201);
      await fromPhone(ctx.admin.delete(`/api/admin/contact-submissions/${sent.body.id as string}`)).expect(204);
    },
    expected: { kind: "enquiry.deleted", outcome: "success", summary: "Deleted 1 enquiry" },
  },
  {
    event: "a backup downloaded",
    act: () => fromPhone(ctx.admin.get("/api/admin/backups/download")).buffer(true).expect(200),
    expected: { kind: "backup.downloaded", outcome: "success", summary: "Downloaded a backup" },
  },
];

describe("every security event and change is recorded", () => {
  it.each(CASES)("$event", async ({ act, expected }) => {
    await act();
    // Signed out everywhere, or the password changed: read the log with a fresh session.
    const reader = await freshAdmin();
    const { entries } = (await reader.get("/api/admin/activity").expect(200)).body as ActivityPage;
    // The reader's own sign-in (no phone, no address) is in the log too: look for the phone's.
    expect(entries).toContainEqual(
      expect.objectContaining({ ...expected, browser: "Chrome on an Android phone", network: "198.51.100.0/24" }),
    );
  });
});

/** A signed-in agent whatever the case did to the password or the sessions. */
async function freshAdmin() {
  const { default: supertestModule } = await import("supertest");
  const agent = supertestModule.agent(ctx.app);
  const res = await agent.post("/api/login").send(ADMIN);
  if (res.status !== 200)
    await agent
      .post("/api/login")
      .send({ ...ADMIN, password: NEW_PASSWORD })
      .expect(200);
  return agent;
}

describe("GET /api/admin/activity", () => {
  it("lists newest first, 50 a page, and filters security events", async () => {
    for (let i = 0; i < 60; i++) {
      clock.advance(1000);
      await ctx.admin
        .put("/api/admin/content/hero.title")
        .send({ content: `Title ${i}` })
        .expect(200);
    }
    clock.advance(1000);
    await fromPhone(ctx.api.post("/api/login"))
      .send({ ...ADMIN, password: "wrong" })
      .expect(401);

    const first = await activity();
    // 60 saves, the context's own sign-in and the failed one.
    expect(first.total).toBe(62);
    expect(first.entries).toHaveLength(50);
    expect(first.entries[0]!.summary).toBe("Failed sign-in: wrong username or password");
    expect(first.entries[1]!.at > first.entries[2]!.at).toBe(true);
    const second = await activity("?page=2");
    expect(second.entries).toHaveLength(12);
    expect(second.entries.at(-1)!.summary).toBe("Signed in with password");

    const security = await activity("?filter=security");
    expect(security.total).toBe(2);
    expect(security.entries.map((entry) => entry.summary)).toEqual([
      "Failed sign-in: wrong username or password",
      "Signed in with password",
    ]);
    expect(security.entries.every((entry) => entry.security)).toBe(true);
  });

  it("refuses a bad page or filter with a clear message, and is for the administrator only", async () => {
    expect((await ctx.admin.get("/api/admin/activity?page=0").expect(400)).body).toEqual({
      message: "page must be a whole number from 1 to 200",
    });
    expect((await ctx.admin.get("/api/admin/activity?page=abc").expect(400)).body.message).toMatch(/page/);
    expect((await ctx.admin.get("/api/admin/activity?filter=everything").expect(400)).body).toEqual({
      message: 'filter must be "security" or left out',
    });
    await ctx.api.get("/api/admin/activity").expect(401);
  });
});

describe("a new place or a usual one", () => {
  const signInFrom = (address: string) =>
    ctx.api.post("/api/login").set("User-Agent", PHONE).set("X-Forwarded-For", address).send(ADMIN).expect(200);
  // Read straight from the log: 91 days on, the test's admin session has long expired.
  const entries = async () => (await readActivity(ctx.services, { page: 1, securityOnly: false })).entries;
  const placeOfNewest = async () => {
    const [newest] = await entries();
    return { place: newest!.place, network: newest!.network };
  };

  it("is new until a sign-in from the same network succeeded in the 90 days before", async () => {
    clock.advance(1000);
    await signInFrom("203.0.113.5");
    expect(await placeOfNewest()).toEqual({ place: "new", network: "203.0.113.0/24" });

    // The same /24 a day later: usual, and so is what is done from there.
    clock.advance(24 * 60 * 60_000);
    await signInFrom("203.0.113.200");
    expect(await placeOfNewest()).toEqual({ place: "usual", network: "203.0.113.0/24" });
    await ctx.admin
      .put("/api/admin/content/hero.title")
      .set("X-Forwarded-For", "203.0.113.9")
      .send({ content: "From the yard" })
      .expect(200);
    expect(await placeOfNewest()).toEqual({ place: "usual", network: "203.0.113.0/24" });

    // A failed sign-in makes no place usual.
    clock.advance(1000);
    await ctx.api
      .post("/api/login")
      .set("X-Forwarded-For", "192.0.2.10")
      .send({ ...ADMIN, password: "wrong" })
      .expect(401);
    clock.advance(1000);
    await signInFrom("192.0.2.11");
    expect(await placeOfNewest()).toEqual({ place: "new", network: "192.0.2.0/24" });

    // IPv6 networks are /48s.
    clock.advance(1000);
    await signInFrom("2001:db8:7:1::5");
    clock.advance(1000);
    await signInFrom("2001:db8:7:2::9");
    expect(await placeOfNewest()).toEqual({ place: "usual", network: "2001:db8:7::/48" });

    // More than 90 days after the last sign-in from there: new again.
    clock.advance(91 * 24 * 60 * 60_000);
    await signInFrom("203.0.113.5");
    expect(await placeOfNewest()).toEqual({ place: "new", network: "203.0.113.0/24" });
    // Older records keep the place they had when they happened.
    const earlier = (await entries()).filter((entry) => entry.network === "203.0.113.0/24").map((entry) => entry.place);
    expect(earlier).toEqual(["new", "usual", "usual", "new"]);
  });

  it("is null for a record with no address (a restore run on the server)", async () => {
    clock.advance(1000);
    await recordActivity(ctx.services, { kind: "backup.restored", outcome: "success" });
    expect(await placeOfNewest()).toEqual({ place: null, network: null });
  });
});

describe("refused attempts (429)", () => {
  it("are counted per hour in one record, however many and however fast", async () => {
    for (let i = 0; i < 5; i++)
      await fromPhone(ctx.api.post("/api/login"))
        .send({ ...ADMIN, password: "wrong" })
        .expect(401);
    const flood = await Promise.all(
      Array.from({ length: 40 }, () => fromPhone(ctx.api.post("/api/login")).send(ADMIN)),
    );
    expect(flood.every((res) => res.status === 429)).toBe(true);

    // Not a write per refusal: the first is written at once, the rest are tallied in memory…
    const stored = () =>
      ctx.services.db.selectFrom("activity_log").select("count").where("kind", "=", "sign-in.locked").execute();
    expect(await stored()).toEqual([{ count: 1 }]);
    // …and added in one write before the log is read (and every 10 s, and at shutdown).
    const refused = async () => (await activity()).entries.filter((entry) => entry.kind === "sign-in.locked");
    expect(await refused()).toMatchObject([{ count: 40, summary: "Sign-in refused: too many attempts (40 times)" }]);
    expect(await stored()).toEqual([{ count: 40 }]);

    // The next hour starts a new record (the lock-out lasts 15 minutes: fail again first).
    clock.advance(60 * 60_000);
    for (let i = 0; i < 5; i++)
      await fromPhone(ctx.api.post("/api/login"))
        .send({ ...ADMIN, password: "wrong" })
        .expect(401);
    await fromPhone(ctx.api.post("/api/login")).send(ADMIN).expect(429);
    expect((await refused()).map((entry) => entry.count)).toEqual([1, 40]);
  });
});

describe("the refusal tally's flush", () => {
  it("writes what this process tallied when stopped (the server's shutdown)", async () => {
    for (let i = 0; i < 3; i++) await recordActivity(ctx.services, { kind: "sign-in.locked", outcome: "refused" });
    const flush = startRefusalTallyFlush(ctx.services);
    await flush.stop();
    const rows = await ctx.services.db
      .selectFrom("activity_log")
      .select("count")
      .where("kind", "=", "sign-in.locked")
      .execute();
    expect(rows).toEqual([{ count: 3 }]);
  });
});

describe("limits: 10,000 records or one year, whichever first", () => {
  const count = async () =>
    Number(
      (
        await ctx.services.db
          .selectFrom("activity_log")
          .select((eb) => eb.fn.countAll().as("n"))
          .executeTakeFirstOrThrow()
      ).n,
    );

  it("keeps the newest 10,000 records: the next one pushes the oldest out", async () => {
    await ctx.services.db.deleteFrom("activity_log").execute();
    // 9,999 old records, written straight to the table (one a second, the oldest first).
    const start = clock.now().getTime() - 20_000_000;
    const rows = Array.from({ length: 9_999 }, (_, i) => ({
      id: `seed-${String(i).padStart(5, "0")}`,
      occurred_at: new Date(start + i * 1000).toISOString(),
      kind: "text.saved",
      outcome: "success",
      detail: JSON.stringify({ section: `Seed ${i}` }),
      user_agent: null,
      network: null,
      address_hash: null,
      fold_key: null,
    }));
    for (let i = 0; i < rows.length; i += 500)
      await ctx.services.db
        .insertInto("activity_log")
        .values(rows.slice(i, i + 500))
        .execute();

    await recordActivity(ctx.services, { kind: "text.reset", outcome: "success", detail: { section: "Hero Title" } });
    expect(await count()).toBe(10_000);
    await recordActivity(ctx.services, { kind: "text.reset", outcome: "success", detail: { section: "Hero Title" } });
    expect(await count()).toBe(10_000);
    const oldest = await ctx.services.db
      .selectFrom("activity_log")
      .select("id")
      .orderBy("occurred_at")
      .limit(1)
      .executeTakeFirstOrThrow();
    expect(oldest.id).toBe("seed-00001");
    // The hourly housekeeping finds nothing more to do.
    expect(await pruneActivity(ctx.services)).toBe(0);
  });

  it("forgets a record one year after it, on the injected clock", async () => {
    await ctx.services.db.deleteFrom("activity_log").execute();
    clock.set("2026-06-01T09:00:00.000Z");
    await recordActivity(ctx.services, { kind: "text.saved", outcome: "success", detail: { section: "Hero Title" } });
    clock.set("2027-06-01T09:00:00.000Z");
    expect(await pruneActivity(ctx.services)).toBe(0);
    expect(await count()).toBe(1);
    clock.set("2027-06-01T09:00:00.001Z");
    expect(await pruneActivity(ctx.services)).toBe(1);
    expect(await count()).toBe(0);
  });
});

describe("a restore", () => {
  it("is recorded in the restored site's log, after the log the backup held", async () => {
    clock.advance(1000);
    await ctx.admin.put("/api/admin/content/hero.title").send({ content: "Before the backup" }).expect(200);
    const work = await fs.mkdtemp(path.join(os.tmpdir(), "cornerstone-activity-restore-"));
    try {
      const file = path.join(work, "cornerstone-20260601-090000.tar.gz");
      const made = await createBackup(
        { ...ctx.services, clock },
        {
          purpose: "manual",
          workDir: backupsDirOf(ctx.services.env.DATA_DIR),
          destination: { kind: "file", path: file },
        },
      );
      expect(made.status).toBe("succeeded");
      clock.advance(60_000);
      const dataDir = path.join(work, "restored");
      await restoreBackup({ dataDir, file, clock });
      const restored = await openSite(dataDir);
      try {
        const { entries } = await readActivity(restored, { page: 1, securityOnly: false });
        expect(entries.map((entry) => entry.summary)).toEqual([
          "Restored the site from cornerstone-20260601-090000.tar.gz",
          "Saved the text 'Hero Title'",
          "Signed in with password",
        ]);
        expect(entries[0]).toMatchObject({
          at: "2026-06-01T09:01:01.000Z",
          browser: null,
          network: null,
          security: true,
        });
      } finally {
        await restored.close();
      }
    } finally {
      await fs.rm(work, { recursive: true, force: true });
    }
  });
});
