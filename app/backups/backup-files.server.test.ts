import fs from "node:fs/promises";
import os from "node:os";
import path from "node:path";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { BACKUP_FILE_PATTERN, backupFileName, minimumFreeBytes, moveIntoPlace, pruneOldBackups, spaceProblem } from "./backup-files.server";

let dir: string;
beforeEach(async () => {
  dir = await fs.mkdtemp(path.join(os.tmpdir(), "cornerstone-backup-files-"));
});
afterEach(async () => {
  await fs.rm(dir, { recursive: true, force: true });
});

const GB = 1024 ** 3;

describe("backup files", () => {
  it("are named cornerstone-YYYYMMDD-HHmmss.tar.gz in UTC", () => {
    expect(backupFileName(new Date("2026-03-04T05:06:07.890Z"))).toBe("cornerstone-20260304-050607.tar.gz");
    expect(BACKUP_FILE_PATTERN.test("cornerstone-20260304-050607.tar.gz")).toBe(true);
    expect(BACKUP_FILE_PATTERN.test("cornerstone-20260304-050607-1.tar.gz")).toBe(true);
    expect(BACKUP_FILE_PATTERN.test("pre-restore-20260304-050607")).toBe(false);
  });

  it("never overwrite one another: a second backup in the same second gets -1", async () => {
    const target = path.join(dir, "cornerstone-20260304-050607.tar.gz");
    for (const content of ["first", "second"]) {
      const temp = path.join(dir, `.partial-${content}`);
      await fs.writeFile(temp, content);
      await moveIntoPlace(temp, target);
    }
    expect((await fs.readdir(dir)).sort()).toEqual(["cornerstone-20260304-050607-1.tar.gz", "cornerstone-20260304-050607.tar.gz"]);
    expect(await fs.readFile(target, "utf8")).toBe("first");
  });

  it("keep only the newest N of the scheduled kind; other files are left alone", async () => {
    const names = [
      "cornerstone-20260101-000000.tar.gz",
      "cornerstone-20260102-000000.tar.gz",
      "cornerstone-20260102-000000-1.tar.gz",
      "cornerstone-20260103-000000.tar.gz",
      "my-own-copy.tar.gz",
    ];
    for (const name of names) await fs.writeFile(path.join(dir, name), name);
    await fs.mkdir(path.join(dir, "pre-restore-20260101-000000"));
    expect(await pruneOldBackups(dir, 2)).toEqual(["cornerstone-20260101-000000.tar.gz", "cornerstone-20260102-000000.tar.gz"]);
    expect((await fs.readdir(dir)).sort()).toEqual([
      "cornerstone-20260102-000000-1.tar.gz",
      "cornerstone-20260103-000000.tar.gz",
      "my-own-copy.tar.gz",
      "pre-restore-20260101-000000",
    ]);
  });
});

describe("the free-space rule: a backup must leave 10 % of the disk or 1 GB free, whichever is more", () => {
  const probe = (freeBytes: number, totalBytes: number) => async () => ({ freeBytes, totalBytes });

  it("takes the larger of the two margins", () => {
    expect(minimumFreeBytes(100 * GB)).toBe(10 * GB);
    expect(minimumFreeBytes(4 * GB)).toBe(GB);
  });

  it("allows a backup that leaves exactly the margin, and refuses one byte more", async () => {
    expect(await spaceProblem(probe(11 * GB, 100 * GB), dir, GB)).toBeNull();
    expect(await spaceProblem(probe(11 * GB, 100 * GB), dir, GB + 1)).toMatch(/Not enough free disk space/);
    expect(await spaceProblem(probe(2 * GB, 4 * GB), dir, GB)).toBeNull();
    expect(await spaceProblem(probe(2 * GB, 4 * GB), dir, GB + 1)).toMatch(/at least 1\.0 GB must stay free/);
  });
});
