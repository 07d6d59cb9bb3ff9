import path from "node:path";
import { afterEach, describe, expect, inject, it } from "vitest";
import type { BackupStatus } from "~/backups/backup-status";
import { backupsDirOf } from "~/backups/backup-files.server";
import { forkedCopyRunner, type OffsiteCopyRunner } from "~/backups/offsite-copy-runner.server";
import { keepPolicyOf, runOffsiteCopy } from "~/backups/offsite-run.server";
import { createOffsiteSchedule, OFFSITE_AFTER_START_MS } from "~/backups/offsite-schedule.server";
import { createS3OffsiteStore, REPOSITORY_PREFIX } from "~/backups/offsite-store.server";
import { createManualClock } from "~/lib/clock";
import { createLogger } from "~/lib/logger.server";
import type { AppServices } from "~/services.server";
import { offsiteCopyFromSource } from "../../server/offsite-copy-source";
import { createAdminContext } from "./helpers";
import { createMailContext } from "./mail-helpers";
import { createTestBucket, s3ConfigFor } from "../support/backends";
import { peakRssMB } from "../support/process-memory";
import { fillOffsiteSite, OFFSITE_PASSPHRASE, offsiteEnv } from "../support/offsite-site";
import { startRefusingFront } from "../support/s3-refusing-front";
import { startSmtpServer } from "../support/smtp";

/**
 * When off-site copies leave (decision 0060): 5 minutes after each start, then
 * every BACKUP_OFFSITE_MINUTES, one at a time across instances; never without
 * a passphrase; a store that refuses turns the dashboard red after 3 hours
 * while the site keeps serving; and each copy runs in a process of its own.
 */
const MINUTE = 60_000;
const cleanups: (() => Promise<unknown>)[] = [];
afterEach(async () => {
  for (const cleanup of cleanups.splice(0).reverse()) await cleanup().catch(() => {});
});

async function offsiteBucket() {
  const bucket = await createTestBucket(inject("backends").s3Endpoint, { siteOrigins: [] });
  cleanups.push(() => bucket.remove());
  return bucket;
}

/** Copies made in this process (a fast scrypt); `endpoint` may be a front before the test S3 server. */
function inProcessRunner(services: AppServices, endpoint: string, bucket: string): OffsiteCopyRunner {
  const store = createS3OffsiteStore(s3ConfigFor(endpoint, bucket));
  cleanups.push(async () => store.close());
  const workDir = backupsDirOf(services.env.DATA_DIR);
  const settings = {
    store,
    passphrase: OFFSITE_PASSPHRASE,
    policy: keepPolicyOf(services.env),
    workDir,
    cacheDir: path.join(workDir, ".offsite-cache"),
    scryptWorkFactor: 12,
  };
  return ({ at, signal }) => runOffsiteCopy(services, settings, { at, signal });
}

