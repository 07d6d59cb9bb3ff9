// @desktop-only: server behaviour, the same at any screen size
import { spawn, spawnSync, type ChildProcess } from "node:child_process";
import fs from "node:fs/promises";
import os from "node:os";
import path from "node:path";
import { expect, test } from "@playwright/test";
import { parseMailAddress, parseSmtpUrl } from "~/notifications/smtp-settings";
import { parseEnvFile } from "../../scripts/lib/env-file";
import { shippedProxyDirective, startCaddy, type Caddy } from "../support/caddy";
import { offsiteBackupStep, offsiteRestoreStep, type GuideRunner } from "../support/offsite-guide-step";
import { endStdin } from "../support/run-script";
import { startSmtpServer, type TestSmtpServer } from "../support/smtp";
import { freePort, waitUntilHealthy } from "../support/test-server";
import { openSettings } from "./admin-helpers";

/**
 * docs/DEPLOY.md, followed on this machine as far as it goes without a domain (its "Checking this
 * guide" section). Every command below is checked to be in the guide word for word, then run with
 * this test's folders in place of /etc/cornerstone, /var/lib/cornerstone and /opt/cornerstone.
 * What needs the real machine is emulated as systemd and Let's Encrypt would do it: the unit's
 * Environment= and EnvironmentFile= give the server its settings, StateDirectory= makes DATA_DIR,
 * and Caddy's internal CA stands in for Let's Encrypt. It runs as root (as `bash .ci/run` does):
 * it creates the system user `cornerstone`, as step 3 does, and runs the site as that user.
 */
const ROOT = path.resolve(".");
const GUIDE_FILE = path.join(ROOT, "docs/DEPLOY.md");
const UNIT_FILE = path.join(ROOT, "deploy/cornerstone.service");
const SOCKET_FILE = path.join(ROOT, "deploy/cornerstone.socket");
/** The live release the unit runs (step 4); here the checkout's own build stands for it (update-operations.spec.ts runs releases). */
const LIVE_RELEASE = "/opt/cornerstone/current";
const EXAMPLE_BACKUP = "cornerstone-20260101-030000.tar.gz";

const isRoot = process.getuid?.() === 0;
// Skipped only outside root: the guide's commands create a system user and run the site as it, which
// needs root. CI (bash .ci/run) runs as root, so there it always runs.
test.skip(
  !isRoot,
  "The deployment guide's test runs as root (bash .ci/run runs it so): it creates the user cornerstone and runs the site as it.",
);
test.use({ ignoreHTTPSErrors: true });

type Folders = { root: string; envFile: string; dataDir: string; restoreDir: string };

/** A guide command with this test's folders in place of the server's. */
function onThisMachine(command: string, folders: Folders, backupFile?: string): string {
  let local = command;
  if (backupFile) {
    local = local
      .replaceAll(
        `/srv/cornerstone-restore/${EXAMPLE_BACKUP}`,
        path.join(folders.restoreDir, path.basename(backupFile)),
      )
      .replaceAll(`/root/${EXAMPLE_BACKUP}`, backupFile);
  }
  return local
    .replaceAll("/srv/cornerstone-restore", folders.restoreDir)
    .replaceAll("/etc/cornerstone/cornerstone.env", folders.envFile)
    .replaceAll("/var/lib/cornerstone", folders.dataDir)
    .replaceAll(LIVE_RELEASE, ROOT)
    .replaceAll("/opt/cornerstone", ROOT);
}

