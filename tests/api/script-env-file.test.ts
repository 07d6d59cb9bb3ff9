import fs from "node:fs/promises";
import os from "node:os";
import path from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { ensureAdministrator, verifyCredentials } from "~/auth/auth.server";
import { databaseTargetFor, openDatabaseAt } from "~/db/database.server";
import { runScript as runScriptAsNpmDoes } from "../support/run-script";
import { createTestContext, type TestContext } from "./helpers";

/**
 * `npm run backup|restore|admin:password -- --env-file FILE`, as docs/DEPLOY.md runs them: the
 * service's settings come from the file (read as systemd reads it) and win over the shell's, and
 * the scripts never check the bucket's CORS rule (only the server takes uploads). The site's
 * SITE_URL is not in the file, so on PostgreSQL + S3 a CORS check would look for
 * http://localhost:3000, which the bucket (made for SITE below) does not allow.
 */
const SITE = "https://stone.example.co.nz";
let ctx: TestContext;
let tmp: string;
let envFile: string;
let shellDataDir: string;

/** Runs a script as npm does, from a shell whose DATA_DIR points elsewhere. */
const runScript = (name: "backup" | "restore" | "admin-password", args: string[], input = "") =>
  runScriptAsNpmDoes(name, args, { DATA_DIR: shellDataDir, LOG_LEVEL: "info" }, { input });

beforeAll(async () => {
  ctx = await createTestContext({ SITE_URL: SITE });
  await ensureAdministrator(ctx.services, { username: "owner", password: "the password at backup time" });
  tmp = await fs.mkdtemp(path.join(os.tmpdir(), "cornerstone-env-file-"));
  shellDataDir = path.join(tmp, "not-the-data-dir");
  envFile = path.join(tmp, "cornerstone.env");
  // Written the way an owner edits the shipped file: comments, quotes, blanks around values.
  const lines = Object.entries(ctx.envVars)
    .filter(([name]) => name !== "SITE_URL")
    .map(([name, value]) => `# ${name}\n${name} = '${value}'  `);
  await fs.writeFile(envFile, `${lines.join("\n")}\nLOG_LEVEL=silent\n`);
});
afterAll(async () => {
  await ctx.close();
  await fs.rm(tmp, { recursive: true, force: true });
});

describe("--env-file", () => {
  const backup = () => path.join(tmp, "site.tar.gz");

  it("npm run backup reads the service's settings from the file and says so, with no CORS check", async () => {
    const result = await runScript("backup", ["--env-file", envFile, "--out", backup()]);
    expect(result.status, result.stderr).toBe(0);
    expect(result.stderr).toContain(`Settings read from ${envFile} (`);
    expect(result.stdout).toContain(`Backup written: ${backup()}`);
    // The shell's DATA_DIR lost to the file's.
    await expect(fs.access(shellDataDir)).rejects.toThrow();
  });

  it("npm run admin:password changes the password of the file's site", async () => {
    const result = await runScript("admin-password", ["--env-file", envFile], "a password set later\n");
    expect(result.status, result.stderr).toBe(0);
    expect(result.stderr).toContain(`Settings read from ${envFile} (`);
    expect(await verifyCredentials(ctx.services, "owner", "a password set later")).not.toBeNull();
  });

  it("npm run restore restores into the file's site", async () => {
    const result = await runScript("restore", [backup(), "--env-file", envFile]);
    expect(result.status, result.stderr).toBe(0);
    expect(result.stderr).toContain(`Settings read from ${envFile} (`);
    expect(result.stdout).toContain("Restored site.tar.gz");
    // Into the file's site: its data folder, or its PostgreSQL database.
    expect(result.stdout).toContain(
      ctx.backend.database === "sqlite" ? `into ${ctx.dataDir}` : "into the PostgreSQL database",
    );
    // Read afresh: on SQLite the restore put a new file in place of the one the test's handle has open.
    const restored = openDatabaseAt(databaseTargetFor(ctx.services.env));
    try {
      expect(await verifyCredentials({ db: restored }, "owner", "the password at backup time")).not.toBeNull();
    } finally {
      await restored.destroy();
    }
    await expect(fs.access(shellDataDir)).rejects.toThrow();
  });

  it("a file that cannot be read stops the script before it changes anything", async () => {
    const missing = path.join(tmp, "missing.env");
    const result = await runScript("backup", ["--env-file", missing]);
    expect(result.status).not.toBe(0);
    // Node 20 itself reads any --env-file in its arguments (even the script's) and stops first with
    // "node: FILE: not found" (decision 0050); later versions leave it to the script's own message.
    expect(result.stderr).toMatch(new RegExp(`${missing.replaceAll(".", "\\.")}: (?:there is no such file|not found)`));
    await expect(fs.access(shellDataDir)).rejects.toThrow();
  });
});
