import fs from "node:fs/promises";
import os from "node:os";
import path from "node:path";
import { afterAll, afterEach, beforeAll, describe, expect, it } from "vitest";
import { backupsDirOf } from "~/backups/backup-files.server";
import { createBackup } from "~/backups/backup.server";
import {
  createS3OffsiteTarget,
  OFFSITE_PREFIX,
  putFileInBucket,
  type OffsiteTarget,
} from "~/backups/offsite-target.server";
import { readContent, saveContent } from "~/content/content.server";
import { createManualClock } from "~/lib/clock";
import {
  createTestBucket,
  offsiteS3Env,
  s3ConfigFor,
  startS3Server,
  type S3Server,
  type TestBucket,
} from "../support/backends";
import { createSite, openSite } from "../support/backup-site";
import { runScript } from "../support/run-script";

/**
 * Which backups `npm run restore` accepts when the site's backups are encrypted (decision 0058):
 * an unencrypted file is refused unless --allow-unencrypted; --from-offsite without a name takes
 * the newest copy that opens with the passphrase, by the time inside it, and never a planted
 * unencrypted copy, however new its bucket time or its name. Real processes, a real S3 server.
 */
const PASSPHRASE = "quarry-lantern-basalt-orchard-rules";
const TITLE = "hero.title";

let s3: S3Server;
const tmp = await fs.mkdtemp(path.join(os.tmpdir(), "cornerstone-restore-rules-"));
const cleanups: (() => Promise<unknown>)[] = [];

/** Archives of one site at different times, each with its own title, so a restore shows which it was. */
const archives: Record<"older" | "newest" | "otherPassphrase" | "planted" | "plain", string> = {} as never;

beforeAll(async () => {
  s3 = await startS3Server();
  const site = await createSite({ galleries: { traditional: 1 }, enquiries: 2 });
  const made = async (label: keyof typeof archives, at: string, passphrase: string | null) => {
    await saveContent(site.services, TITLE, `The ${label} backup`);
    const file = path.join(tmp, `${label}.tar.gz${passphrase ? ".age" : ""}`);
    const result = await createBackup(
      { ...site.services, clock: createManualClock(at) },
      {
        purpose: "manual",
        workDir: backupsDirOf(site.dataDir),
        destination: { kind: "file", path: file },
        ...(passphrase ? { passphrase } : {}),
      },
    );
    expect(result.status).toBe("succeeded");
    archives[label] = file;
  };
  await made("older", "2026-03-01T03:00:00.000Z", PASSPHRASE);
  await made("newest", "2026-03-05T03:00:00.000Z", PASSPHRASE);
  // Newer inside, but made with another passphrase: it does not open, so it is not the newest.
  await made("otherPassphrase", "2026-03-09T03:00:00.000Z", "another-passphrase-altogether");
  // Before 2038: tar-stream writes times as 32-bit numbers.
  await made("planted", "2037-12-31T23:59:59.000Z", null);
  await made("plain", "2026-03-07T03:00:00.000Z", null);
  await site.services.close();
  await fs.rm(site.dataDir, { recursive: true, force: true });
}, 180_000);
afterEach(async () => {
  for (const cleanup of cleanups.splice(0).reverse()) await cleanup().catch(() => {});
});
afterAll(async () => {
  await s3?.stop();
  await fs.rm(tmp, { recursive: true, force: true });
});

const offsiteEnv = (bucket: string) => offsiteS3Env(s3.endpoint, bucket);

/** A bucket holding these copies, uploaded in this order (so the last has the newest bucket time). */
async function bucketWith(
  copies: [name: string, file: string][],
): Promise<{ bucket: TestBucket; target: OffsiteTarget }> {
  const bucket = await createTestBucket(s3.endpoint, { siteOrigins: [] });
  cleanups.push(() => bucket.remove());
  const target = createS3OffsiteTarget(s3ConfigFor(s3.endpoint, bucket.name));
  cleanups.push(async () => target.close());
  for (const [name, file] of copies)
    await putFileInBucket(bucket.client, bucket.name, `${OFFSITE_PREFIX}${name}`, file);
  return { bucket, target };
}

/** A site that a restore would replace: its own title. */
async function liveSite(): Promise<string> {
  const site = await createSite({ galleries: {}, enquiries: 1 });
  await saveContent(site.services, TITLE, "The live site");
  await site.services.close();
  cleanups.push(() => fs.rm(site.dataDir, { recursive: true, force: true }));
  return site.dataDir;
}

async function titleOf(dataDir: string): Promise<string> {
  const services = await openSite(dataDir);
  try {
    return (await readContent(services, [TITLE]))[TITLE];
  } finally {
    await services.close();
  }
}

const restore = (dataDir: string, args: string[], env: Record<string, string> = {}) =>
  runScript("restore", args, { DATA_DIR: dataDir, LOG_LEVEL: "silent", ...env });

