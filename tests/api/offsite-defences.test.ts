// @same-on-every-backend: it picks its own database and storage, or runs scripts on a data directory
import { execFileSync, spawn, spawnSync } from "node:child_process";
import { randomBytes } from "node:crypto";
import fs from "node:fs/promises";
import os from "node:os";
import path from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { takeOffsiteCopy } from "~/backups/offsite-copy-process.server";
import { parseEnv } from "~/env.server";
import { createManualClock } from "~/lib/clock";
import { createAdminContext } from "./helpers";
import { offsiteS3Env } from "../support/backends";
import { openSite } from "../support/backup-site";
import { dumpOffsiteSite, insertEnquiryWithPhotos, OFFSITE_PASSPHRASE } from "../support/offsite-site";
import { resticCli } from "../support/restic";
import { runScript } from "../support/run-script";
import { freePort } from "../support/test-server";
import { until } from "../support/until";

/**
 * What goes wrong with an off-site repository (decision 0070), each refused or survived with a
 * clear message and nothing changed; the repositories are folders, the site SQLite and the disk.
 */
const cleanups: (() => Promise<unknown>)[] = [];
afterEach(async () => {
  for (const cleanup of cleanups.splice(0).reverse()) await cleanup().catch(() => {});
});
const HOUR = 3_600_000;

async function tempDir(label: string) {
  const dir = await fs.mkdtemp(path.join(os.tmpdir(), `cornerstone-${label}-`));
  cleanups.push(() => fs.rm(dir, { recursive: true, force: true }));
  return dir;
}

/** A small site copying into a folder; `copy()` takes the next copy an hour on, from the last one. */
async function siteCopyingToFolder(settings: Record<string, string> = {}) {
  const repository = path.join(await tempDir("offsite-folder"), "repository");
  const clock = createManualClock("2027-01-14T10:00:00.000Z");
  const vars = { BACKUP_OFFSITE_REPOSITORY: repository, BACKUP_PASSPHRASE: OFFSITE_PASSPHRASE, ...settings };
  const ctx = await createAdminContext(vars, { database: "sqlite", storage: "disk", clock });
  cleanups.push(() => ctx.close());
  await insertEnquiryWithPhotos(ctx.services, 1, 2, clock.now());
  let parent: string | null = null;
  /** `env` changes the site's settings for this copy (undefined: left out). */
  const copy = async (env: Record<string, string | undefined> = {}) => {
    const changed = Object.entries({ ...ctx.envVars, ...env }).filter(([, value]) => value !== undefined);
    const made = await takeOffsiteCopy(
      { ...ctx.services, env: parseEnv(Object.fromEntries(changed)) },
      { at: clock.now(), parent },
    );
    parent = made.snapshot;
    clock.advance(HOUR);
    return made;
  };
  const cli = (args: string[]) => resticCli(args, { repository, passphrase: OFFSITE_PASSPHRASE });
  const snapshots = async () => JSON.parse((await cli(["snapshots", "--json"])).stdout) as { time: string }[];
  return { ctx, repository, vars, copy, cli, snapshots };
}

/** Every file of a folder with its size (restic's cache aside): what "nothing changed" compares. */
async function filesOf(dir: string) {
  const entries = await fs.readdir(dir, { recursive: true, withFileTypes: true }).catch(() => []);
  const files = entries
    .filter((entry) => entry.isFile() && !entry.parentPath.includes(".restic-cache"))
    .map((entry) => path.join(entry.parentPath, entry.name));
  return Promise.all(files.sort().map(async (file) => [path.relative(dir, file), (await fs.stat(file)).size]));
}

async function emptyServer() {
  const dataDir = await tempDir("offsite-empty");
  const passphraseFile = path.join(dataDir, "..", `${path.basename(dataDir)}.passphrase`);
  await fs.writeFile(passphraseFile, `${OFFSITE_PASSPHRASE}\n`, { mode: 0o600 });
  cleanups.push(() => fs.rm(passphraseFile, { force: true }));
  return { dataDir, passphraseFile, vars: { DATA_DIR: dataDir, LOG_LEVEL: "silent" } };
}

/** `restic backup --stdin`, which holds its lock while its input stays open. */
async function lockHolder(repository: string) {
  const dir = await tempDir("restic-holder");
  await fs.writeFile(path.join(dir, "password"), `${OFFSITE_PASSPHRASE}\n`);
  const child = spawn(
    "restic",
    ["--cache-dir", path.join(dir, "cache"), "backup", "--stdin", "--stdin-filename", "x"],
    {
      env: { ...process.env, RESTIC_REPOSITORY: repository, RESTIC_PASSWORD_FILE: path.join(dir, "password") },
      stdio: ["pipe", "ignore", "ignore"],
    },
  );
  const exited = new Promise<number | null>((resolve) => child.once("exit", resolve));
  cleanups.push(async () => child.kill("SIGKILL"));
  // Written whole: a local repository's file has its own name only once it is complete.
  const locks = async () =>
    (await fs.readdir(path.join(repository, "locks"))).filter((name) => /^[0-9a-f]{64}$/.test(name));
  await until(async () => (await locks()).length > 0, { timeoutMs: 30_000 });
  return { child, exited, locks };
}

