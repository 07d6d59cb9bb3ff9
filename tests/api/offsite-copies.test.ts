import fs from "node:fs/promises";
import os from "node:os";
import path from "node:path";
import { GetObjectCommand, PutObjectCommand } from "@aws-sdk/client-s3";
import supertest from "supertest";
import { afterEach, describe, expect, inject, it } from "vitest";
import { backupsDirOf } from "~/backups/backup-files.server";
import { checkOffsiteStore } from "~/backups/offsite-check.server";
import { openOffsiteRepository } from "~/backups/offsite-repository.server";
import { keepPolicyOf, runOffsiteCopy, type OffsiteRunSettings } from "~/backups/offsite-run.server";
import { createS3OffsiteStore, REPOSITORY_PREFIX } from "~/backups/offsite-store.server";
import { parseEnv } from "~/env.server";
import { createManualClock } from "~/lib/clock";
import { createLogger } from "~/lib/logger.server";
import { saveContent } from "~/content/content.server";
import { createApp } from "../../server/app";
import { openServices } from "../../server/bootstrap";
import { acquireBackend, ADMIN, createAdminContext } from "./helpers";
import { createTestBucket, s3ConfigFor, type TestBucket } from "../support/backends";
import {
  dumpOffsiteSite,
  fillOffsiteSite,
  insertEnquiryWithPhotos,
  OFFSITE_PASSPHRASE,
  offsiteEnv,
  SECRET_WORDS,
} from "../support/offsite-site";
import { runScript } from "../support/run-script";

/**
 * Off-site copies (decision 0060) against s3rver behind the signature-checking
 * front: a copy restores onto an empty server; nothing readable reaches the
 * store; a wrong passphrase and a changed object are refused with nothing
 * changed; a copy cut off halfway is never restored and the next one completes.
 */
const cleanups: (() => Promise<unknown>)[] = [];
afterEach(async () => {
  for (const cleanup of cleanups.splice(0).reverse()) await cleanup().catch(() => {});
});

async function offsiteBucket(): Promise<TestBucket> {
  const bucket = await createTestBucket(inject("backends").s3Endpoint, { siteOrigins: [] });
  cleanups.push(() => bucket.remove());
  return bucket;
}

/** A filled site on this run's back end with an off-site bucket, and how to take a copy in-process (a fast scrypt). */
async function siteWithCopies() {
  const bucket = await offsiteBucket();
  const clock = createManualClock("2027-01-14T10:00:00.000Z");
  const env = { ...offsiteEnv(inject("backends").s3Endpoint, bucket.name), BACKUP_PASSPHRASE: OFFSITE_PASSPHRASE };
  const ctx = await createAdminContext(env, { clock });
  cleanups.push(() => ctx.close());
  const services = { ...ctx.services, clock };
  const twoStep = await fillOffsiteSite(services);
  const store = createS3OffsiteStore(s3ConfigFor(inject("backends").s3Endpoint, bucket.name));
  cleanups.push(async () => store.close());
  const workDir = backupsDirOf(ctx.dataDir);
  const settings: OffsiteRunSettings = {
    store,
    passphrase: OFFSITE_PASSPHRASE,
    policy: keepPolicyOf(ctx.env),
    workDir,
    cacheDir: path.join(workDir, ".offsite-cache"),
    scryptWorkFactor: 12,
  };
  const copy = (options: { signal?: AbortSignal } = {}) =>
    runOffsiteCopy(ctx.services, settings, { at: clock.now(), ...options });
  return { ctx, clock, bucket, store, settings, copy, twoStep };
}

/** An empty server on this run's back end: a fresh DATA_DIR (and a fresh database and bucket on PostgreSQL + S3). */
async function emptyServer(offsite: Record<string, string>) {
  const dataDir = await fs.mkdtemp(path.join(os.tmpdir(), "cornerstone-offsite-empty-"));
  cleanups.push(() => fs.rm(dataDir, { recursive: true, force: true }));
  const base = { DATA_DIR: dataDir, LOG_LEVEL: "silent", NODE_ENV: "test" };
  const backend = await acquireBackend(base);
  cleanups.push(() => backend.release());
  const passphraseFile = path.join(os.tmpdir(), `cornerstone-offsite-${path.basename(dataDir)}.passphrase`);
  await fs.writeFile(passphraseFile, `${OFFSITE_PASSPHRASE}\n`, { mode: 0o600 });
  cleanups.push(() => fs.rm(passphraseFile, { force: true }));
  const vars = { ...base, ...backend.env, ...offsite };
  return {
    dataDir,
    vars,
    passphraseFile,
    restore: (args: string[], file = passphraseFile) =>
      runScript("restore", [...args, "--passphrase-file", file], vars),
    open: async () => {
      const services = await openServices(parseEnv(vars), createLogger({ level: "silent" }));
      cleanups.push(() => services.close());
      return services;
    },
  };
}

const offsiteVars = (bucket: TestBucket) => offsiteEnv(inject("backends").s3Endpoint, bucket.name);