/** Runs one command of the guide (which must be in it verbatim) as root in the checkout. */
async function runGuideCommand(
  command: string,
  folders: Folders,
  options: { backupFile?: string; input?: string } = {},
): Promise<{ stdout: string; stderr: string }> {
  expect(await fs.readFile(GUIDE_FILE, "utf8"), `docs/DEPLOY.md no longer says: ${command}`).toContain(command);
  const child = spawn("sh", ["-c", onThisMachine(command, folders, options.backupFile)], {
    cwd: ROOT,
    stdio: ["pipe", "pipe", "pipe"],
  });
  endStdin(child, options.input ?? "");
  let stdout = "";
  let stderr = "";
  child.stdout.on("data", (chunk) => (stdout += chunk));
  child.stderr.on("data", (chunk) => (stderr += chunk));
  const status = await new Promise<number | null>((resolve) => child.once("close", resolve));
  expect(status, `${command}\n${stdout}\n${stderr}`).toBe(0);
  return { stdout, stderr };
}

/** The unit's [Service] settings, as systemd reads them (one value per key; Environment= collected). */
async function readUnit(): Promise<{ settings: Map<string, string>; environment: Record<string, string> }> {
  const settings = new Map<string, string>();
  const environment: Record<string, string> = {};
  for (const line of (await fs.readFile(UNIT_FILE, "utf8")).split("\n")) {
    const match = /^(\w+)=(.*)$/.exec(line.trim());
    if (!match) continue;
    const [, key, value] = match as unknown as [string, string, string];
    if (key === "Environment") {
      const [name, ...rest] = value.split("=");
      environment[name!] = rest.join("=");
    } else settings.set(key, value);
  }
  return { settings, environment };
}

/**
 * The guide clones into /opt/cornerstone, which every user may reach. A CI checkout may sit below a
 * private folder (/root, a 0700 temporary folder): give others the right to pass through (o+x, not
 * to list) each such folder above the checkout and its node_modules, for this test only.
 */
async function letTheSiteUserReachTheCheckout(): Promise<() => Promise<void>> {
  const changed: { dir: string; mode: number }[] = [];
  for (const target of [ROOT, await fs.realpath(path.join(ROOT, "node_modules"))]) {
    for (let dir = target; dir !== path.dirname(dir); dir = path.dirname(dir)) {
      const { mode } = await fs.stat(dir);
      if ((mode & 0o001) === 0 && !changed.some((entry) => entry.dir === dir)) {
        changed.push({ dir, mode: mode & 0o7777 });
        await fs.chmod(dir, (mode & 0o7777) | 0o001);
      }
    }
  }
  return async () => {
    for (const { dir, mode } of changed) await fs.chmod(dir, mode);
  };
}

/** `systemctl start cornerstone`, as the unit says: its user, folder, command and environment. */
async function startService(
  folders: Folders,
): Promise<{ child: ChildProcess; output: () => string; stop(): Promise<void> }> {
  const { settings, environment } = await readUnit();
  expect(settings.get("EnvironmentFile")).toBe("/etc/cornerstone/cornerstone.env");
  expect(settings.get("WorkingDirectory")).toBe(LIVE_RELEASE);
  const [program, ...args] = settings.get("ExecStart")!.replaceAll(LIVE_RELEASE, ROOT).split(" ");
  // The guide's Node is NodeSource's, in /usr/bin; a machine with Node elsewhere runs this test's own.
  const node = (await fs.access(program!).then(
    () => true,
    () => false,
  ))
    ? program!
    : process.execPath;
  const fileSettings = parseEnvFile(await fs.readFile(folders.envFile, "utf8")).values;
  const child = spawn("runuser", ["-u", settings.get("User")!, "--", node, ...args], {
    cwd: ROOT,
    // systemd starts services with a clean environment: its PATH, the unit's Environment= and the file.
    env: { PATH: "/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin", ...environment, ...fileSettings },
    stdio: ["ignore", "pipe", "pipe"],
  });
  let log = "";
  child.stdout!.on("data", (chunk) => (log += chunk));
  child.stderr!.on("data", (chunk) => (log += chunk));
  const exited = new Promise<void>((resolve) => child.once("exit", () => resolve()));
  await waitUntilHealthy(`http://127.0.0.1:${fileSettings.PORT}`, child, () => log);
  return {
    child,
    output: () => log,
    async stop() {
      if (child.exitCode === null && child.signalCode === null) child.kill("SIGTERM");
      await exited;
    },
  };
}

