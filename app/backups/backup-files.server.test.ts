import fs from "node:fs/promises";
import os from "node:os";
import path from "node:path";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import {
  listForeignBackups,
  minimumFreeBytes,
  moveIntoPlace,
  pruneOldBackups,
  spaceProblem,
} from "./backup-files.server";
import { createBackupNaming } from "./backup-names.server";

let dir: string;
beforeEach(async () => {
  dir = await fs.mkdtemp(path.join(os.tmpdir(), "cornerstone-backup-files-"));
});
afterEach(async () => {
  await fs.rm(dir, { recursive: true, force: true });
});

const GB = 1024 ** 3;

const naming = createBackupNaming("a".repeat(64));
const otherInstallation = createBackupNaming("b".repeat(64));

describe("backup names (decision 0046)", () => {
  it("are cornerstone-YYYYMMDD-HHmmss-<96 random bits>-<tag>.tar.gz in UTC, never the same twice", () => {
    const at = new Date("2026-03-04T05:06:07.890Z");
    const name = naming.make("cornerstone", at);
    expect(name).toMatch(/^cornerstone-20260304-050607-[0-9a-f]{24}-[0-9a-f]{32}\.tar\.gz$/);
    expect(naming.make("cornerstone", at)).not.toBe(name);
    expect(naming.make("pre-restore", at, { folder: true })).toMatch(
      /^pre-restore-20260304-050607-[0-9a-f]{24}-[0-9a-f]{32}$/,
    );
  });

  it("verify only with the key that made them, and not once any part changes", () => {
    const name = naming.make("cornerstone", new Date("2026-03-04T05:06:07Z"));
    expect(naming.verify(name)).toEqual({ kind: "cornerstone", stamp: "20260304-050607" });
    expect(otherInstallation.verify(name)).toBeNull();
    expect(naming.verify(name.replace("20260304", "99991231"))).toBeNull();
    expect(naming.verify(name.replace(".tar.gz", ""))).toBeNull();
    expect(naming.verify("cornerstone-20260304-050607.tar.gz")).toBeNull();
  });

  it("never overwrite one another: a second file of the same name gets -1", async () => {
    const target = path.join(dir, "cornerstone-20260304-050607.tar.gz");
    for (const content of ["first", "second"]) {
      const temp = path.join(dir, `.partial-${content}`);
      await fs.writeFile(temp, content);
      await moveIntoPlace(temp, target);
    }
    expect((await fs.readdir(dir)).sort()).toEqual([
      "cornerstone-20260304-050607-1.tar.gz",
      "cornerstone-20260304-050607.tar.gz",
    ]);
    expect(await fs.readFile(target, "utf8")).toBe("first");
  });

  it("pruning keeps the newest N this installation named; planted, foreign and pre-restore files stay", async () => {
    const day = (n: number) => new Date(Date.UTC(2026, 0, n));
    const own = [1, 2, 3].map((n) => naming.make("cornerstone", day(n)));
    const planted = [
      "cornerstone-99991231-235959.tar.gz",
      otherInstallation.make("cornerstone", day(9)),
      "my-own-copy.tar.gz",
    ];
    for (const name of [...own, ...planted]) await fs.writeFile(path.join(dir, name), name);
    const kept = naming.make("pre-restore", day(1), { folder: true });
    await fs.mkdir(path.join(dir, kept));
    expect(await pruneOldBackups(dir, 2, naming)).toEqual([own[0]]);
    expect((await fs.readdir(dir)).sort()).toEqual([own[1], own[2], ...planted, kept].sort());
    expect(await listForeignBackups(dir, null, naming)).toEqual(
      [...planted].sort().map((name) => ({ location: "server", name })),
    );
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
