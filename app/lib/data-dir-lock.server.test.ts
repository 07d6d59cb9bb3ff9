import { spawn } from "node:child_process";
import { statSync } from "node:fs";
import fs from "node:fs/promises";
import os from "node:os";
import path from "node:path";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { DataDirLockedError, LOCK_FILE_NAME, lockDataDir, wrongUserProblem } from "./data-dir-lock.server";

let dir: string;
beforeEach(async () => {
  dir = await fs.mkdtemp(path.join(os.tmpdir(), "cornerstone-lock-"));
});
afterEach(async () => {
  await fs.rm(dir, { recursive: true, force: true });
});

/** Another process holding the lock, as a server (shared) or a restore (exclusive) does. */
async function holder(mode: "shared" | "exclusive") {
  const child = spawn(
    process.execPath,
    [
      "--import",
      "tsx",
      "-e",
      `import("./app/lib/data-dir-lock.server.ts").then((m) => { m.lockDataDir(${JSON.stringify(dir)}, "${mode}"); console.log("locked"); setInterval(() => {}, 1000); })`,
    ],
    { stdio: ["ignore", "pipe", "inherit"] },
  );
  await new Promise<void>((resolve, reject) => {
    child.stdout!.on("data", (chunk: Buffer) => chunk.toString().includes("locked") && resolve());
    child.once("exit", (code) => reject(new Error(`holder exited with ${code}`)));
  });
  const exited = new Promise((resolve) => child.once("exit", resolve));
  return { kill: async (signal: NodeJS.Signals) => (child.kill(signal), exited) };
}

describe("the DATA_DIR lock", () => {
  it("creates DATA_DIR 0700 and its lock file 0600 even under a loose umask (it runs before the server sets its own)", () => {
    const before = process.umask(0o022);
    try {
      const dataDir = path.join(dir, "data");
      const lock = lockDataDir(dataDir, "shared");
      lock.release();
      expect(statSync(dataDir).mode & 0o777).toBe(0o700);
      expect(statSync(path.join(dataDir, LOCK_FILE_NAME)).mode & 0o777).toBe(0o600);
    } finally {
      process.umask(before);
    }
  });

  it("a server's shared lock keeps a restore out, lets another server or backup in, and dies with its process (SIGKILL)", async () => {
    const server = await holder("shared");
    try {
      expect(() => lockDataDir(dir, "exclusive")).toThrow(DataDirLockedError);
      expect(() => lockDataDir(dir, "exclusive")).toThrow(/A Cornerstone server \(or npm run backup\) is running on/);
      const another = lockDataDir(dir, "shared");
      another.release();
    } finally {
      await server.kill("SIGKILL");
    }
    const restore = lockDataDir(dir, "exclusive");
    restore.release();
  });

  it("a restore's exclusive lock keeps servers out until it is released", async () => {
    const restore = await holder("exclusive");
    try {
      expect(() => lockDataDir(dir, "shared")).toThrow(/A restore is running on/);
    } finally {
      await restore.kill("SIGTERM");
    }
    lockDataDir(dir, "shared").release();
  });
});

describe("scripts run as DATA_DIR's owner", () => {
  it("refuse root on a folder another user owns; anything else is fine", async () => {
    const stat = await fs.stat(dir);
    expect(wrongUserProblem(dir, stat.uid)).toBeNull();
    expect(wrongUserProblem(path.join(dir, "not-yet"), 0)).toBeNull();
    if (stat.uid !== 0) {
      expect(wrongUserProblem(dir, 0)).toMatch(/belongs to another user .*run this as that user/);
    } else {
      // Running as root here: hand the folder to another user to see the refusal.
      await fs.chown(dir, 65534, 65534);
      expect(wrongUserProblem(dir, 0)).toMatch(/belongs to another user \(uid 65534\); run this as that user/);
      expect(wrongUserProblem(dir, 65534)).toBeNull();
    }
  });
});
