import fs from "node:fs/promises";
import http from "node:http";
import type { AddressInfo } from "node:net";
import os from "node:os";
import path from "node:path";
import { CreateBucketCommand, DeleteBucketCommand, DeleteObjectCommand, GetObjectCommand, PutObjectCommand } from "@aws-sdk/client-s3";
import supertest from "supertest";
import { afterAll, afterEach, beforeAll, describe, expect, it } from "vitest";
import { setAdministratorCredentials } from "~/auth/auth.server";
import { decryptFile, isEncryptedFile } from "~/backups/backup-encryption.server";
import { backupsDirOf } from "~/backups/backup-files.server";
import { loadBackupNaming } from "~/backups/backup-names.server";
import { createBackupScheduler } from "~/backups/backup-scheduler.server";
import { readOffsiteStatus } from "~/backups/offsite-copy.server";
import { createS3OffsiteTarget, OFFSITE_PREFIX } from "~/backups/offsite-target.server";
import { verifyArchive } from "~/backups/restore.server";
import { parseEnv } from "~/env.server";
import { createManualClock, type ManualClock } from "~/lib/clock";
import { createLogger } from "~/lib/logger.server";
import type { AppServices } from "~/services.server";
import { createS3Client } from "~/storage/s3-storage.server";
import { createApp } from "../../server/app";
import { openServices } from "../../server/bootstrap";
import { createTestBucket, s3ConfigFor, S3_TEST_CREDENTIALS, S3_TEST_REGION, startS3Server, type S3Server } from "../support/backends";
import { binaryBody } from "../support/binary-body";
import { createSite, dumpSite, openSite, type SiteDump } from "../support/backup-site";
import { runScript } from "../support/run-script";
import { startSmtpServer, type TestSmtpServer } from "../support/smtp";
import { ADMIN } from "./helpers";
import { createMailContext } from "./mail-helpers";

/** Issue 18 item 9: backups copied to an S3-compatible bucket (s3rver), encrypted with age, restored from there. */
const HOUR = 60 * 60 * 1000;
const PASSPHRASE = "quarry-lantern-basalt-orchard";

let s3: S3Server;
const cleanups: (() => Promise<unknown>)[] = [];
beforeAll(async () => {
  s3 = await startS3Server();
});
afterAll(async () => {
  await s3.stop();
});
afterEach(async () => {
  for (const cleanup of cleanups.splice(0).reverse()) await cleanup();
});

function offsiteEnv(bucket: string): Record<string, string> {
  return {
    BACKUP_S3_BUCKET: bucket,
    BACKUP_S3_ENDPOINT: s3.endpoint,
    BACKUP_S3_REGION: S3_TEST_REGION,
    BACKUP_S3_FORCE_PATH_STYLE: "true",
    BACKUP_S3_ACCESS_KEY_ID: S3_TEST_CREDENTIALS.accessKeyId,
    BACKUP_S3_SECRET_ACCESS_KEY: S3_TEST_CREDENTIALS.secretAccessKey,
  };
}

async function offsiteBucket() {
  const bucket = await createTestBucket(s3.endpoint, { siteOrigins: [] });
  cleanups.push(() => bucket.remove());
  return bucket;
}

/** A small real site (photos, enquiries), opened with the off-site settings and a manual clock. */
async function siteWithOffsite(env: Record<string, string>) {
  const site = await createSite({ galleries: { traditional: 1, veneer: 1 }, enquiries: 3 });
  const dump = await dumpSite(site.services);
  await site.services.close();
  const clock = createManualClock("2026-05-01T15:00:00.000Z");
  const services = await openServices(
    parseEnv({ DATA_DIR: site.dataDir, LOG_LEVEL: "silent", NODE_ENV: "test", ...env }),
    createLogger({ level: "silent" }),
    { clock },
  );
  cleanups.push(async () => {
    await services.close();
    await fs.rm(site.dataDir, { recursive: true, force: true });
  });
  return { dataDir: site.dataDir, dump, clock, services };
}

/** One scheduled backup of a site with BACKUP_PASSPHRASE, copied to a fresh off-site bucket. */
async function encryptedScheduledBackup() {
  const bucket = await offsiteBucket();
  const site = await siteWithOffsite({ ...offsiteEnv(bucket.name), BACKUP_PASSPHRASE: PASSPHRASE });
  const scheduler = createBackupScheduler(site.services, { clock: site.clock, intervalHours: 24, keep: 7 });
  cleanups.push(() => scheduler.stop());
  await scheduler.runDue();
  site.clock.advance(24 * HOUR);
  expect(await scheduler.runDue()).toBe("succeeded");
  const [local] = (await fs.readdir(backupsDirOf(site.dataDir))).filter((name) => name.startsWith("cornerstone-"));
  return { bucket, site, local: local! };
}

