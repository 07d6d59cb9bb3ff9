import { spawnSync } from "node:child_process";
import fs from "node:fs/promises";
import os from "node:os";
import path from "node:path";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { ensureAdministrator, verifyCredentials } from "~/auth/auth.server";
import { initialPasswordPath } from "~/auth/initial-admin.server";
import { SIGN_IN_SCOPES } from "~/auth/sign-in.server";
import { migrateToLatest, openDatabase } from "~/db/database.server";

let dataDir: string;
beforeEach(async () => {
  dataDir = await fs.mkdtemp(path.join(os.tmpdir(), "cornerstone-pw-"));
  const db = openDatabase(dataDir);
  await migrateToLatest(db);
  await ensureAdministrator({ db }, { username: "owner", password: "the old password" });
  await db.destroy();
});
afterEach(async () => {
  await fs.rm(dataDir, { recursive: true, force: true });
});

function runScript(input: string, args: string[] = []) {
  return spawnSync(process.execPath, ["--import", "tsx", "scripts/admin-password.ts", ...args], {
    input,
    env: { ...process.env, DATA_DIR: dataDir, LOG_LEVEL: "silent" },
    encoding: "utf8",
  });
}

describe("npm run admin:password", () => {
  it("sets a new password read from stdin, without echoing it", async () => {
    const result = runScript("a brand new password\n");
    expect(result.status, result.stderr).toBe(0);
    expect(result.stdout).toContain("The admin password was changed");
    expect(result.stdout).toContain("every sign-in lock-out was cleared");
    expect(result.stdout + result.stderr).not.toContain("a brand new password");
    const db = openDatabase(dataDir);
    try {
      expect(await verifyCredentials({ db }, "owner", "a brand new password")).not.toBeNull();
      expect(await verifyCredentials({ db }, "owner", "the old password")).toBeNull();
    } finally {
      await db.destroy();
    }
  });

  it("can rename the administrator too", async () => {
    expect(runScript("another new password\n", ["--username", "mark"]).status).toBe(0);
    const db = openDatabase(dataDir);
    try {
      expect(await verifyCredentials({ db }, "mark", "another new password")).not.toBeNull();
    } finally {
      await db.destroy();
    }
  });

  it("clears every sign-in lock-out (not the contact form's limit) and deletes the first-start password file", async () => {
    const db = openDatabase(dataDir);
    const window = { window_start: "2026-01-01T00:00:00.000Z", expires_at: "2999-01-01T00:00:00.000Z", count: 99 };
    await db
      .insertInto("rate_limit_counters")
      .values([...SIGN_IN_SCOPES.map((scope) => ({ scope, key: "k", ...window })), { scope: "contact", key: "k", ...window }])
      .execute();
    await db.destroy();
    const file = initialPasswordPath(dataDir);
    await fs.mkdir(path.dirname(file), { recursive: true });
    await fs.writeFile(file, "password: first\n", { mode: 0o600 });

    expect(runScript("a brand new password\n").status).toBe(0);
    const after = openDatabase(dataDir);
    try {
      expect((await after.selectFrom("rate_limit_counters").select("scope").execute()).map((r) => r.scope)).toEqual(["contact"]);
    } finally {
      await after.destroy();
    }
    await expect(fs.access(file)).rejects.toThrow(/ENOENT/);
  });

  it("refuses a short password and changes nothing", async () => {
    const result = runScript("short\n");
    expect(result.status).toBe(1);
    expect(result.stderr).toContain("at least 8 characters");
    const db = openDatabase(dataDir);
    try {
      expect(await verifyCredentials({ db }, "owner", "the old password")).not.toBeNull();
    } finally {
      await db.destroy();
    }
  });
});