describe("off-site repositories that are not as they should be", () => {
  it("restic never gets the passphrase on a command line; --list shows the copies, --from-offsite ID restores the one named, and a folder plain restic restored loads with npm run restore -- DIR", async () => {
    // Every restic started (by the copies and by the scripts) through a shim that logs its arguments.
    const shim = await tempDir("restic-shim");
    const argv = path.join(shim, "argv.log");
    const real = execFileSync("sh", ["-c", "command -v restic"], { encoding: "utf8" }).trim();
    const script = `#!/bin/sh\nprintf '%s\\n' "$*" >> '${argv}'\nexec '${real}' "$@"\n`;
    await fs.writeFile(path.join(shim, "restic"), script, { mode: 0o755 });
    const savedPath = process.env.PATH;
    process.env.PATH = `${shim}:${savedPath}`;
    cleanups.push(async () => (process.env.PATH = savedPath));

    const site = await siteCopyingToFolder();
    const first = await site.copy();
    const atFirst = await dumpOffsiteSite(site.ctx.services);
    await insertEnquiryWithPhotos(site.ctx.services, 2, 1, new Date("2027-01-14T10:30:00.000Z"));
    const second = await site.copy();
    const commandLines = async () => (await fs.readFile(argv, "utf8")).trim().split("\n");
    for (const line of await commandLines()) expect(line).not.toContain(OFFSITE_PASSPHRASE);
    const empty = await emptyServer();
    const env = { ...empty.vars, BACKUP_OFFSITE_REPOSITORY: site.repository };
    const passphrase = ["--passphrase-file", empty.passphraseFile];
    const listed = await runScript("restore", ["--list", ...passphrase], env);
    expect(listed.status, listed.stderr).toBe(0);
    expect(listed.stdout).toMatch(
      new RegExp(
        `${second.snapshot.slice(0, 8)} {2}2027-01-14 11:00 UTC.*\n.*${first.snapshot.slice(0, 8)} {2}2027-01-14 10:00 UTC`,
      ),
    );
    const named = await runScript("restore", ["--from-offsite", first.snapshot.slice(0, 8), ...passphrase], env);
    expect(named.status, named.stderr).toBe(0);
    const restoredFirst = await openSite(empty.dataDir);
    cleanups.push(() => restoredFirst.close());
    expect(await dumpOffsiteSite(restoredFirst)).toEqual(atFirst);

    const restored = await tempDir("restic-restored");
    const cli = await site.cli(["restore", "latest", "--target", restored]);
    expect(cli.code, cli.stderr).toBe(0);
    const other = await emptyServer();
    const loaded = await runScript("restore", [restored], other.vars);
    expect(loaded.status, loaded.stderr).toBe(0);
    const services = await openSite(other.dataDir);
    cleanups.push(() => services.close());
    expect(await dumpOffsiteSite(services)).toEqual(await dumpOffsiteSite(site.ctx.services));

    const commands = await commandLines();
    expect(commands.filter((line) => / (backup|snapshots|restore) /.test(` ${line} `)).length).toBeGreaterThan(4);
    for (const line of commands) expect(line).not.toContain(OFFSITE_PASSPHRASE);
  }, 240_000);

  it("a wrong passphrase, a repository that cannot be created, an unreachable store: a clear message each, and nothing changed", async () => {
    const site = await siteCopyingToFolder();
    await site.copy();
    const before = await filesOf(site.repository);
    await expect(site.copy({ BACKUP_PASSPHRASE: "not-the-passphrase-it-was" })).rejects.toThrow(
      `The backup passphrase (BACKUP_PASSPHRASE) does not open the off-site repository ${site.repository}`,
    );
    const empty = await emptyServer();
    await fs.writeFile(empty.passphraseFile, "not-the-passphrase-it-was\n");
    const refused = await runScript("restore", ["--from-offsite", "--passphrase-file", empty.passphraseFile], {
      ...empty.vars,
      BACKUP_OFFSITE_REPOSITORY: site.repository,
    });
    expect(refused.status).toBe(1);
    expect(refused.stderr).toContain("does not open the off-site repository");
    expect(refused.stderr).toContain("Nothing was changed.");
    expect(await filesOf(empty.dataDir)).toEqual([]);

    const file = path.join(await tempDir("offsite-file"), "a-file");
    await fs.writeFile(file, "not a folder");
    const fresh = await siteCopyingToFolder({ BACKUP_OFFSITE_REPOSITORY: path.join(file, "repository") });
    await expect(fresh.copy()).rejects.toThrow(
      `Could not create the off-site repository ${path.join(file, "repository")}: create repository at`,
    );
    const closed = `https://127.0.0.1:${await freePort()}`;
    await expect(
      site.copy({ BACKUP_OFFSITE_REPOSITORY: undefined, ...offsiteS3Env(closed, "backups") }),
    ).rejects.toThrow(
      /Could not open the off-site repository s3:https:\/\/127\.0\.0\.1:\d+\/backups\/cornerstone-backups\/restic: .*connection refused/,
    );
    expect(await filesOf(site.repository)).toEqual(before);
    expect(await site.snapshots()).toHaveLength(1);
  }, 120_000);

  it("a restore onto a disk without room for restic's copy and the restore is refused before anything is written", async (test) => {
    const site = await siteCopyingToFolder();
    await site.copy();
    const empty = await emptyServer();
    // A 16 MB disk of its own (a tmpfs): mounting one needs root, as this machine's CI has.
    const mounted = spawnSync("mount", ["-t", "tmpfs", "-o", "size=16m", "tmpfs", empty.dataDir]).status === 0;
    if (!mounted) return test.skip("mounting a small disk needs root");
    cleanups.push(async () => spawnSync("umount", [empty.dataDir]));
    const restored = await runScript("restore", ["--from-offsite", "--passphrase-file", empty.passphraseFile], {
      ...empty.vars,
      BACKUP_OFFSITE_REPOSITORY: site.repository,
    });
    expect(restored.status).toBe(1);
    expect(restored.stderr).toMatch(
      new RegExp(
        `needs about [\\d.]+ MB free on the disk of ${empty.dataDir} \\(restic's copy, then the restore itself\\); 1[56](\\.\\d)? MB is free\\. Nothing was changed\\.`,
      ),
    );
    expect(await filesOf(empty.dataDir)).toEqual([]);
  }, 120_000);

  it("a truncated pack: npm run backup -- --read-data and a restore refuse it and name it (restic's backup does not see it)", async () => {
    const site = await siteCopyingToFolder();
    await site.copy();
    const packs = (await filesOf(path.join(site.repository, "data"))) as [string, number][];
    const [pack, bytes] = packs.sort((a, b) => b[1] - a[1])[0]!;
    await fs.truncate(path.join(site.repository, "data", pack), Math.floor(bytes / 2));
    await site.copy();
    const named = `pack data/${pack}`;

    const checked = await runScript("backup", ["--read-data"], site.ctx.envVars);
    expect(checked.status).toBe(1);
    expect(checked.stderr).toContain(named);
    const empty = await emptyServer();
    const restored = await runScript("restore", ["--from-offsite", "--passphrase-file", empty.passphraseFile], {
      ...empty.vars,
      BACKUP_OFFSITE_REPOSITORY: site.repository,
    });
    expect(restored.status).toBe(1);
    expect(restored.stderr).toContain(named);
    expect(restored.stderr).toContain("Nothing was changed.");
    expect(await filesOf(empty.dataDir)).toEqual([]);
  }, 120_000);

  it("junk under snapshots/: copies keep leaving from this site's last snapshot, the keep policy holds, and --verify names the file", async () => {
    const site = await siteCopyingToFolder({
      BACKUP_KEEP_HOURLY: "2",
      BACKUP_KEEP_DAILY: "0",
      BACKUP_KEEP_MONTHLY: "0",
    });
    await site.copy();
    const junk = randomBytes(32).toString("hex");
    await fs.writeFile(path.join(site.repository, "snapshots", junk), randomBytes(300));
    // Nothing to forget at 11:00; then each hour forgets one, and the prune stops at the junk.
    expect((await site.copy()).pruneProblem).toBeNull();
    for (const _hour of [1, 2]) expect((await site.copy()).pruneProblem).toContain("invalid data returned");
    expect((await site.snapshots()).map((snapshot) => snapshot.time)).toEqual([
      "2027-01-14T12:00:00Z",
      "2027-01-14T13:00:00Z",
    ]);
    const verified = await runScript("backup", ["--verify"], site.ctx.envVars);
    expect(verified.status).toBe(1);
    expect(verified.stderr).toContain(`snapshots/${junk.slice(0, 10)}… cannot be read`);
  }, 120_000);

  it("a lock left by a copy that was killed is removed before the next copy; a running copy's is not", async () => {
    const site = await siteCopyingToFolder({
      BACKUP_KEEP_HOURLY: "1",
      BACKUP_KEEP_DAILY: "0",
      BACKUP_KEEP_MONTHLY: "0",
    });
    await site.copy();
    const killed = await lockHolder(site.repository);
    killed.child.kill("SIGKILL");
    await killed.exited;
    expect(await killed.locks()).toHaveLength(1);
    // The last copy is forgotten, so the prune needs the repository to itself.
    expect(await site.copy()).toMatchObject({ removedSnapshots: 1, pruneProblem: null });
    expect(await killed.locks()).toEqual([]);

    const running = await lockHolder(site.repository);
    const held = await running.locks();
    expect((await site.copy()).pruneProblem).toContain("locked");
    expect(await running.locks()).toEqual(held);
    running.child.stdin!.end("the rest of its input\n");
    expect(await running.exited).toBe(0);
  }, 120_000);
});