describe("restoring from the off-site bucket without a name", () => {
  it("takes the newest copy that opens with the passphrase, by the time inside it; never a planted unencrypted one, whatever its bucket time or name", async () => {
    const { bucket } = await bucketWith([
      ["cornerstone-20260305-030000-newest.tar.gz.age", archives.newest],
      // An older backup under a newer name, uploaded later: neither the name nor the bucket's time decide.
      ["cornerstone-20991230-000000-older.tar.gz.age", archives.older],
      ["cornerstone-20260309-030000-other.tar.gz.age", archives.otherPassphrase],
      ["cornerstone-20991231-235959-planted.tar.gz", archives.planted],
    ]);
    const dataDir = await liveSite();
    const result = await restore(dataDir, ["--from-offsite"], {
      ...offsiteEnv(bucket.name),
      BACKUP_PASSPHRASE: PASSPHRASE,
    });
    expect(result.status, result.stderr).toBe(0);
    expect(result.stdout).toContain(
      "Restored cornerstone-20260305-030000-newest.tar.gz.age (made 2026-03-05T03:00:00.000Z",
    );
    expect(await titleOf(dataDir)).toBe("The newest backup");
  }, 180_000);

  it("with only unencrypted copies, lists them with their times and sizes and asks for a NAME; named, it restores (with --allow-unencrypted when a passphrase is set)", async () => {
    const planted = "cornerstone-20991231-235959-planted.tar.gz";
    const plain = "cornerstone-20260307-030000-plain.tar.gz";
    const { bucket } = await bucketWith([
      [plain, archives.plain],
      [planted, archives.planted],
    ]);
    const dataDir = await liveSite();
    const env = offsiteEnv(bucket.name);

    for (const passphrase of [{}, { BACKUP_PASSPHRASE: PASSPHRASE }] as Record<string, string>[]) {
      const listed = await restore(dataDir, ["--from-offsite"], { ...env, ...passphrase });
      expect(listed.status).toBe(1);
      expect(listed.stderr).toContain(`The bucket ${bucket.name} (${s3.endpoint}) holds no encrypted backup.`);
      expect(listed.stderr).toMatch(
        new RegExp(
          `  ${planted}  \\(says it was made 2037-12-31 23:59 UTC, uploaded \\d{4}-\\d\\d-\\d\\d \\d\\d:\\d\\d UTC, \\d+(\\.\\d)? KB\\)`,
        ),
      );
      expect(listed.stderr).toMatch(
        new RegExp(`  ${plain}  \\(says it was made 2026-03-07 03:00 UTC, uploaded .+ UTC, \\d+(\\.\\d)? KB\\)`),
      );
      expect(listed.stderr).toContain("To restore one of them, name it: npm run restore -- --from-offsite NAME");
      expect(listed.stderr).toContain("Nothing was changed.");
    }
    expect(await titleOf(dataDir)).toBe("The live site");

    const refused = await restore(dataDir, ["--from-offsite", plain], { ...env, BACKUP_PASSPHRASE: PASSPHRASE });
    expect(refused.status).toBe(1);
    expect(refused.stderr).toContain(`${plain} (in the bucket ${bucket.name}`);
    expect(refused.stderr).toContain("is not encrypted, but this site's backups are");
    expect(await titleOf(dataDir)).toBe("The live site");

    const named = await restore(dataDir, ["--from-offsite", plain, "--allow-unencrypted"], {
      ...env,
      BACKUP_PASSPHRASE: PASSPHRASE,
    });
    expect(named.status, named.stderr).toBe(0);
    expect(await titleOf(dataDir)).toBe("The plain backup");
  }, 240_000);
});

describe("restoring a file on this server", () => {
  it("refuses an unencrypted file when a passphrase is configured or given, naming the file and saying why; --allow-unencrypted restores it", async () => {
    const dataDir = await liveSite();
    const passphraseFile = path.join(tmp, "passphrase.txt");
    await fs.writeFile(passphraseFile, `${PASSPHRASE}\n`, { mode: 0o600 });

    for (const [args, env] of [
      [[archives.planted], { BACKUP_PASSPHRASE: PASSPHRASE }],
      [[archives.planted, "--passphrase-file", passphraseFile], {}],
    ] as const) {
      const refused = await restore(dataDir, [...args], env);
      expect(refused.status).toBe(1);
      expect(refused.stderr).toContain(
        `${archives.planted} is not encrypted, but this site's backups are (a passphrase is set)`,
      );
      expect(refused.stderr).toContain("--allow-unencrypted");
      expect(refused.stderr).toContain("Nothing was changed.");
    }
    expect(await titleOf(dataDir)).toBe("The live site");

    // An encrypted one restores as before; an unencrypted one only when the owner says so.
    const encrypted = await restore(dataDir, [archives.older], { BACKUP_PASSPHRASE: PASSPHRASE });
    expect(encrypted.status, encrypted.stderr).toBe(0);
    expect(await titleOf(dataDir)).toBe("The older backup");
    const allowed = await restore(dataDir, [archives.plain, "--allow-unencrypted"], { BACKUP_PASSPHRASE: PASSPHRASE });
    expect(allowed.status, allowed.stderr).toBe(0);
    expect(await titleOf(dataDir)).toBe("The plain backup");
  }, 240_000);
});
