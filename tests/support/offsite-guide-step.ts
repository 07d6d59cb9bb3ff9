import { spawnSync } from "node:child_process";
import fs from "node:fs/promises";
import path from "node:path";
import { expect, type Page } from "@playwright/test";
import { createTestBucket, S3_TEST_CREDENTIALS, S3_TEST_REGION, startS3Server, type TestBucket } from "./backends";
import { resticCli, startResticS3 } from "./restic";

/**
 * docs/DEPLOY.md's "Off-site backups" step (decision 0070), for the guide's test
 * (tests/e2e/deploy-guide-operations.spec.ts, at its off-site hook): s3rver behind Caddy stands in
 * for Backblaze B2, its private CA given to restic with SSL_CERT_FILE as the guide says. The
 * guide's test passes its own runner, which checks that each command is in the guide word for
 * word and runs it with the test's folders. At the hook after step 9 (with `let service`):
 *
 *   const guide = { envFile: folders.envFile, dataDir: folders.dataDir, run: (c) => runGuideCommand(c, folders),
 *     stopService: () => service.stop(), startService: async () => { service = await startService(folders); } };
 *   const offsite = await test.step("Off-site backups", () => offsiteBackupStep(guide, page, caddy.url));
 *   cleanups.push(() => offsite.stop());
 *
 * and after step 10: `await test.step("Off-site restore", () => offsiteRestoreStep(guide, offsite))`.
 */
export type GuideRunner = {
  envFile: string;
  dataDir: string;
  /** Runs one command of the guide (checked to be in it verbatim); fails on a non-zero exit. */
  run(command: string): Promise<{ stdout: string; stderr: string }>;
  /** `systemctl stop cornerstone` / `start` as the guide's test emulates them. */
  stopService(): Promise<void>;
  startService(): Promise<void>;
};

export const GUIDE_PASSPHRASE = "quarry-lantern-basalt-orchard-guide";
const BACKUP_COMMAND =
  "runuser -u cornerstone -- npm run backup -- --offsite --env-file /etc/cornerstone/cornerstone.env";
const VERIFY_COMMAND =
  "runuser -u cornerstone -- npm run backup -- --verify --env-file /etc/cornerstone/cornerstone.env";
const RESTORE_COMMAND =
  "runuser -u cornerstone -- npm run restore -- --from-offsite --env-file /etc/cornerstone/cornerstone.env";

export type GuideOffsite = { bucket: TestBucket; newest(): Promise<string>; stop(): Promise<void> };

/** Steps 1–5 of "Off-site backups": the bucket, the settings in the env file, a restart, a copy sent by hand, the check. */
export async function offsiteBackupStep(guide: GuideRunner, page?: Page, siteUrl?: string): Promise<GuideOffsite> {
  const s3 = await startS3Server();
  const front = await startResticS3(s3.endpoint);
  const bucket = await createTestBucket(s3.endpoint, { siteOrigins: [] });
  // Where the service's user can read it, as /etc/ssl/certs would be.
  const caFile = path.join(path.dirname(guide.envFile), "offsite-ca.pem");
  await fs.copyFile(front.caFile, caFile);
  await fs.chmod(caFile, 0o644);
  const repository = `s3:${front.endpoint}/${bucket.name}/cornerstone-backups/restic`;
  const offsite = {
    bucket,
    async newest() {
      const listed = await resticCli(["-o", "s3.bucket-lookup=path", "snapshots", "--json"], {
        repository,
        passphrase: GUIDE_PASSPHRASE,
        env: {
          AWS_ACCESS_KEY_ID: S3_TEST_CREDENTIALS.accessKeyId,
          AWS_SECRET_ACCESS_KEY: S3_TEST_CREDENTIALS.secretAccessKey,
          SSL_CERT_FILE: caFile,
        },
      });
      return (JSON.parse(listed.stdout) as { short_id: string }[]).at(-1)!.short_id;
    },
    async stop() {
      await bucket.remove();
      await front.stop();
      await s3.stop();
    },
  };
  // "Add to the env file": the lines the guide shows, with this machine's bucket.
  const lines = [
    `BACKUP_S3_BUCKET=${bucket.name}`,
    `BACKUP_S3_ENDPOINT=${front.endpoint}`,
    `BACKUP_S3_REGION=${S3_TEST_REGION}`,
    `BACKUP_S3_ACCESS_KEY_ID=${S3_TEST_CREDENTIALS.accessKeyId}`,
    `BACKUP_S3_SECRET_ACCESS_KEY=${S3_TEST_CREDENTIALS.secretAccessKey}`,
    // s3rver wants path-style URLs, as MinIO does (the guide names this line for such stores).
    "BACKUP_S3_FORCE_PATH_STYLE=true",
    `BACKUP_PASSPHRASE=${GUIDE_PASSPHRASE}`,
    // Caddy's own CA, as the guide says for a store with a private one (restic, then the site's own look at keys/).
    `SSL_CERT_FILE=${caFile}`,
  ];
  const guideText = await fs.readFile("docs/DEPLOY.md", "utf8");
  for (const line of lines) {
    const name = line.startsWith("BACKUP_S3_FORCE_PATH_STYLE") ? line : `${line.split("=")[0]}=`;
    expect(guideText, `docs/DEPLOY.md no longer shows ${name}`).toContain(name);
  }
  await fs.appendFile(guide.envFile, `\n${lines.join("\n")}\n`);
  await guide.stopService();
  await guide.startService();

  const { stdout } = await guide.run(BACKUP_COMMAND);
  expect(stdout).toContain(`Copied off the server to the off-site repository ${repository}: snapshot `);
  // The server's own copy (5 minutes after its start) may have come first: the hand-made one is the newest.
  expect(stdout).toContain(`snapshot ${await offsite.newest()} `);
  const verified = await guide.run(VERIFY_COMMAND);
  expect(verified.stdout).toContain(`${repository}: restic check found no errors.`);

  if (page && siteUrl) {
    // "The dashboard's Backups view then says …"
    await page.goto(`${siteUrl}/admin?view=backups`);
    const card = page.getByRole("region", { name: "Backups" });
    await expect(card.getByTestId("offsite-last-copy")).toContainText(
      /^Last copy off the server: (just now|1 minute ago)$/,
    );
    await expect(card.getByTestId("offsite-no-passphrase")).toHaveCount(0);
  }
  return offsite;
}

/** "Restoring from the bucket": the server's data is gone; the restore reads the repository and needs nothing else. */
export async function offsiteRestoreStep(guide: GuideRunner, offsite: GuideOffsite): Promise<void> {
  const newest = await offsite.newest();
  await guide.stopService();
  // The lost disk: DATA_DIR is empty again (systemd's StateDirectory= makes it, the user's own).
  await fs.rm(guide.dataDir, { recursive: true, force: true });
  await fs.mkdir(guide.dataDir, { mode: 0o700 });
  expect(spawnSync("chown", ["cornerstone:cornerstone", guide.dataDir]).status).toBe(0);

  const { stdout } = await guide.run(RESTORE_COMMAND);
  expect(stdout).toContain(`Restored ${newest}`);
  await guide.startService();
}
