import fs from "node:fs/promises";
import http from "node:http";
import type { AddressInfo } from "node:net";
import os from "node:os";
import path from "node:path";
import { PutObjectCommand } from "@aws-sdk/client-s3";
import supertest from "supertest";
import { afterAll, afterEach, beforeAll, describe, expect, it } from "vitest";
import { setAdministratorCredentials } from "~/auth/auth.server";
import { decryptFile, isEncryptedFile } from "~/backups/backup-encryption.server";
import { backupsDirOf } from "~/backups/backup-files.server";
import { createBackupScheduler } from "~/backups/backup-scheduler.server";
import { keepPolicyOf, runOffsiteCopy } from "~/backups/offsite-run.server";
import { createS3OffsiteStore, REPOSITORY_PREFIX } from "~/backups/offsite-store.server";
import { OFFSITE_PREFIX } from "~/backups/offsite-target.server";
import { verifyArchive } from "~/backups/restore.server";
import { parseEnv } from "~/env.server";
import { createManualClock } from "~/lib/clock";
import { createLogger } from "~/lib/logger.server";
import { createApp } from "../../server/app";
import { openServices } from "../../server/bootstrap";
import { createTestBucket, offsiteS3Env, s3ConfigFor, startS3Server, type S3Server } from "../support/backends";
import { binaryBody } from "../support/binary-body";
import { createSite, dumpSite, openSite, type SiteDump } from "../support/backup-site";
import { runScript } from "../support/run-script";
import { ADMIN } from "./helpers";

/**
 * Off-site backups of before (decision 0052): full archives in cornerstone-backups/, which the
 * content-addressed copies (decision 0060, tests/api/offsite-copies.test.ts) leave alone and which
 * still restore by name; and the bucket transport both use (multipart uploads, a dropped part).
 */
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

const offsiteEnv = (bucket: string) => offsiteS3Env(s3.endpoint, bucket);

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