test("docs/DEPLOY.md works as written, as far as this machine goes without a domain", async ({ page }) => {
  // Every step of the guide runs for real, step 9's copy off-site by restic and its check included.
  test.setTimeout(420_000);
  const root = await fs.mkdtemp(path.join(os.tmpdir(), "cornerstone-guide-"));
  await fs.chmod(root, 0o755);
  const folders: Folders = {
    root,
    envFile: path.join(root, "etc/cornerstone.env"),
    dataDir: path.join(root, "var-lib-cornerstone"),
    restoreDir: path.join(root, "srv-cornerstone-restore"),
  };
  const cleanups: (() => Promise<unknown>)[] = [() => fs.rm(root, { recursive: true, force: true })];
  try {
    await test.step("the systemd units (service and socket) pass systemd-analyze verify", async () => {
      const analyze = spawnSync("sh", ["-c", "command -v systemd-analyze"], { encoding: "utf8" }).stdout.trim();
      if (!analyze) {
        test.info().annotations.push({
          type: "note",
          description: "systemd-analyze is not installed here: the unit was not verified.",
        });
        return;
      }
      const unit = path.join(root, "cornerstone.service");
      let text = await fs.readFile(UNIT_FILE, "utf8");
      // verify checks that ExecStart's program exists: use this machine's Node where /usr/bin/node is missing.
      if (
        !(await fs.access("/usr/bin/node").then(
          () => true,
          () => false,
        ))
      )
        text = text.replace("/usr/bin/node", process.execPath);
      await fs.writeFile(unit, text);
      const socket = path.join(root, "cornerstone.socket");
      await fs.copyFile(SOCKET_FILE, socket);
      const result = spawnSync(analyze, ["verify", socket, unit], { encoding: "utf8" });
      // Unknown or misspelt settings are only warnings to systemd: any output fails the test.
      expect({ status: result.status, output: result.stdout + result.stderr }).toEqual({ status: 0, output: "" });
    });

    await test.step("3. a user for the site", async () => {
      const exists = spawnSync("getent", ["passwd", "cornerstone"]).status === 0;
      if (!exists)
        await runGuideCommand(
          "useradd --system --create-home --home-dir /home/cornerstone --shell /usr/sbin/nologin cornerstone",
          folders,
        );
      expect(spawnSync("getent", ["passwd", "cornerstone"]).status).toBe(0);
    });

    cleanups.push(await letTheSiteUserReachTheCheckout());
    const caddyPort = await freePort();
    const nodePort = await freePort();
    const smtp: TestSmtpServer = await startSmtpServer();
    cleanups.push(() => smtp.stop());

    await test.step("5. the settings: the shipped file, installed and edited", async () => {
      await fs.mkdir(path.dirname(folders.envFile), { mode: 0o755 });
      await runGuideCommand(
        "cp /opt/cornerstone/deploy/cornerstone.env.example /etc/cornerstone/cornerstone.env",
        folders,
      );
      await runGuideCommand("chgrp cornerstone /etc/cornerstone/cornerstone.env", folders);
      await runGuideCommand("chmod 640 /etc/cornerstone/cornerstone.env", folders);
      // "Edit the file": the domain (step 5) and the mail lines (step 8); here, this machine's ports and folders.
      let text = await fs.readFile(folders.envFile, "utf8");
      const edits: [RegExp, string][] = [
        [/^SITE_URL=.*$/m, `SITE_URL=https://127.0.0.1:${caddyPort}`],
        [/^PORT=.*$/m, `PORT=${nodePort}`],
        [/^DATA_DIR=.*$/m, `DATA_DIR=${folders.dataDir}`],
        [/^# SMTP_URL=.*$/m, `SMTP_URL=${smtp.url}`],
        [/^# MAIL_FROM=.*$/m, "MAIL_FROM=Website <website@example.co.nz>"],
        [/^# NOTIFY_EMAIL=.*$/m, "NOTIFY_EMAIL=owner@example.co.nz"],
      ];
      for (const [line, value] of edits) {
        expect(text, `deploy/cornerstone.env.example has no line ${line}`).toMatch(line);
        text = text.replace(line, value);
      }
      await fs.writeFile(folders.envFile, text);
      expect((await fs.stat(folders.envFile)).mode & 0o777).toBe(0o640);
      // The unit's StateDirectory=cornerstone and StateDirectoryMode=0700: DATA_DIR, the user's own.
      await fs.mkdir(folders.dataDir, { mode: 0o700 });
      expect(spawnSync("chown", ["cornerstone:cornerstone", folders.dataDir]).status).toBe(0);
    });

    let service = await test.step("6. the service starts as cornerstone with the settings file", () =>
      startService(folders));
    cleanups.push(() => service.stop());

    let password = "";
    await test.step("6. the first password: the log names the file, the guide's command reads it", async () => {
      const file = path.join(folders.dataDir, "secrets/initial-admin-password");
      await expect.poll(() => service.output()).toContain(file);
      expect(service.output()).not.toMatch(/password: /);
      const { stdout } = await runGuideCommand("cat /var/lib/cornerstone/secrets/initial-admin-password", folders);
      expect(stdout).toContain("username: admin");
      password = /^password: (\S+)$/m.exec(stdout)?.[1] ?? "";
      expect(password).toHaveLength(24);
    });

    const caddy: Caddy =
      await test.step("7. HTTPS with Caddy (its internal CA in place of Let's Encrypt), deploy/Caddyfile's proxy lines", async () =>
        startCaddy({
          upstream: `127.0.0.1:${nodePort}`,
          port: caddyPort,
          proxyDirective: await shippedProxyDirective(`127.0.0.1:${nodePort}`),
        }));
    cleanups.push(() => caddy.stop());

    await test.step("8. e-mail: the worked example means what the guide says it means", async () => {
      // The two lines as the guide prints them, read as systemd reads the settings file.
      const guide = await fs.readFile(GUIDE_FILE, "utf8");
      const example = /^SMTP_URL=.*\nMAIL_FROM=.*$/m.exec(guide)?.[0] ?? "";
      const { values } = parseEnvFile(example);
      expect(parseSmtpUrl(values.SMTP_URL ?? "")).toMatchObject({
        secure: false,
        host: "smtp.example.com",
        port: 587,
        user: "website@example.co.nz",
        pass: "p@ss:w/rd#1",
      });
      expect(parseMailAddress(values.MAIL_FROM ?? "")).toMatchObject({
        name: "Website",
        address: "website@example.co.nz",
      });
    });

    await test.step("8. e-mail: sign in and press Send test e-mail in the dashboard's E-mail view", async () => {
      await page.goto(`${caddy.url}/admin`);
      await page.getByLabel("Username").fill("admin");
      await page.getByLabel("Password").fill(password);
      await page.getByRole("button", { name: "Sign In" }).click();
      await expect(page.getByRole("heading", { name: "Website Management" })).toBeVisible();
      await openSettings(page, "E-mail");
      const card = page.getByRole("region", { name: "E-mail Notifications" });
      await card.getByRole("button", { name: "Send test e-mail" }).click();
      await expect(card.getByRole("status")).toContainText("Test e-mail sent to owner@example.co.nz");
      const [mail] = await smtp.waitForMessages(1);
      expect(mail!.envelope.to).toEqual(["owner@example.co.nz"]);
      expect(mail!.envelope.from).toBe("website@example.co.nz");
    });

    let backupFile = "";
    await test.step("9. a backup by hand, as cornerstone, with the service's settings", async () => {
      const { stdout, stderr } = await runGuideCommand(
        "runuser -u cornerstone -- npm run backup -- --env-file /etc/cornerstone/cornerstone.env",
        folders,
      );
      expect(stderr).toContain(`Settings read from ${folders.envFile} (`);
      backupFile = /Backup written: (\S+\.tar\.gz)/.exec(stdout)?.[1] ?? "";
      expect(path.dirname(backupFile)).toBe(path.join(folders.dataDir, "backups"));
    });

    // Step 12, "Off-site backups": s3rver behind Caddy stands in for the bucket; a copy leaves by the guide's command.
    const guide: GuideRunner = {
      envFile: folders.envFile,
      dataDir: folders.dataDir,
      run: (command) => runGuideCommand(command, folders),
      stopService: () => service.stop(), // systemctl stop cornerstone
      startService: async () => {
        service = await startService(folders); // systemctl start cornerstone
      },
    };
    const offsite = await test.step("12. off-site backups: a bucket, the settings, a backup copied off-site", () =>
      offsiteBackupStep(guide, page, caddy.url));
    cleanups.push(() => offsite.stop());

    await test.step("10. restore a copy kept outside DATA_DIR, with the service stopped", async () => {
      // The copy "from your computer" lands where step 10 puts it.
      const copy = path.join(root, EXAMPLE_BACKUP);
      await fs.copyFile(backupFile, copy);
      await runGuideCommand("install -d -o cornerstone -g cornerstone -m 700 /srv/cornerstone-restore", folders);
      await runGuideCommand(
        `install -o cornerstone -g cornerstone -m 600 /root/${EXAMPLE_BACKUP} /srv/cornerstone-restore/`,
        folders,
        { backupFile: copy },
      );
      await service.stop(); // systemctl stop cornerstone
      const { stdout, stderr } = await runGuideCommand(
        // Step 12 (run above) set a passphrase, and this backup was made before it: the guide's
        // command for such a file.
        `runuser -u cornerstone -- npm run restore -- /srv/cornerstone-restore/${EXAMPLE_BACKUP} --allow-unencrypted --env-file /etc/cornerstone/cornerstone.env`,
        folders,
        { backupFile: copy },
      );
      expect(stderr).toContain(`Settings read from ${folders.envFile} (`);
      expect(stdout).toContain(`Restored ${EXAMPLE_BACKUP}`);
      expect(stdout).toContain(`into ${folders.dataDir}.`);
      service = await startService(folders); // systemctl start cornerstone
      const health = await page.request.get(`${caddy.url}/healthz`);
      expect(health.status()).toBe(200);
    });

    await test.step("12. restoring from the bucket onto an empty DATA_DIR", async () => {
      await offsiteRestoreStep(guide, offsite);
      const health = await page.request.get(`${caddy.url}/healthz`);
      expect(health.status()).toBe(200);
    });

    await test.step("13. a forgotten password, set again as cornerstone with the service's settings", async () => {
      // The guide's command asks twice at a hidden prompt; here the new password comes on stdin, as the README allows.
      const { stderr, stdout } = await runGuideCommand(
        "cd /opt/cornerstone/current && runuser -u cornerstone -- npm run admin:password -- --env-file /etc/cornerstone/cornerstone.env",
        folders,
        { input: "a new password from the guide\n" },
      );
      expect(stderr).toContain(`Settings read from ${folders.envFile} (`);
      expect(stdout).toContain("The admin password was changed");
      await page.goto(`${caddy.url}/admin`);
      await page.getByLabel("Username").fill("admin");
      await page.getByLabel("Password").fill("a new password from the guide");
      await page.getByRole("button", { name: "Sign In" }).click();
      await expect(page.getByRole("heading", { name: "Website Management" })).toBeVisible();
    });
  } finally {
    for (const cleanup of cleanups.reverse()) await cleanup().catch(() => {});
  }
});
