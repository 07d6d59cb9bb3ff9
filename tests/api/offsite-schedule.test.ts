// @same-on-every-backend: it picks its own database and storage, or runs scripts on a data directory
import fs from "node:fs/promises";
import os from "node:os";
import path from "node:path";
import { DeleteObjectCommand, PutObjectCommand } from "@aws-sdk/client-s3";
import { afterAll, afterEach, beforeAll, describe, expect, inject, it } from "vitest";
import type { BackupStatus } from "~/backups/backup-status";
import { takeOffsiteCopy, type OffsiteCopyResult } from "~/backups/offsite-copy-process.server";
import { REPOSITORY_PREFIX } from "~/backups/offsite-restic.server";
import { createOffsiteSchedule, forkedCopyRunner, type OffsiteCopyRunner } from "~/backups/offsite-schedule.server";
import { saveContent } from "~/content/content.server";
import { createManualClock } from "~/lib/clock";
import { createLogger } from "~/lib/logger.server";
import type { AppServices } from "~/services.server";
import { offsiteCopyFromSource } from "../../server/child-process-sources";
import { acquireBackend, createAdminContext } from "./helpers";
import { createMailContext } from "./mail-helpers";
import { createTestBucket } from "../support/backends";
import { capturingLogger, ERROR_LEVEL } from "../support/backup-site";
import { insertEnquiryWithPhotos, OFFSITE_PASSPHRASE } from "../support/offsite-site";
import { resticCli, resticS3Env, startResticS3, type ResticS3 } from "../support/restic";
import { runScript } from "../support/run-script";
import { startSmtpServer } from "../support/smtp";

/**
 * When off-site copies leave (decision 0070): 5 minutes after each start, then every
 * BACKUP_OFFSITE_MINUTES, one at a time across instances, each in a process of its own; failing
 * copies turn the dashboard red after 3 hours, with one e-mail, while the site keeps serving, and
 * a repository restic cannot open is named; without a passphrase or without restic nothing
 * leaves, and the dashboard says so. SQLite and the disk: nothing here depends on the back end.
 */
const MINUTE = 60_000;
const SQLITE = { database: "sqlite", storage: "disk" } as const;
let front: ResticS3;
beforeAll(async () => {
  front = await startResticS3(inject("backends").s3Endpoint);
});
afterAll(() => front?.stop());
const cleanups: (() => Promise<unknown>)[] = [];
afterEach(async () => {
  for (const cleanup of cleanups.splice(0).reverse()) await cleanup().catch(() => {});
});

async function tempDir(label: string) {
  const dir = await fs.mkdtemp(path.join(os.tmpdir(), `cornerstone-${label}-`));
  cleanups.push(() => fs.rm(dir, { recursive: true, force: true }));
  return dir;
}

/** Copies by the server's own runner: a process forked for each, with these settings; its results kept. */
function forkedRunner(vars: Record<string, string>) {
  const results: OffsiteCopyResult[] = [];
  const forked = forkedCopyRunner(offsiteCopyFromSource(), createLogger({ level: "silent" }), {
    ...process.env,
    ...vars,
  });
  const runner: OffsiteCopyRunner = async (request) => {
    const result = await forked(request);
    results.push(result);
    return result;
  };
  return { runner, results };
}

const statusOf = async (agent: { get(url: string): { expect(status: number): PromiseLike<{ body: unknown }> } }) =>
  ((await agent.get("/api/admin/backups/status").expect(200)).body as BackupStatus).offsite;

async function smallSite(services: AppServices) {
  await saveContent(services, "hero.title", "Stone that outlasts us all");
  await insertEnquiryWithPhotos(services, 1, 1, new Date("2027-01-14T09:00:00.000Z"));
}

