// @same-on-every-backend: it picks its own database and storage, or runs scripts on a data directory
import fs from "node:fs/promises";
import os from "node:os";
import path from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { lockDataDir } from "~/lib/data-dir-lock.server";
import { hashTree, rewriteArchive } from "../support/backup-archives";
import { createSite, dumpSite, openSite, type SiteDump } from "../support/backup-site";
import { runScript } from "../support/run-script";

/** `npm run backup` and `npm run restore` as a person runs them: separate processes, real files. */
const run = (script: "backup" | "restore", args: string[], dataDir: string) =>
  runScript(script, args, { DATA_DIR: dataDir, LOG_LEVEL: "silent" }, { umask: "022" });

const UNMODED_FILE_PRELOAD = path.resolve("tests/support/file-without-mode.mjs");

/** Every path under dir whose mode is not 0600 (files) or 0700 (folders). */
async function notPrivate(dir: string): Promise<string[]> {
  const wrong: string[] = [];
  for (const entry of await fs.readdir(dir, { recursive: true, withFileTypes: true })) {
    const full = path.join(entry.parentPath, entry.name);
    const mode = (await fs.stat(full)).mode & 0o777;
    if (mode !== (entry.isDirectory() ? 0o700 : 0o600)) wrong.push(`${path.relative(dir, full)} ${mode.toString(8)}`);
  }
  return wrong;
}

let dataDir: string;
let dump: SiteDump;
const tmp = await fs.mkdtemp(path.join(os.tmpdir(), "cornerstone-backup-cli-"));
beforeAll(async () => {
  const site = await createSite({ galleries: { traditional: 1, landscaping: 1 }, enquiries: 4 });
  dataDir = site.dataDir;
  dump = await dumpSite(site.services);
  await site.services.db.destroy();
}, 60_000);
afterAll(async () => {
  await fs.rm(dataDir, { recursive: true, force: true });
  await fs.rm(tmp, { recursive: true, force: true });
});

describe("npm run backup", () => {
  it("writes DATA_DIR/backups/cornerstone-YYYYMMDD-HHmmss-<random>-<tag>.tar.gz by default and says what it wrote", async () => {
    const result = await run("backup", [], dataDir);
    expect(result.status, result.stderr).toBe(0);
    const match =
      /Backup written: (\S+cornerstone-\d{8}-\d{6}-[0-9a-f]{24}-[0-9a-f]{32}\.tar\.gz) \(.+: \d+ rows in \d+ tables, \d+ image files, schema \S+\)/.exec(
        result.stdout,
      );
    expect(match, result.stdout).not.toBeNull();
    expect(path.dirname(match![1]!)).toBe(path.join(dataDir, "backups"));
    const stat = await fs.stat(match![1]!);
    // Readable by the service's user only: it holds the password hash and the enquiries.
    expect(stat.mode & 0o777).toBe(0o600);
  });

  it("run from a shell whose umask is 022 and refused at once (a restore holds DATA_DIR), a file it makes without a mode is still 0600", async () => {
    // Refused before it opens the site, the script has only its own umask to keep what it writes private.
    const restoreRunning = lockDataDir(dataDir, "exclusive");
    const madeWithoutAMode = path.join(tmp, "made-without-a-mode");
    try {
      const result = await runScript(
        "backup",
        [],
        {
          DATA_DIR: dataDir,
          LOG_LEVEL: "silent",
          NODE_OPTIONS: `--import ${UNMODED_FILE_PRELOAD}`,
          UNMODED_FILE: madeWithoutAMode,
        },
        { umask: "022" },
      );
      expect([result.status, result.stderr.trim()]).toEqual([
        1,
        `A restore is running on ${dataDir}: wait for it to finish.`,
      ]);
    } finally {
      restoreRunning.release();
    }
    expect((await fs.stat(madeWithoutAMode)).mode & 0o777).toBe(0o600);
  });

  it("--out FILE writes there; --out FOLDER writes the usual name into it", async () => {
    const file = path.join(tmp, "chosen.tar.gz");
    expect((await run("backup", ["--out", file], dataDir)).status).toBe(0);
    await fs.access(file);
    const folder = path.join(tmp, "folder");
    await fs.mkdir(folder);
    expect((await run("backup", ["--out", folder], dataDir)).status).toBe(0);
    expect(await fs.readdir(folder)).toEqual([
      expect.stringMatching(/^cornerstone-\d{8}-\d{6}-[0-9a-f]{24}-[0-9a-f]{32}\.tar\.gz$/),
    ]);
  });
});