describe("the off-site copy schedule", () => {
  it("copies 5 minutes after a start, then every BACKUP_OFFSITE_MINUTES; two instances make one copy", async () => {
    const bucket = await offsiteBucket();
    const clock = createManualClock("2027-01-14T10:00:00.000Z");
    const ctx = await createAdminContext(
      {
        ...offsiteEnv(inject("backends").s3Endpoint, bucket.name),
        BACKUP_PASSPHRASE: OFFSITE_PASSPHRASE,
        BACKUP_OFFSITE_MINUTES: "30",
      },
      { clock },
    );
    cleanups.push(() => ctx.close());
    const runner = inProcessRunner(ctx.services, inject("backends").s3Endpoint, bucket.name);
    const first = createOffsiteSchedule(ctx.services, { runner, clock });
    const second = createOffsiteSchedule((await ctx.openInstance()).services, { runner, clock });
    for (const schedule of [first, second]) {
      cleanups.push(() => schedule.stop());
      await schedule.start();
    }
    const copies = async () => (await bucket.keys(`${REPOSITORY_PREFIX}copies/`)).map((key) => key.split("/").pop());

    clock.advance(OFFSITE_AFTER_START_MS - MINUTE);
    expect(await first.runDue()).toBe("not-due");
    expect(await copies()).toEqual([]);
    clock.advance(MINUTE);
    // Both due at once: one copies. The other finds the lease taken ("claimed-elsewhere") or, when the first
    // has already moved the schedule on before it looked, the next copy not due yet; either way no second copy.
    const outcomes = await Promise.all([first.runDue(), second.runDue()]);
    expect(outcomes.filter((outcome) => outcome === "copied")).toHaveLength(1);
    expect(outcomes.filter((outcome) => outcome !== "copied")).toEqual([
      expect.stringMatching(/^(claimed-elsewhere|not-due)$/),
    ]);
    expect(await copies()).toHaveLength(1);
    const [firstCopy] = await copies();
    expect(firstCopy).toMatch(/^20270114-100500-[0-9a-f]{8}$/);
    const status = (await ctx.admin.get("/api/admin/backups/status").expect(200)).body as BackupStatus;
    expect(status.offsite).toMatchObject({
      state: "ok",
      intervalMinutes: 30,
      lastCopy: { at: clock.now().toISOString() },
    });
    expect(status.offsite.nextCopyAt).toBe(new Date(clock.now().getTime() + 30 * MINUTE).toISOString());

    clock.advance(29 * MINUTE);
    expect(await second.runDue()).toBe("not-due");
    clock.advance(MINUTE);
    expect(await second.runDue()).toBe("copied");
    // Both in the same hour: the keep policy keeps the newer (one a clock hour, as BACKUP_KEEP_HOURLY counts them).
    expect(await copies()).toEqual([expect.stringMatching(/^20270114-103500-[0-9a-f]{8}$/)]);

    // A restart brings the next copy forward to 5 minutes after it, not 30.
    await first.stop();
    await first.start();
    clock.advance(OFFSITE_AFTER_START_MS);
    expect(await first.runDue()).toBe("copied");
  }, 240_000);

  it("without BACKUP_PASSPHRASE no copy leaves; the status says so in red, with how to set it; the site keeps serving", async () => {
    const bucket = await offsiteBucket();
    const clock = createManualClock("2027-01-14T10:00:00.000Z");
    const ctx = await createAdminContext(offsiteEnv(inject("backends").s3Endpoint, bucket.name), { clock });
    cleanups.push(() => ctx.close());
    const runner: OffsiteCopyRunner = () => Promise.reject(new Error("no copy may be attempted"));
    const schedule = createOffsiteSchedule(ctx.services, { runner, clock });
    cleanups.push(() => schedule.stop());
    await schedule.start();
    clock.advance(24 * 60 * MINUTE);
    expect(await schedule.runDue()).toBe("no-passphrase");
    expect(await bucket.keys()).toEqual([]);
    const status = (await ctx.admin.get("/api/admin/backups/status").expect(200)).body as BackupStatus;
    expect(status.offsite).toMatchObject({
      configured: true,
      encrypted: false,
      state: "no-passphrase",
      nextCopyAt: null,
    });
    await ctx.api.get("/api/content/hero.title").expect(200);
  }, 120_000);

  it("a store that refuses writes: red after 3 failed hours, one e-mail; the site keeps serving; the next copy that works ends it", async () => {
    const smtp = await startSmtpServer();
    cleanups.push(() => smtp.stop());
    const bucket = await offsiteBucket();
    const front = await startRefusingFront(inject("backends").s3Endpoint);
    cleanups.push(() => front.stop());
    const clock = createManualClock("2027-01-14T10:00:00.000Z");
    const ctx = await createMailContext({
      smtpUrl: smtp.url,
      clock,
      env: { ...offsiteEnv(front.endpoint, bucket.name), BACKUP_PASSPHRASE: OFFSITE_PASSPHRASE },
    });
    cleanups.push(() => ctx.close());
    const schedule = createOffsiteSchedule(ctx.services, {
      runner: inProcessRunner(ctx.services, front.endpoint, bucket.name),
      clock,
    });
    cleanups.push(() => schedule.stop());
    await schedule.start();
    clock.advance(OFFSITE_AFTER_START_MS);
    expect(await schedule.runDue()).toBe("copied");

    front.refusing = true;
    const hour = async () => {
      clock.advance(60 * MINUTE);
      const outcome = await schedule.runDue();
      await ctx.outbox.runDue();
      const status = (await ctx.admin.get("/api/admin/backups/status").expect(200)).body as BackupStatus;
      // Whatever the copies do, the site answers.
      await ctx.api.get("/api/content/hero.title").expect(200);
      return { outcome, offsite: status.offsite };
    };
    const offsiteMails = () => smtp.messages.filter((mail) => mail.subject?.includes("not leaving the server"));
    for (const _attempt of [1, 2]) {
      const { outcome, offsite } = await hour();
      expect(outcome).toBe("failed");
      // One and two failed hours since the last copy: not red yet.
      expect(offsite.state).toBe("ok");
      expect(offsite.failing).toBeNull();
    }
    expect(front.refused).toBeGreaterThan(0);
    expect(offsiteMails()).toHaveLength(0);
    const red = await hour();
    expect(red.offsite.state).toBe("failing");
    expect(red.offsite.failing).toMatchObject({ failures: 3 });
    expect(red.offsite.failing!.message).toContain("AccessDenied");
    await smtp.waitForMessages(1);
    expect(offsiteMails()).toHaveLength(1);
    expect(offsiteMails()[0]!.text).toContain("for the last three hours");
    await hour();
    expect(offsiteMails()).toHaveLength(1);

    front.refusing = false;
    const mended = await hour();
    expect(mended.outcome).toBe("copied");
    expect(mended.offsite).toMatchObject({ state: "ok", failing: null, lastCopy: { at: clock.now().toISOString() } });
  }, 240_000);

  it("a copy runs in a process of its own: the web process does not carry its memory; both peaks are reported", async () => {
    const bucket = await offsiteBucket();
    const clock = createManualClock("2027-01-14T10:00:00.000Z");
    const ctx = await createAdminContext(
      { ...offsiteEnv(inject("backends").s3Endpoint, bucket.name), BACKUP_PASSPHRASE: OFFSITE_PASSPHRASE },
      { clock },
    );
    cleanups.push(() => ctx.close());
    await fillOffsiteSite({ ...ctx.services, clock });
    const forked = forkedCopyRunner(offsiteCopyFromSource(), createLogger({ level: "silent" }), {
      ...process.env,
      ...ctx.envVars,
    });
    let copied: Awaited<ReturnType<OffsiteCopyRunner>> | null = null;
    const runner: OffsiteCopyRunner = async (request) => (copied = await forked(request));
    const schedule = createOffsiteSchedule(ctx.services, { runner, clock });
    cleanups.push(() => schedule.stop());
    await schedule.start();
    clock.advance(OFFSITE_AFTER_START_MS);
    const before = await peakRssMB(process.pid);
    expect(await schedule.runDue()).toBe("copied");
    const result = copied as unknown as Awaited<ReturnType<OffsiteCopyRunner>>;
    expect(result.copy.missingObjects).toBe(0);
    expect(await bucket.keys(`${REPOSITORY_PREFIX}copies/`)).toEqual([
      `${REPOSITORY_PREFIX}copies/${result.copy.name}`,
    ]);
    // scrypt alone takes 256 MiB in the copy process (age's default work factor there); none of it reaches this one.
    expect(result.peakRssMB).toBeGreaterThan(256);
    expect(await peakRssMB(process.pid)).toBeLessThan(before + 64);
    console.log(
      `peak RSS: copy process ${result.peakRssMB} MB; this (web) process ${Math.round(await peakRssMB(process.pid))} MB`,
    );
  }, 240_000);
});
