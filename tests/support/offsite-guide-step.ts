import { spawnSync } from "node:child_process";
import fs from "node:fs/promises";
import { expect, type Page } from "@playwright/test";
import { createTestBucket, S3_TEST_CREDENTIALS, S3_TEST_REGION, startS3Server, type TestBucket } from "./backends";

/**
 * docs/DEPLOY.md's "Off-site backups" step (decision 0060), for the guide's test
 * (tests/e2e/deploy-guide-operations.spec.ts, at its off-site hook): s3rver
 * stands in for Backblaze B2. The guide's test passes its own runner, which
 * checks that each command is in the guide word for word and runs it with
 * the test's folders. At the hook after step 9 (with `let service`):
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
const COPIES = "cornerstone-backups/repository/copies/";

export type GuideOffsite = { bucket: TestBucket; stop(): Promise<void> };

/** Steps 1–5 of "Off-site backups": the bucket, the settings in the env file, a restart, a copy sent by hand, the check. */
export async function offsiteBackupStep(guide: GuideRunner, page?: Page, siteUrl?: string): Promise<GuideOffsite> {
  const s3 = await startS3Server();
  const bucket = await createTestBucket(s3.endpoint, { siteOrigins: [] });
  const offsite = {
    bucket,
    async stop() {
      await bucket.remove();
      await s3.stop();
    },
  };
  // "Add to the env file": the lines the guide shows, with this machine's bucket.
  const lines = [
    `BACKUP_S3_BUCKET=${bucket.name}`,
    `BACKUP_S3_ENDPOINT=${s3.endpoint}`,
    `BACKUP_S3_REGION=${S3_TEST_REGION}`,
    `BACKUP_S3_ACCESS_KEY_ID=${S3_TEST_CREDENTIALS.accessKeyId}`,
    `BACKUP_S3_SECRET_ACCESS_KEY=${S3_TEST_CREDENTIALS.secretAccessKey}`,
    // s3rver wants path-style URLs, as MinIO does (the guide names this line for such stores).
    "BACKUP_S3_FORCE_PATH_STYLE=true",
    `BACKUP_PASSPHRASE=${GUIDE_PASSPHRASE}`,
  ];
  const guideText = await fs.readFile("docs/DEPLOY.md", "utf8");
  for (const name of [
    "BACKUP_S3_BUCKET=",
    "BACKUP_S3_ENDPOINT=",
    "BACKUP_S3_REGION=",
    "BACKUP_S3_ACCESS_KEY_ID=",
    "BACKUP_S3_SECRET_ACCESS_KEY=",
    "BACKUP_PASSPHRASE=",
    "BACKUP_S3_FORCE_PATH_STYLE=true",
  ]) {
    expect(guideText, `docs/DEPLOY.md no longer shows ${name}`).toContain(name);
  }
  await fs.appendFile(guide.envFile, `\n${lines.join("\n")}\n`);
  await guide.stopService();
  await guide.startService();

  const { stdout } = await guide.run(BACKUP_COMMAND);
  expect(stdout).toContain(`Copied off the server to the bucket ${bucket.name}`);
  const name = /: copy (\d{8}-\d{6}-[0-9a-f]{8}) /.exec(stdout)?.[1];
  expect(name, stdout).toBeTruthy();
  // The server's own copy (5 minutes after its start) may have come first: the hand-made one is the newest.
  expect((await bucket.keys(COPIES)).at(-1)).toBe(`${COPIES}${name}`);
  const verified = await guide.run(VERIFY_COMMAND);
  expect(verified.stdout).toMatch(/copies; every one of the \d+ objects they refer to is there\./);

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

/** "Restoring from the bucket": the server's data is gone; the restore lists the bucket and needs nothing else. */
export async function offsiteRestoreStep(guide: GuideRunner, offsite: GuideOffsite): Promise<void> {
  const copy = (await offsite.bucket.keys(COPIES)).at(-1)!;
  await guide.stopService();
  // The lost disk: DATA_DIR is empty again (systemd's StateDirectory= makes it, the user's own).
  await fs.rm(guide.dataDir, { recursive: true, force: true });
  await fs.mkdir(guide.dataDir, { mode: 0o700 });
  expect(spawnSync("chown", ["cornerstone:cornerstone", guide.dataDir]).status).toBe(0);

  const { stdout } = await guide.run(RESTORE_COMMAND);
  expect(stdout).toContain(`Restored ${copy.slice(COPIES.length)}`);
  await guide.startService();
}