describe("npm run restore", () => {
  it("restores, and says where the previous data is kept, who the administrator is, that sessions are gone and whose password now applies", async () => {
    const file = path.join(tmp, "for-restore.tar.gz");
    expect((await run("backup", ["--out", file], dataDir)).status).toBe(0);
    const target = path.join(tmp, "restore-target");
    await fs.cp(dataDir, target, { recursive: true });

    const result = await run("restore", [file], target);
    expect(result.status, result.stderr).toBe(0);
    expect(result.stdout).toMatch(/Restored for-restore\.tar\.gz \(made \S+ by Cornerstone 1\.0\.0, schema \S+\)/);
    expect(result.stdout).toMatch(
      /The previous database and uploads are kept in \S+\/backups\/pre-restore-\d{8}-\d{6}/,
    );
    expect(result.stdout).toMatch(/The administrator is owner\./);
    expect(result.stdout).toMatch(
      /Sessions are never restored: everyone signs in again\. Every sign-in lock-out is cleared\./,
    );
    expect(result.stdout).toMatch(/The administrator's password is now the one it was when the backup was made/);
    const restored = await openSite(target);
    try {
      expect(await dumpSite(restored)).toEqual(dump);
    } finally {
      await restored.db.destroy();
    }
  });

  it("run from a shell whose umask is 022, the restore still leaves the database and image files 0600 and their folders 0700", async () => {
    const file = path.join(tmp, "for-modes.tar.gz");
    expect((await run("backup", ["--out", file], dataDir)).status).toBe(0);
    expect((await fs.stat(file)).mode & 0o777).toBe(0o600);
    const target = path.join(tmp, "modes-target");
    await fs.mkdir(target, { mode: 0o700 });
    const result = await run("restore", [file], target);
    expect(result.status, result.stderr).toBe(0);
    expect(await fs.readdir(path.join(target, "uploads"), { recursive: true })).not.toHaveLength(0);
    expect(await notPrivate(target)).toEqual([]);
  });

  it("a tampered backup: exit code 1, names what is wrong, changes nothing", async () => {
    const file = path.join(tmp, "to-tamper.tar.gz");
    expect((await run("backup", ["--out", file], dataDir)).status).toBe(0);
    const tampered = path.join(tmp, "tampered.tar.gz");
    await rewriteArchive(file, tampered, (entries) => {
      const entry = entries.find((e) => e.name.startsWith("objects/originals/"))!;
      entry.data = Buffer.concat([entry.data, Buffer.from("!")]);
    });
    const before = await hashTree(dataDir);
    const result = await run("restore", [tampered], dataDir);
    expect(result.status).toBe(1);
    expect(result.stderr).toMatch(
      /objects\/originals\/\S+ has \d+ bytes; the manifest says \d+\. The file was changed or damaged\.\s+Nothing was changed\./,
    );
    const after = await hashTree(dataDir);
    delete after["server.lock"];
    delete before["server.lock"];
    expect(after).toEqual(before);
  });

  it("without a file: shows how to use it", async () => {
    const result = await run("restore", [], dataDir);
    expect(result.status).toBe(2);
    expect(result.stderr).toMatch(/Usage: npm run restore -- \/path\/to\/cornerstone-YYYYMMDD-HHmmss\.tar\.gz/);
  });
});