describe("off-site backups", () => {
  it("a scheduled backup is written to DATA_DIR/backups, then copied off-site; BACKUP_KEEP prunes only this installation's own copies", async () => {
    const bucket = await offsiteBucket();
    const site = await siteWithOffsite(offsiteEnv(bucket.name));
    // Planted by someone else, with a name that sorts first: pruning must never take it.
    await bucket.client.send(new PutObjectCommand({ Bucket: bucket.name, Key: `${OFFSITE_PREFIX}cornerstone-20000101-000000.tar.gz`, Body: "x" }));
    const scheduler = createBackupScheduler(site.services, { clock: site.clock, intervalHours: 24, keep: 2 });
    cleanups.push(() => scheduler.stop());

    expect(await scheduler.runDue()).toBe("not-due");
    const local: string[] = [];
    for (let day = 1; day <= 3; day++) {
      site.clock.advance(24 * HOUR);
      expect(await scheduler.runDue()).toBe("succeeded");
      local.push(...(await fs.readdir(backupsDirOf(site.dataDir))).filter((name) => name.endsWith(".tar.gz") && !local.includes(name)));
    }
    expect(local).toHaveLength(3);
    // The same file, byte for byte, is what lies off-site: the newest two of the three, and the planted one.
    expect(await bucket.keys(OFFSITE_PREFIX)).toEqual(
      [`${OFFSITE_PREFIX}cornerstone-20000101-000000.tar.gz`, ...local.slice(1).map((name) => `${OFFSITE_PREFIX}${name}`)].sort(),
    );
    const newest = local[2]!;
    const held = await bucket.client.send(new GetObjectCommand({ Bucket: bucket.name, Key: `${OFFSITE_PREFIX}${newest}` }));
    const offsiteBytes = Buffer.from(await held.Body!.transformToByteArray());
    expect(offsiteBytes.equals(await fs.readFile(path.join(backupsDirOf(site.dataDir), newest)))).toBe(true);

    const status = await fetchStatus(site);
    expect(status.offsite).toEqual({
      configured: true,
      encrypted: false,
      lastCopy: { at: "2026-05-04T15:00:00.000Z", name: newest },
      failing: null,
    });
  }, 120_000);

  it("two failed uploads in a row raise the notice and send one e-mail for the outage; the next upload that works ends it", async () => {
    const smtp = await startSmtpServer();
    cleanups.push(() => smtp.stop());
    const bucketName = `t-offsite-${Date.now().toString(36)}`;
    // The bucket does not exist yet: every upload fails until it does.
    const ctx = await createMailContext({ smtpUrl: smtp.url, env: offsiteEnv(bucketName) });
    cleanups.push(() => ctx.close());
    const scheduler = createBackupScheduler(ctx.services, { clock: ctx.clock, intervalHours: 24, keep: 7 });
    cleanups.push(() => scheduler.stop());
    await scheduler.runDue();

    const day = async () => {
      ctx.clock.advance(24 * HOUR);
      expect(await scheduler.runDue()).toBe("succeeded");
      await ctx.outbox.runDue();
      return (await ctx.admin.get("/api/admin/backups/status").expect(200)).body as StatusBody;
    };

    const first = await day();
    expect(first.offsite.failing).toBeNull();
    expect(offsiteMails(smtp)).toHaveLength(0);

    const second = await day();
    expect(second.offsite.failing).toMatchObject({ failures: 2 });
    expect(second.offsite.failing!.message).toContain(bucketName);
    expect(second.offsite.lastCopy).toBeNull();
    await smtp.waitForMessages(1);
    const [mail] = offsiteMails(smtp);
    expect(mail!.subject).toBe("Backups of the Cornerstone Stonemasonry website are not leaving the server");
    expect(mail!.text).toContain("Ask whoever runs your website to look at it.");
    expect(mail!.text).toContain("Details for whoever runs your website:");

    // Still failing: still one e-mail for this outage.
    const third = await day();
    expect(third.offsite.failing).toMatchObject({ failures: 3 });
    expect(offsiteMails(smtp)).toHaveLength(1);

    // The bucket is there now: the next backup goes off-site and the notice goes away.
    const client = createS3Client(s3ConfigFor(s3.endpoint, bucketName));
    cleanups.push(async () => client.destroy());
    await client.send(new CreateBucketCommand({ Bucket: bucketName }));
    const fourth = await day();
    expect(fourth.offsite.failing).toBeNull();
    expect(fourth.offsite.lastCopy?.at).toBe(ctx.clock.now().toISOString());
    expect(offsiteMails(smtp)).toHaveLength(1);

    // A new outage gets its own e-mail, again only after the second failure.
    await emptyAndDelete(client, bucketName, fourth.offsite.lastCopy!.name);
    await day();
    expect(offsiteMails(smtp)).toHaveLength(1);
    const sixth = await day();
    expect(sixth.offsite.failing).toMatchObject({ failures: 2 });
    await smtp.waitForMessages(2);
    expect(offsiteMails(smtp)).toHaveLength(2);
  }, 120_000);

  it("with BACKUP_PASSPHRASE, the backup is encrypted with age on the server and off it, and restores from the off-site copy onto an empty DATA_DIR", async () => {
    const { bucket, site, local } = await encryptedScheduledBackup();
    expect(local).toMatch(/\.tar\.gz\.age$/);
    const localFile = path.join(backupsDirOf(site.dataDir), local);
    expect(await isEncryptedFile(localFile)).toBe(true);
    // Nothing of the site reads through: no enquiry text, no gzip header after age's.
    const bytes = await fs.readFile(localFile);
    expect(bytes.includes(Buffer.from("could you quote for a stone wall"))).toBe(false);
    expect(bytes.includes(Buffer.from([0x1f, 0x8b, 0x08]))).toBe(false);
    expect(await bucket.keys(OFFSITE_PREFIX)).toEqual([`${OFFSITE_PREFIX}${local}`]);
    // The name still counts as this installation's own (pruned, not listed as someone else's).
    expect((await loadBackupNaming({ dataDir: site.dataDir })).verify(local)).toMatchObject({ kind: "cornerstone" });
    expect((await fetchStatus(site)).offsite.encrypted).toBe(true);

    // The server is lost: a new, empty DATA_DIR, the same off-site settings, the passphrase from a file.
    const fresh = await fs.mkdtemp(path.join(os.tmpdir(), "cornerstone-offsite-restore-"));
    cleanups.push(() => fs.rm(fresh, { recursive: true, force: true }));
    const passphraseFile = path.join(fresh, "..", `${path.basename(fresh)}.passphrase`);
    await fs.writeFile(passphraseFile, `${PASSPHRASE}\n`, { mode: 0o600 });
    cleanups.push(() => fs.rm(passphraseFile, { force: true }));
    const restored = await runScript("restore", ["--from-offsite", "--passphrase-file", passphraseFile], {
      DATA_DIR: fresh,
      LOG_LEVEL: "silent",
      ...offsiteEnv(bucket.name),
    });
    expect(restored.status, restored.stderr).toBe(0);
    expect(restored.stdout).toContain(`Restored ${local}`);
    const reopened = await openSite(fresh);
    cleanups.push(() => reopened.close());
    expect(await dumpSite(reopened)).toEqual(site.dump);
    // The downloaded and decrypted copies are gone.
    expect((await fs.readdir(fresh, { recursive: true })).filter((name) => path.basename(name).startsWith(".restore-"))).toEqual([]);
  }, 180_000);

  it("a wrong passphrase is refused, and nothing is changed", async () => {
    const { bucket, site, local } = await encryptedScheduledBackup();
    await site.services.close();

    // Another site's data, which a restore would replace.
    const target = await createSite({ galleries: { landscaping: 1 }, enquiries: 2 });
    const before: SiteDump = await dumpSite(target.services);
    await target.services.close();
    cleanups.push(() => fs.rm(target.dataDir, { recursive: true, force: true }));
    const listing = async () => (await fs.readdir(target.dataDir, { recursive: true })).sort();
    const filesBefore = await listing();

    const wrong = path.join(os.tmpdir(), `cornerstone-wrong-${Date.now()}.passphrase`);
    await fs.writeFile(wrong, "not-the-passphrase-at-all\n");
    cleanups.push(() => fs.rm(wrong, { force: true }));
    const env = { DATA_DIR: target.dataDir, LOG_LEVEL: "silent", ...offsiteEnv(bucket.name) };
    for (const args of [["--from-offsite", local], [path.join(backupsDirOf(site.dataDir), local)]]) {
      const refused = await runScript("restore", [...args, "--passphrase-file", wrong], env);
      expect(refused.status).toBe(1);
      expect(refused.stderr).toContain("The passphrase does not open this backup");
      expect(refused.stderr).toContain("Nothing was changed.");
    }
    expect(await listing()).toEqual(filesBefore);
    const after = await openSite(target.dataDir);
    cleanups.push(() => after.close());
    expect(await dumpSite(after)).toEqual(before);
  }, 180_000);

  it("an archive larger than one part goes up as a multipart upload and comes back byte for byte", async () => {
    const bucket = await offsiteBucket();
    const target = createS3OffsiteTarget(s3ConfigFor(s3.endpoint, bucket.name));
    cleanups.push(async () => target.close());
    const dir = await fs.mkdtemp(path.join(os.tmpdir(), "cornerstone-offsite-parts-"));
    cleanups.push(() => fs.rm(dir, { recursive: true, force: true }));
    // 20 MiB: one 16 MiB part and a 4 MiB one.
    const big = path.join(dir, "cornerstone-big.tar.gz");
    const handle = await fs.open(big, "w");
    for (let i = 0; i < 20; i++) await handle.write(Buffer.alloc(1024 * 1024, i));
    await handle.close();
    expect(await target.upload("cornerstone-big.tar.gz", big)).toEqual({ bytes: 20 * 1024 * 1024 });
    // Every byte in place: a part's range off by one, or a part left out, shows here.
    await target.download("cornerstone-big.tar.gz", path.join(dir, "back"));
    expect((await fs.readFile(path.join(dir, "back"))).equals(await fs.readFile(big))).toBe(true);
    expect(await target.list()).toEqual([{ name: "cornerstone-big.tar.gz", bytes: 20 * 1024 * 1024, modifiedAt: expect.any(Date) }]);
  }, 120_000);

  it("a connection dropped during a part costs that part only: it is sent again and the copy is whole", async () => {
    const bucket = await offsiteBucket();
    // Between the server and s3rver: cuts the connection of the first attempt at part 2. It forwards
    // the signed Host of its own address, so it talks to s3rver itself, not to the verifying front.
    const upstream = new URL(s3.s3rverEndpoint);
    let cut = 0;
    const proxy = http.createServer((req, res) => {
      if (req.method === "PUT" && /[?&]partNumber=2(&|$)/.test(req.url ?? "") && cut === 0) {
        cut += 1;
        req.socket.destroy();
        return;
      }
      const forward = http.request({ host: upstream.hostname, port: upstream.port, method: req.method, path: req.url, headers: req.headers }, (answer) => {
        res.writeHead(answer.statusCode!, answer.headers);
        answer.pipe(res);
      });
      req.pipe(forward);
    });
    await new Promise<void>((resolve) => proxy.listen(0, "127.0.0.1", resolve));
    cleanups.push(() => new Promise((resolve) => proxy.close(resolve)));
    const target = createS3OffsiteTarget(s3ConfigFor(`http://127.0.0.1:${(proxy.address() as AddressInfo).port}`, bucket.name));
    cleanups.push(async () => target.close());
    const dir = await fs.mkdtemp(path.join(os.tmpdir(), "cornerstone-offsite-retry-"));
    cleanups.push(() => fs.rm(dir, { recursive: true, force: true }));
    const big = path.join(dir, "cornerstone-big.tar.gz");
    const handle = await fs.open(big, "w");
    for (let i = 0; i < 18; i++) await handle.write(Buffer.alloc(1024 * 1024, i + 1));
    await handle.close();

    await target.upload("cornerstone-big.tar.gz", big);
    expect(cut).toBe(1);
    await target.download("cornerstone-big.tar.gz", path.join(dir, "back"));
    expect((await fs.readFile(path.join(dir, "back"))).equals(await fs.readFile(big))).toBe(true);
  }, 120_000);

  it("the dashboard's download is encrypted too, and opens with the passphrase", async () => {
    const site = await siteWithOffsite({ BACKUP_PASSPHRASE: PASSPHRASE });
    await setAdministratorCredentials(site.services, { username: ADMIN.username, password: ADMIN.password });
    const admin = supertest.agent(createApp(site.services));
    await admin.post("/api/login").send(ADMIN).expect(200);
    const res = await admin
      .get("/api/admin/backups/download")
      .buffer(true)
      .parse(binaryBody)
      .expect(200);
    expect(res.headers["content-disposition"]).toMatch(/\.tar\.gz\.age"$/);
    const file = path.join(site.dataDir, "download.age");
    await fs.writeFile(file, res.body as Buffer);
    expect(await isEncryptedFile(file)).toBe(true);
    await decryptFile(file, `${file}.tar.gz`, PASSPHRASE);
    expect((await verifyArchive(`${file}.tar.gz`)).tables.contact_submissions?.rows).toBe(3);
  }, 120_000);
});

type StatusBody = { offsite: { configured: boolean; encrypted: boolean; lastCopy: { at: string; name: string } | null; failing: { failures: number; message: string } | null } };

async function fetchStatus(site: { services: AppServices; clock: ManualClock }) {
  const env = site.services.env;
  return { offsite: await readOffsiteStatus({ db: site.services.db, clock: site.clock }, { configured: Boolean(env.BACKUP_S3_BUCKET), encrypted: Boolean(env.BACKUP_PASSPHRASE) }) };
}

const offsiteMails = (smtp: TestSmtpServer) => smtp.messages.filter((mail) => mail.subject?.includes("not leaving the server"));

async function emptyAndDelete(client: ReturnType<typeof createS3Client>, bucket: string, name: string) {
  await client.send(new DeleteObjectCommand({ Bucket: bucket, Key: `${OFFSITE_PREFIX}${name}` }));
  await client.send(new DeleteBucketCommand({ Bucket: bucket }));
}