describe("the off-site copy schedule", () => {
  it("copies 5 minutes after a start, then every BACKUP_OFFSITE_MINUTES, each in a process of its own; two instances make one copy, from the last one", async () => {
    const repository = path.join(await tempDir("offsite-folder"), "repository");
    const clock = createManualClock("2027-01-14T10:00:00.000Z");
    const vars = { BACKUP_OFFSITE_REPOSITORY: repository, BACKUP_PASSPHRASE: OFFSITE_PASSPHRASE };
    const ctx = await createAdminContext(vars, { ...SQLITE, clock });
    cleanups.push(() => ctx.close());
    await smallSite(ctx.services);
    const { runner, results } = forkedRunner(ctx.envVars);
    const first = createOffsiteSchedule(ctx.services, { runner, clock });
    cleanups.push(() => first.stop());
    await first.start();
    expect(await first.runDue()).toBe("not-due");
    clock.advance(5 * MINUTE);
    expect(await first.runDue()).toBe("copied");
    expect(results[0]!.peakRssMB).toBeGreaterThan(0);
    expect(await statusOf(ctx.admin)).toMatchObject({ state: "ok", lastCopy: { name: results[0]!.snapshot } });

    const other = createOffsiteSchedule((await ctx.openInstance()).services, { runner, clock });
    cleanups.push(() => other.stop());
    clock.advance(30 * MINUTE);
    expect(await first.runDue()).toBe("not-due");
    clock.advance(30 * MINUTE);
    expect((await Promise.all([first.runDue(), other.runDue()])).sort()).toEqual(["claimed-elsewhere", "copied"]);
    const listed = await resticCli(["snapshots", "--json"], { repository, passphrase: OFFSITE_PASSPHRASE });
    expect(JSON.parse(listed.stdout)).toMatchObject([
      { id: results[0]!.snapshot, time: "2027-01-14T10:05:00Z" },
      { id: results[1]!.snapshot, time: "2027-01-14T11:05:00Z", parent: results[0]!.snapshot },
    ]);
  }, 240_000);

  it("failing copies: red 3 hours after the last that worked, one e-mail for the outage; the site keeps serving; the next copy that works ends it", async () => {
    const smtp = await startSmtpServer();
    cleanups.push(() => smtp.stop());
    const repository = path.join(await tempDir("offsite-folder"), "repository");
    const vars = { BACKUP_OFFSITE_REPOSITORY: repository, BACKUP_PASSPHRASE: OFFSITE_PASSPHRASE };
    const clock = createManualClock("2027-01-14T10:00:00.000Z");
    const ctx = await createMailContext({
      smtpUrl: smtp.url,
      clock,
      env: vars,
      backend: await acquireBackend({}, SQLITE),
    });
    cleanups.push(() => ctx.close());
    await smallSite(ctx.services);
    // Copies in this process; a wrong passphrase makes restic refuse them until it is put right.
    let passphrase = OFFSITE_PASSPHRASE;
    const runner: OffsiteCopyRunner = (request) =>
      takeOffsiteCopy({ ...ctx.services, env: { ...ctx.services.env, BACKUP_PASSPHRASE: passphrase } }, request);
    const schedule = createOffsiteSchedule(ctx.services, { runner, clock });
    cleanups.push(() => schedule.stop());
    await schedule.start();
    clock.advance(5 * MINUTE);
    expect(await schedule.runDue()).toBe("copied");

    passphrase = "not-the-passphrase-it-was";
    const hour = async () => {
      clock.advance(60 * MINUTE);
      const outcome = await schedule.runDue();
      await ctx.outbox.runDue();
      await ctx.api.get("/api/content/hero.title").expect(200);
      return { outcome, offsite: await statusOf(ctx.admin) };
    };
    const mails = () => smtp.messages.filter((mail) => mail.subject?.includes("not leaving the server"));
    for (const _hour of [1, 2]) expect(await hour()).toMatchObject({ outcome: "failed", offsite: { state: "ok" } });
    expect(mails()).toHaveLength(0);
    const red = await hour();
    expect(red.offsite).toMatchObject({ state: "failing", failing: { failures: 3 } });
    expect(red.offsite.failing!.message).toContain("The backup passphrase (BACKUP_PASSPHRASE) does not open");
    await smtp.waitForMessages(1);
    await hour();
    expect(mails()).toHaveLength(1);

    passphrase = OFFSITE_PASSPHRASE;
    expect(await hour()).toMatchObject({ outcome: "copied", offsite: { state: "ok", failing: null } });
  }, 240_000);

  it("a file under keys/ that is not a key stops restic: the dashboard and --verify say so and name it; once it goes, copies leave", async () => {
    const bucket = await createTestBucket(inject("backends").s3Endpoint, { siteOrigins: [] });
    cleanups.push(() => bucket.remove());
    // A copy every 3 hours: the first that fails is 3 hours after the last that worked, so the dashboard is red.
    const settings = { BACKUP_PASSPHRASE: OFFSITE_PASSPHRASE, BACKUP_OFFSITE_MINUTES: "180" };
    const vars = { ...resticS3Env(front, bucket.name), ...settings };
    const clock = createManualClock("2027-01-14T10:00:00.000Z");
    const ctx = await createAdminContext(vars, { ...SQLITE, clock });
    cleanups.push(() => ctx.close());
    await smallSite(ctx.services);
    // In a forked process, which trusts Caddy's root through SSL_CERT_FILE as a server given it would.
    const { runner } = forkedRunner(ctx.envVars);
    const schedule = createOffsiteSchedule(ctx.services, { runner, clock });
    cleanups.push(() => schedule.stop());
    await schedule.start();
    clock.advance(5 * MINUTE);
    expect(await schedule.runDue()).toBe("copied");

    // Sorted before the repository's own key, as S3 lists: restic stops at it.
    const junk = `${REPOSITORY_PREFIX}/keys/${"0".repeat(64)}`;
    await bucket.client.send(new PutObjectCommand({ Bucket: bucket.name, Key: junk, Body: "not a key" }));
    const named = `holds keys/${"0".repeat(64)}, which restic cannot read as a key`;
    clock.advance(180 * MINUTE);
    expect(await schedule.runDue()).toBe("failed");
    const offsite = await statusOf(ctx.admin);
    expect(offsite).toMatchObject({ state: "failing" });
    expect(offsite.failing!.message).toContain(named);
    const verified = await runScript("backup", ["--verify"], ctx.envVars);
    expect(verified.status).toBe(1);
    expect(verified.stderr).toContain(named);
    expect(verified.stderr).toContain("Remove it from the store");

    await bucket.client.send(new DeleteObjectCommand({ Bucket: bucket.name, Key: junk }));
    clock.advance(180 * MINUTE);
    expect(await schedule.runDue()).toBe("copied");
  }, 240_000);

  it("without a passphrase or without restic no copy leaves; the dashboard says so in red, the log and npm run backup -- --offsite name the package; the site keeps serving", async () => {
    const repository = path.join(await tempDir("offsite-folder"), "repository");
    const clock = createManualClock("2027-01-14T10:00:00.000Z");
    const noCopy: OffsiteCopyRunner = () => Promise.reject(new Error("no copy may be attempted"));
    const bare = await createAdminContext({ BACKUP_OFFSITE_REPOSITORY: repository }, { ...SQLITE, clock });
    cleanups.push(() => bare.close());
    expect(await createOffsiteSchedule(bare.services, { runner: noCopy, clock }).runDue()).toBe("no-passphrase");
    expect(await statusOf(bare.admin)).toMatchObject({ state: "no-passphrase", nextCopyAt: null });

    const vars = { BACKUP_OFFSITE_REPOSITORY: repository, BACKUP_PASSPHRASE: OFFSITE_PASSPHRASE };
    const ctx = await createAdminContext(vars, { ...SQLITE, clock });
    cleanups.push(() => ctx.close());
    const withoutRestic = await tempDir("no-restic");
    const { logger, lines } = capturingLogger();
    const savedPath = process.env.PATH;
    process.env.PATH = withoutRestic;
    try {
      const schedule = createOffsiteSchedule({ ...ctx.services, logger }, { runner: noCopy, clock });
      await schedule.start();
      clock.advance(24 * 60 * MINUTE);
      expect(await schedule.runDue()).toBe("no-restic");
      await schedule.stop();
      expect(await statusOf(ctx.admin)).toMatchObject({ state: "no-restic", nextCopyAt: null });
      await ctx.api.get("/api/content/hero.title").expect(200);
    } finally {
      process.env.PATH = savedPath;
    }
    expect(lines.filter((line) => line.level === ERROR_LEVEL).map((line) => line.msg)).toContain(
      "restic is not installed on this server, so no copy can leave it: install it with apt-get install restic",
    );
    const copied = await runScript("backup", ["--offsite"], { ...ctx.envVars, PATH: withoutRestic });
    expect(copied.status).toBe(1);
    expect(copied.stderr).toContain("install it with apt-get install restic");
    await expect(fs.stat(repository)).rejects.toThrow();
  }, 240_000);
});
