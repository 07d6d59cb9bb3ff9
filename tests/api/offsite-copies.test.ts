import fs from "node:fs/promises";
import os from "node:os";
import path from "node:path";
import { GetObjectCommand, ListObjectsV2Command } from "@aws-sdk/client-s3";
import supertest from "supertest";
import { afterAll, afterEach, beforeAll, describe, expect, inject, it } from "vitest";
import { stageDirOf, takeOffsiteCopy } from "~/backups/offsite-copy-process.server";
import { REPOSITORY_PREFIX } from "~/backups/offsite-restic.server";
import { saveContent } from "~/content/content.server";
import { parseEnv } from "~/env.server";
import { createManualClock } from "~/lib/clock";
import { createLogger } from "~/lib/logger.server";
import { createApp } from "../../server/app";
import { openServices } from "../../server/bootstrap";
import { acquireBackend, ADMIN, createAdminContext } from "./helpers";
import { createTestBucket, type TestBucket } from "../support/backends";
import { dumpOffsiteSite, fillOffsiteSite, OFFSITE_PASSPHRASE, SECRET_WORDS } from "../support/offsite-site";
import { resticCli, resticS3Env, s3RepositoryOf, startResticS3, type ResticS3 } from "../support/restic";
import { runScript } from "../support/run-script";

/**
 * Off-site copies are restic snapshots (decision 0070), here into s3rver through Caddy over HTTPS,
 * from a site on the run's back end: with the disk, the copy's folder links the photos in; with a
 * bucket, it downloads each once. Plain restic reads what the site wrote; a restore onto an empty
 * server brings everything back.
 */
let front: ResticS3;
const sslCertFile = process.env.SSL_CERT_FILE;
beforeAll(async () => {
  front = await startResticS3(inject("backends").s3Endpoint);
  // restic inherits the process's environment: this process's copies trust Caddy's root as a server's would.
  process.env.SSL_CERT_FILE = front.caFile;
});
afterAll(async () => {
  if (sslCertFile === undefined) delete process.env.SSL_CERT_FILE;
  else process.env.SSL_CERT_FILE = sslCertFile;
  await front?.stop();
});
const cleanups: (() => Promise<unknown>)[] = [];
afterEach(async () => {
  for (const cleanup of cleanups.splice(0).reverse()) await cleanup().catch(() => {});
});

async function storedObjects(bucket: TestBucket): Promise<{ key: string; bytes: number }[]> {
  const found: { key: string; bytes: number }[] = [];
  let ContinuationToken: string | undefined;
  do {
    const page = await bucket.client.send(
      new ListObjectsV2Command({ Bucket: bucket.name, Prefix: `${REPOSITORY_PREFIX}/`, ContinuationToken }),
    );
    found.push(...(page.Contents ?? []).map((object) => ({ key: object.Key!, bytes: object.Size ?? 0 })));
    ContinuationToken = page.NextContinuationToken;
  } while (ContinuationToken);
  return found;
}
const storedBytes = async (bucket: TestBucket) =>
  (await storedObjects(bucket)).reduce((sum, object) => sum + object.bytes, 0);