describe("off-site backups: the full archives of before, and the bucket's transport", () => {
  it("scheduled backups stay on the server; full archives already in the bucket are kept by the new copies, and restore by their name", async () => {
    const bucket = await offsiteBucket();
    const site = await siteWithOffsite({
      ...offsiteEnv(bucket.name),
      BACKUP_PASSPHRASE: PASSPHRASE,
      BACKUP_KEEP_HOURLY: "1",
      BACKUP_KEEP_DAILY: "0",
      BACKUP_KEEP_MONTHLY: "0",
    });
    const scheduler = createBackupScheduler(site.services, { clock: site.clock, intervalHours: 24, keep: 7 });
    cleanups.push(() => scheduler.stop());
    await scheduler.runDue();
    site.clock.advance(24 * HOUR);
    expect(await scheduler.runDue()).toBe("succeeded");
    const [local] = (await fs.readdir(backupsDirOf(site.dataDir))).filter((name) => name.startsWith("cornerstone-"));
    // Only on the server now: off-site copies are the content-addressed ones (decision 0060).
    expect(await bucket.keys(OFFSITE_PREFIX)).toEqual([]);
    // As a server of before would have left it: the same archive in cornerstone-backups/.
    await bucket.client.send(
      new PutObjectCommand({
        Bucket: bucket.name,
        Key: `${OFFSITE_PREFIX}${local}`,
        Body: await fs.readFile(path.join(backupsDirOf(site.dataDir), local!)),
      }),
    );
    const store = createS3OffsiteStore(s3ConfigFor(s3.endpoint, bucket.name));
    cleanups.push(async () => store.close());
    const workDir = backupsDirOf(site.dataDir);
    for (let hour = 0; hour < 3; hour++) {
      site.clock.advance(HOUR);
      const settings = {
        store,
        passphrase: PASSPHRASE,
        policy: keepPolicyOf(site.services.env),
        workDir,
        scryptWorkFactor: 12,
      };
      const { prune } = await runOffsiteCopy(site.services, settings, { at: site.clock.now() });
      expect(prune!.keptCopies).toBe(1);
    }
    expect((await bucket.keys(OFFSITE_PREFIX)).filter((key) => !key.startsWith(REPOSITORY_PREFIX))).toEqual([
      `${OFFSITE_PREFIX}${local}`,
    ]);

    // The server is lost: the full archive restores by its name onto an empty DATA_DIR.
    const fresh = await fs.mkdtemp(path.join(os.tmpdir(), "cornerstone-offsite-restore-"));
    cleanups.push(() => fs.rm(fresh, { recursive: true, force: true }));
    const passphraseFile = path.join(fresh, "..", `${path.basename(fresh)}.passphrase`);
    await fs.writeFile(passphraseFile, `${PASSPHRASE}\n`, { mode: 0o600 });
    cleanups.push(() => fs.rm(passphraseFile, { force: true }));
    const env = { DATA_DIR: fresh, LOG_LEVEL: "silent", ...offsiteEnv(bucket.name) };
    const listed = await runScript("restore", ["--list", "--passphrase-file", passphraseFile], env);
    expect(listed.status, listed.stderr).toBe(0);
    expect(listed.stdout).toContain("Full backups copied there before (restore one by its name):");
    expect(listed.stdout).toContain(`  ${local}  `);
    const restored = await runScript("restore", ["--from-offsite", local!, "--passphrase-file", passphraseFile], env);
    expect(restored.status, restored.stderr).toBe(0);
    expect(restored.stdout).toContain(`Restored ${local}`);
    const reopened = await openSite(fresh);
    cleanups.push(() => reopened.close());
    expect(await dumpSite(reopened)).toEqual(site.dump);
    expect(
      (await fs.readdir(fresh, { recursive: true })).filter((name) => path.basename(name).startsWith(".restore-")),
    ).toEqual([]);
  }, 180_000);

  it("a wrong passphrase is refused for a full archive too, and nothing is changed", async () => {
    const bucket = await offsiteBucket();
    const site = await siteWithOffsite({ ...offsiteEnv(bucket.name), BACKUP_PASSPHRASE: PASSPHRASE });
    const scheduler = createBackupScheduler(site.services, { clock: site.clock, intervalHours: 24, keep: 7 });
    cleanups.push(() => scheduler.stop());
    await scheduler.runDue();
    site.clock.advance(24 * HOUR);
    expect(await scheduler.runDue()).toBe("succeeded");
    const [local] = (await fs.readdir(backupsDirOf(site.dataDir))).filter((name) => name.startsWith("cornerstone-"));
    await bucket.client.send(
      new PutObjectCommand({
        Bucket: bucket.name,
        Key: `${OFFSITE_PREFIX}${local}`,
        Body: await fs.readFile(path.join(backupsDirOf(site.dataDir), local!)),
      }),
    );
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
    for (const args of [["--from-offsite", local!], [path.join(backupsDirOf(site.dataDir), local!)]]) {
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
    const store = createS3OffsiteStore(s3ConfigFor(s3.endpoint, bucket.name));
    cleanups.push(async () => store.close());
    const dir = await fs.mkdtemp(path.join(os.tmpdir(), "cornerstone-offsite-parts-"));
    cleanups.push(() => fs.rm(dir, { recursive: true, force: true }));
    // 20 MiB: one 16 MiB part and a 4 MiB one.
    const big = path.join(dir, "cornerstone-big.tar.gz");
    const handle = await fs.open(big, "w");
    for (let i = 0; i < 20; i++) await handle.write(Buffer.alloc(1024 * 1024, i));
    await handle.close();
    expect(await store.put("objects/big", { file: big })).toBe(20 * 1024 * 1024);
    // Every byte in place: a part's range off by one, or a part left out, shows here.
    expect((await store.get("objects/big"))!.equals(await fs.readFile(big))).toBe(true);
    expect(await store.list("objects/")).toEqual([
      { key: "objects/big", bytes: 20 * 1024 * 1024, modifiedAt: expect.any(Date) },
    ]);
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
      const forward = http.request(
        { host: upstream.hostname, port: upstream.port, method: req.method, path: req.url, headers: req.headers },
        (answer) => {
          res.writeHead(answer.statusCode!, answer.headers);
          answer.pipe(res);
        },
      );
      req.pipe(forward);
    });
    await new Promise<void>((resolve) => proxy.listen(0, "127.0.0.1", resolve));
    cleanups.push(() => new Promise((resolve) => proxy.close(resolve)));
    const store = createS3OffsiteStore(
      s3ConfigFor(`http://127.0.0.1:${(proxy.address() as AddressInfo).port}`, bucket.name),
    );
    cleanups.push(async () => store.close());
    const dir = await fs.mkdtemp(path.join(os.tmpdir(), "cornerstone-offsite-retry-"));
    cleanups.push(() => fs.rm(dir, { recursive: true, force: true }));
    const big = path.join(dir, "cornerstone-big.tar.gz");
    const handle = await fs.open(big, "w");
    for (let i = 0; i < 18; i++) await handle.write(Buffer.alloc(1024 * 1024, i + 1));
    await handle.close();

    await store.put("objects/big", { file: big });
    expect(cut).toBe(1);
    expect((await store.get("objects/big"))!.equals(await fs.readFile(big))).toBe(true);
  }, 120_000);

  it("the dashboard's download is encrypted too, and opens with the passphrase", async () => {
    const site = await siteWithOffsite({ BACKUP_PASSPHRASE: PASSPHRASE });
    await setAdministratorCredentials(site.services, { username: ADMIN.username, password: ADMIN.password });
    const admin = supertest.agent(createApp(site.services));
    await admin.post("/api/login").send(ADMIN).expect(200);
    const res = await admin.get("/api/admin/backups/download").buffer(true).parse(binaryBody).expect(200);
    expect(res.headers["content-disposition"]).toMatch(/\.tar\.gz\.age"$/);
    const file = path.join(site.dataDir, "download.age");
    await fs.writeFile(file, res.body as Buffer);
    expect(await isEncryptedFile(file)).toBe(true);
    await decryptFile(file, `${file}.tar.gz`, PASSPHRASE);
    expect((await verifyArchive(`${file}.tar.gz`)).tables.contact_submissions?.rows).toBe(3);
  }, 120_000);
});