async function everyStoredByte(bucket: TestBucket): Promise<Buffer[]> {
  const bodies: Buffer[] = [];
  for (const key of await bucket.keys(REPOSITORY_PREFIX)) {
    const object = await bucket.client.send(new GetObjectCommand({ Bucket: bucket.name, Key: key }));
    bodies.push(Buffer.from(await object.Body!.transformToByteArray()));
  }
  return bodies;
}

describe("off-site copies", () => {
  it("restore onto an empty server: texts, photos, enquiries with their photos, the password and two-step; nothing readable in the store", async () => {
    const site = await siteWithCopies();
    const before = await dumpOffsiteSite(site.ctx.services);
    const first = await site.copy();
    expect(first.copy).toMatchObject({ files: Object.keys(before.objects).length, missingObjects: 0 });

    // Nothing readable: every stored object is age-encrypted; no enquiry, photo name, JPEG, gzip or SQLite bytes.
    const keys = await site.bucket.keys(REPOSITORY_PREFIX);
    expect(
      keys.every((key) =>
        /^cornerstone-backups\/repository\/(keys\/[0-9a-f]{32}|objects\/[0-9a-f]{64}|copies\/\d{8}-\d{6}-[0-9a-f]{8})$/.test(
          key,
        ),
      ),
    ).toBe(true);
    for (const body of await everyStoredByte(site.bucket)) {
      expect(body.subarray(0, 22).toString("latin1")).toBe("age-encryption.org/v1\n");
      for (const plain of [
        SECRET_WORDS.enquiry,
        SECRET_WORDS.photoName,
        SITE_TEXT,
        "SQLite format 3",
        ADMIN.username,
      ]) {
        expect(body.includes(Buffer.from(plain))).toBe(false);
      }
      expect(body.includes(Buffer.from([0xff, 0xd8, 0xff, 0xe0]))).toBe(false);
      expect(body.includes(Buffer.from([0x1f, 0x8b, 0x08]))).toBe(false);
    }

    const target = await emptyServer(offsiteVars(site.bucket));
    const restored = await target.restore(["--from-offsite"]);
    expect(restored.status, restored.stderr).toBe(0);
    expect(restored.stdout).toContain(`Restored ${first.copy.name}`);
    const services = await target.open();
    expect(await dumpOffsiteSite(services)).toEqual(before);
    // The rebuilt archive is gone.
    expect(
      (await fs.readdir(target.dataDir, { recursive: true })).filter((name) =>
        path.basename(name).startsWith(".restore-"),
      ),
    ).toEqual([]);

    // The password at the time of the copy, then two-step with a code from the original secret.
    const agent = supertest.agent(createApp({ ...services, clock: site.clock }));
    expect((await agent.post("/api/login").send(ADMIN).expect(200)).body).toEqual({ twoFactorRequired: true });
    // The next time step: the enrolment used this one's code, and a code is accepted once.
    site.clock.advance(30_000);
    const code = site.twoStep.totp.generate({ timestamp: site.clock.now().getTime() });
    expect((await agent.post("/api/login/two-factor").send({ code }).expect(200)).body.username).toBe(ADMIN.username);
  }, 240_000);

  it("sends only what changed: the next copy after one edited text sends a few KB, and no file again", async () => {
    const site = await siteWithCopies();
    const first = await site.copy();
    site.clock.advance(60 * 60_000);
    await saveContent(
      { ...site.ctx.services, clock: site.clock },
      "hero.title",
      "Stone that outlasts us all, and then some",
    );
    const second = await site.copy();
    expect(second.copy.filesRead).toBe(0);
    expect(second.copy.bytesSent).toBeLessThan(64 * 1024);
    expect(second.copy.bytesSent).toBeLessThan(first.copy.bytesSent / 10);
  }, 240_000);

  it("a wrong passphrase and a changed object are each refused, and nothing is changed", async () => {
    const site = await siteWithCopies();
    await site.copy();
    const target = await emptyServer(offsiteVars(site.bucket));
    // The target already holds a site (another one): a refused restore must leave it as it is.
    const services = await target.open();
    await saveContent({ ...services, clock: site.clock }, "hero.title", "The site that must stay");
    const stays = await dumpOffsiteSite(services);
    await services.close();

    const wrong = path.join(os.tmpdir(), `cornerstone-wrong-${Date.now()}.passphrase`);
    await fs.writeFile(wrong, "not-the-passphrase-at-all\n");
    cleanups.push(() => fs.rm(wrong, { force: true }));
    const refused = await target.restore(["--from-offsite"], wrong);
    expect(refused.status).toBe(1);
    expect(refused.stderr).toContain("The passphrase does not open the off-site copies' keys");
    expect(refused.stderr).toContain("Nothing was changed.");

    // An object swapped for another one (both sealed with the store's key, so age opens it): its name no longer fits.
    const objects = await site.bucket.keys(`${REPOSITORY_PREFIX}objects/`);
    const bodyOf = async (key: string) =>
      Buffer.from(
        await (
          await site.bucket.client.send(new GetObjectCommand({ Bucket: site.bucket.name, Key: key }))
        ).Body!.transformToByteArray(),
      );
    const put = (key: string, body: Buffer) =>
      site.bucket.client.send(new PutObjectCommand({ Bucket: site.bucket.name, Key: key, Body: body }));
    const bodies = await Promise.all(objects.map(async (key) => ({ key, body: await bodyOf(key) })));
    const [largest, second] = bodies.sort((x, y) => y.body.length - x.body.length);
    await put(second!.key, largest!.body);
    const swapped = await target.restore(["--from-offsite"]);
    expect(swapped.status).toBe(1);
    expect(swapped.stderr).toContain(
      `The object ${second!.key.split("/").pop()} in the off-site store is not what was written`,
    );
    expect(swapped.stderr).toContain("Nothing was changed.");
    await put(second!.key, second!.body);

    // One byte of the largest object (a photo) changed: age refuses it, before the restore touches anything.
    const changed = Buffer.from(largest!.body);
    changed[changed.length - 100] = changed[changed.length - 100]! ^ 0x01;
    await put(largest!.key, changed);
    const damaged = await target.restore(["--from-offsite"]);
    expect(damaged.status).toBe(1);
    expect(damaged.stderr).toMatch(/The object [0-9a-f]{64} in the off-site store is (damaged|not what was written)/);
    expect(damaged.stderr).toContain("Nothing was changed.");

    const after = await target.open();
    expect(await dumpOffsiteSite(after)).toEqual(stays);
    expect(
      (await fs.readdir(target.dataDir, { recursive: true })).filter((name) =>
        path.basename(name).startsWith(".restore-"),
      ),
    ).toEqual([]);

    // --verify finds every object there; --read-data finds the changed one.
    const verify = await runScript("backup", ["--verify", "--passphrase-file", target.passphraseFile], target.vars);
    expect(verify.status, verify.stderr).toBe(0);
    expect(verify.stdout).toMatch(/1 copies; every one of the \d+ objects they refer to is there\./);
    const readData = await runScript(
      "backup",
      ["--read-data", "--passphrase-file", target.passphraseFile],
      target.vars,
    );
    expect(readData.status).toBe(1);
    expect(readData.stderr).toContain(`Damaged: The object ${largest!.key.split("/").pop()}`);
  }, 240_000);

  it("a copy cut off halfway is never restored; the next copy completes, and what the first left behind is removed", async () => {
    const site = await siteWithCopies();
    const first = await site.copy();
    site.clock.advance(60 * 60_000);
    // An enquiry with new photos, then a copy stopped after its second object went up: no manifest, so no copy.
    const enquiry = await insertEnquiryWithPhotos(site.ctx.services, 7, 3, site.clock.now());
    const stop = new AbortController();
    const put = site.store.put.bind(site.store);
    let puts = 0;
    site.store.put = async (key, body, options) => {
      const sent = await put(key, body, options);
      if ((puts += 1) === 2) stop.abort(new Error("cut off"));
      return sent;
    };
    await expect(site.copy({ signal: stop.signal })).rejects.toThrow("cut off");
    site.store.put = put;
    expect(await site.bucket.keys(`${REPOSITORY_PREFIX}copies/`)).toEqual([
      `${REPOSITORY_PREFIX}copies/${first.copy.name}`,
    ]);

    // Listed and restored: only the copy that exists.
    const target = await emptyServer(offsiteVars(site.bucket));
    const listed = await target.restore(["--list"]);
    expect(listed.status, listed.stderr).toBe(0);
    expect(listed.stdout.match(/^ {2}\d{8}-\d{6}-[0-9a-f]{8} /gm)).toEqual([`  ${first.copy.name} `]);

    // The enquiry is deleted before the next copy: what the cut-off copy sent for it is needed by no copy.
    await site.ctx.services.db.deleteFrom("enquiry_photos").where("submission_id", "=", enquiry).execute();
    await site.ctx.services.db.deleteFrom("contact_submissions").where("id", "=", enquiry).execute();
    site.clock.advance(60 * 60_000);
    const next = await site.copy();
    expect(next.copy.missingObjects).toBe(0);
    expect(next.prune!.removedObjects).toBeGreaterThan(0);
    // Every object left is named by a kept copy, and every named object is there.
    const repo = (await openOffsiteRepository(site.store, OFFSITE_PASSPHRASE, { create: false }))!;
    const report = await checkOffsiteStore(repo, { readData: false });
    expect(report.missing).toEqual([]);
    expect(report.objects).toBe((await site.bucket.keys(`${REPOSITORY_PREFIX}objects/`)).length);

    const restored = await target.restore(["--from-offsite", next.copy.name]);
    expect(restored.status, restored.stderr).toBe(0);
    expect(await dumpOffsiteSite(await target.open())).toEqual(await dumpOffsiteSite(site.ctx.services));
  }, 240_000);
});

const SITE_TEXT = "Walls, steps and paving";