describe("off-site copies by restic", () => {
  it("a copy that plain restic lists and checks; an edited text adds under 1 MB; restored onto an empty server: texts, photos, enquiries and two-step as they were; nothing readable in the bucket", async () => {
    const bucket = await createTestBucket(inject("backends").s3Endpoint, { siteOrigins: [] });
    cleanups.push(() => bucket.remove());
    const vars = { ...resticS3Env(front, bucket.name), BACKUP_PASSPHRASE: OFFSITE_PASSPHRASE };
    const clock = createManualClock("2027-01-14T10:00:00.000Z");
    const ctx = await createAdminContext(vars, { clock });
    cleanups.push(() => ctx.close());
    const twoStep = await fillOffsiteSite({ ...ctx.services, clock });
    const first = await takeOffsiteCopy(ctx.services, { at: clock.now(), parent: null });
    const atFirst = await dumpOffsiteSite(ctx.services);
    expect(first).toMatchObject({ files: Object.keys(atFirst.objects).length, pruneProblem: null });

    // Plain restic, as whoever runs the site would use it.
    const repo = { ...s3RepositoryOf(vars), passphrase: OFFSITE_PASSPHRASE };
    const checked = await resticCli([...repo.options, "check", "--read-data"], repo);
    expect(checked.code, checked.stderr).toBe(0);
    expect(checked.stdout).toContain("no errors were found");

    // restic's cache is the site's, under DATA_DIR.
    expect((await fs.readdir(path.join(ctx.dataDir, "backups", ".restic-cache"))).length).toBeGreaterThan(0);

    clock.advance(60 * 60_000);
    await saveContent({ ...ctx.services, clock }, "hero.title", "Stone that outlasts us all, and then some");
    const stored = await storedBytes(bucket);
    // The photos reached restic once: the next copy reads none from storage (a bucket is not downloaded again).
    const read: string[] = [];
    const storage = ctx.services.storage;
    const counting = { ...storage, read: (key: string) => (read.push(key), storage.read(key)) };
    const second = await takeOffsiteCopy(
      { ...ctx.services, storage: counting },
      { at: clock.now(), parent: first.snapshot },
    );
    expect(read).toEqual([]);
    expect((await storedBytes(bucket)) - stored).toBeLessThan(1024 * 1024);
    const listed = await resticCli([...repo.options, "snapshots", "--json"], repo);
    expect(listed.code, listed.stderr).toBe(0);
    const copyFolder = stageDirOf(ctx.dataDir);
    expect(JSON.parse(listed.stdout)).toMatchObject([
      { id: first.snapshot, paths: [copyFolder], tags: ["cornerstone"], time: "2027-01-14T10:00:00Z" },
      { id: second.snapshot, parent: first.snapshot, paths: [copyFolder], time: "2027-01-14T11:00:00Z" },
    ]);
    for (const { key } of await storedObjects(bucket)) {
      const object = await bucket.client.send(new GetObjectCommand({ Bucket: bucket.name, Key: key }));
      const body = Buffer.from(await object.Body!.transformToByteArray());
      for (const plain of [SECRET_WORDS.enquiry, SECRET_WORDS.photoName, ADMIN.username])
        expect(body.includes(Buffer.from(plain)), `${plain} in ${key}`).toBe(false);
    }
    const atSecond = await dumpOffsiteSite(ctx.services);

    // An empty server with only the repository's settings and the passphrase.
    const dataDir = await fs.mkdtemp(path.join(os.tmpdir(), "cornerstone-offsite-empty-"));
    cleanups.push(() => fs.rm(dataDir, { recursive: true, force: true }));
    const base = { DATA_DIR: dataDir, LOG_LEVEL: "silent", NODE_ENV: "test" };
    const backend = await acquireBackend(base);
    cleanups.push(() => backend.release());
    const passphraseFile = path.join(dataDir, "..", `${path.basename(dataDir)}.passphrase`);
    await fs.writeFile(passphraseFile, `${OFFSITE_PASSPHRASE}\n`, { mode: 0o600 });
    cleanups.push(() => fs.rm(passphraseFile, { force: true }));
    const { BACKUP_PASSPHRASE: _kept, ...withoutPassphrase } = vars;
    const emptyVars = { ...base, ...backend.env, ...withoutPassphrase };
    const restored = await runScript("restore", ["--from-offsite", "--passphrase-file", passphraseFile], emptyVars);
    expect(restored.status, restored.stderr).toBe(0);
    expect(restored.stdout).toContain(`Restored ${second.snapshot.slice(0, 8)}`);
    const services = await openServices(parseEnv(emptyVars), createLogger({ level: "silent" }));
    cleanups.push(() => services.close());
    expect(await dumpOffsiteSite(services)).toEqual(atSecond);
    expect(atSecond).not.toEqual(atFirst);
    // restic's folder is gone.
    const left = await fs.readdir(dataDir, { recursive: true });
    expect(left.filter((name) => path.basename(name).startsWith(".restore-"))).toEqual([]);

    // The password at the time of the copy, then two-step with a code from the original secret.
    const agent = supertest.agent(createApp({ ...services, clock }));
    expect((await agent.post("/api/login").send(ADMIN).expect(200)).body).toEqual({ twoFactorRequired: true });
    clock.advance(30_000);
    const code = twoStep.totp.generate({ timestamp: clock.now().getTime() });
    expect((await agent.post("/api/login/two-factor").send({ code }).expect(200)).body.username).toBe(ADMIN.username);
  }, 240_000);
});
