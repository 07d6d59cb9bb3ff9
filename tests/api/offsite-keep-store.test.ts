import path from "node:path";
import { afterEach, describe, expect, inject, it } from "vitest";
import { backupsDirOf } from "~/backups/backup-files.server";
import { checkOffsiteStore } from "~/backups/offsite-check.server";
import { objectKey } from "~/backups/offsite-objects.server";
import { listCopies, openOffsiteRepository, readFileList, readManifest } from "~/backups/offsite-repository.server";
import { runOffsiteCopy } from "~/backups/offsite-run.server";
import { createS3OffsiteStore, REPOSITORY_PREFIX } from "~/backups/offsite-store.server";
import { createManualClock } from "~/lib/clock";
import { createTestBucket, s3ConfigFor } from "../support/backends";
import { insertEnquiryWithPhotos, OFFSITE_PASSPHRASE, offsiteEnv } from "../support/offsite-site";
import { createAdminContext } from "./helpers";

/**
 * The keep policy on the store (decision 0060): copies go as the policy lets
 * them go, and an object is deleted only once no kept copy refers to it, over
 * weeks of simulated copies on an injected clock.
 */
const DAY = 24 * 60 * 60_000;
const cleanups: (() => Promise<unknown>)[] = [];
afterEach(async () => {
  for (const cleanup of cleanups.splice(0).reverse()) await cleanup().catch(() => {});
});

describe("the keep policy in the off-site store", () => {
  it("a deleted enquiry's photos stay off-site while a kept copy refers to them, and go with the last such copy", async () => {
    const bucket = await createTestBucket(inject("backends").s3Endpoint, { siteOrigins: [] });
    cleanups.push(() => bucket.remove());
    const clock = createManualClock("2027-01-01T03:00:00.000Z");
    const ctx = await createAdminContext(
      { ...offsiteEnv(inject("backends").s3Endpoint, bucket.name), BACKUP_PASSPHRASE: OFFSITE_PASSPHRASE },
      { clock },
    );
    cleanups.push(() => ctx.close());
    const store = createS3OffsiteStore(s3ConfigFor(inject("backends").s3Endpoint, bucket.name));
    cleanups.push(async () => store.close());
    const workDir = backupsDirOf(ctx.dataDir);
    // A copy a day, keeping the last 2 hours that have one, 7 days and 2 months.
    const settings = {
      store,
      passphrase: OFFSITE_PASSPHRASE,
      policy: { hourly: 2, daily: 7, monthly: 2 },
      workDir,
      cacheDir: path.join(workDir, ".offsite-cache"),
      scryptWorkFactor: 12,
    };
    const repo = (await openOffsiteRepository(store, OFFSITE_PASSPHRASE, { create: true, scryptWorkFactor: 12 }))!;
    const copy = () => runOffsiteCopy(ctx.services, settings, { at: clock.now(), repository: repo });
    const objectsInStore = async () =>
      new Set((await bucket.keys(`${REPOSITORY_PREFIX}objects/`)).map((key) => key.slice(REPOSITORY_PREFIX.length)));

    const enquiry = await insertEnquiryWithPhotos(ctx.services, 1, 2, clock.now());
    await copy();
    const [first] = await listCopies(store);
    const photoObjects = (await readFileList(repo, await readManifest(repo, first!.name)))
      .filter((file) => file.key.startsWith("enquiry-photos/"))
      .map((file) => objectKey(file.id));
    expect(photoObjects).toHaveLength(4);

    // Day 10 (1 January + 9 days): the enquiry is deleted; that day's copy is the first without its photos.
    const present: Record<number, boolean> = {};
    for (let day = 1; day <= 40; day++) {
      clock.advance(DAY);
      if (day === 9) {
        await ctx.services.db.deleteFrom("enquiry_photos").where("submission_id", "=", enquiry).execute();
        await ctx.services.db.deleteFrom("contact_submissions").where("id", "=", enquiry).execute();
      }
      await copy();
      const stored = await objectsInStore();
      present[day] = photoObjects.every((key) => stored.has(key));
      expect(photoObjects.some((key) => stored.has(key))).toBe(present[day]);
      // Whatever went, every object a kept copy refers to is still there.
      expect((await checkOffsiteStore(repo, { readData: false })).missing).toEqual([]);
    }
    // The last copy with the photos (day 8, 9 January) is kept as a daily copy for 7 days with copies, then
    // goes (January's newest copy, the monthly one, is from 31 January and has none of them).
    expect(present[8]).toBe(true);
    expect(present[14]).toBe(true);
    expect(present[15]).toBe(false);
    expect(present[40]).toBe(false);
    const kept = (await listCopies(store)).map((c) => c.at.toISOString().slice(0, 10));
    expect(kept).toEqual([
      "2027-01-31",
      "2027-02-04",
      "2027-02-05",
      "2027-02-06",
      "2027-02-07",
      "2027-02-08",
      "2027-02-09",
      "2027-02-10",
    ]);
  }, 300_000);
});
