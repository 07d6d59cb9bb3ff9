import fs from "node:fs/promises";
import os from "node:os";
import path from "node:path";
import { Secret, TOTP } from "otpauth";
import supertest from "supertest";
import { afterEach, describe, expect, inject, it } from "vitest";
import { TWO_STEP_LOST_IN_RESTORE } from "~/notifications/two-step-lost";
import { initialPasswordPath } from "~/auth/initial-admin.server";
import { parseEnv } from "~/env.server";
import { createManualClock, type ManualClock } from "~/lib/clock";
import { createLogger } from "~/lib/logger.server";
import type { AppServices } from "~/services.server";
import { createApp } from "../../server/app";
import { openServices } from "../../server/bootstrap";
import { createTestBucket, createTestDatabase, s3Env } from "../support/backends";
import { runScript } from "../support/run-script";
import { ADMIN, createAdminContext, type AdminContext } from "./helpers";

/**
 * Two-step verification through a backup and a restore onto a new server (decision 0058), on
 * this run's back end, with `npm run backup` and `npm run restore` as the owner runs them: an
 * encrypted backup carries the two-step key, and the restore seals the secret again with the
 * new installation's own key; an unencrypted one cannot carry it, and says so everywhere.
 */
const PASSPHRASE = "quarry-lantern-basalt-orchard-two-step";
const MAIL_ON = {
  SMTP_URL: "smtp://127.0.0.1:9",
  MAIL_FROM: "Cornerstone <website@cornerstone.example.nz>",
  NOTIFY_EMAIL: "owner@example.nz",
};
const silent = createLogger({ level: "silent" });

const cleanups: (() => Promise<unknown>)[] = [];
afterEach(async () => {
  for (const cleanup of cleanups.splice(0).reverse()) await cleanup().catch(() => {});
});

const codeAt = (secret: string, clock: ManualClock) =>
  new TOTP({ secret: Secret.fromBase32(secret) }).generate({ timestamp: clock.now().getTime() });

/** The site as it is before the disaster: two-step on, through the dashboard's API. */
async function siteWithTwoStep(
  clock: ManualClock,
): Promise<{ ctx: AdminContext; secret: string; recoveryCodes: string[] }> {
  const ctx = await createAdminContext({}, { clock });
  cleanups.push(() => ctx.close());
  const setup = await ctx.admin.post("/api/admin/two-step/setup").send({ currentPassword: ADMIN.password }).expect(200);
  const secret = setup.body.secret as string;
  const enabled = await ctx.admin
    .post("/api/admin/two-step/enable")
    .send({ code: codeAt(secret, clock) })
    .expect(200);
  return { ctx, secret, recoveryCodes: enabled.body.recoveryCodes as string[] };
}

/** `npm run backup --out FILE` on the site, with or without BACKUP_PASSPHRASE. */
async function backUp(ctx: AdminContext, passphrase: string | null): Promise<string> {
  const dir = await fs.mkdtemp(path.join(os.tmpdir(), "cornerstone-two-step-archive-"));
  cleanups.push(() => fs.rm(dir, { recursive: true, force: true }));
  const env = { ...ctx.envVars, ...(passphrase ? { BACKUP_PASSPHRASE: passphrase } : {}) };
  const result = await runScript("backup", ["--out", dir], env);
  expect(result.status, result.stderr).toBe(0);
  const [file] = await fs.readdir(dir);
  expect(file).toMatch(passphrase ? /\.tar\.gz\.age$/ : /\.tar\.gz$/);
  return path.join(dir, file!);
}

/** A new server: an empty DATA_DIR, and on PostgreSQL a fresh, empty database and bucket. */
async function newServer(extra: Record<string, string> = {}) {
  const dataDir = await fs.mkdtemp(path.join(os.tmpdir(), "cornerstone-new-server-"));
  cleanups.push(() => fs.rm(dataDir, { recursive: true, force: true }));
  const envVars: Record<string, string> = { DATA_DIR: dataDir, LOG_LEVEL: "silent", NODE_ENV: "test", ...extra };
  const backends = inject("backends");
  if (backends.testBackend === "postgres-s3") {
    const database = await createTestDatabase(backends.postgresUrl);
    cleanups.push(() => database.drop());
    const bucket = await createTestBucket(backends.s3Endpoint, {
      siteOrigins: [new URL(parseEnv(envVars).SITE_URL).origin],
    });
    cleanups.push(() => bucket.remove());
    Object.assign(envVars, { DATABASE_URL: database.url }, s3Env(backends.s3Endpoint, bucket.name));
  }
  return { dataDir, envVars };
}

/** The restored server, started: its services and its API. */
async function start(
  envVars: Record<string, string>,
  clock: ManualClock,
): Promise<{ services: AppServices; app: ReturnType<typeof createApp> }> {
  const services = await openServices(parseEnv(envVars), silent, { clock });
  cleanups.push(() => services.close());
  return { services, app: createApp(services) };
}

describe("two-step verification restored onto a new server", () => {
  it("an encrypted backup carries its key: on the new server the password alone gets twoFactorRequired, and a code from the original secret signs in", async () => {
    const clock = createManualClock("2026-03-02T09:00:10.000Z");
    const { ctx, secret, recoveryCodes } = await siteWithTwoStep(clock);
    const archive = await backUp(ctx, PASSPHRASE);

    const target = await newServer();
    const restored = await runScript("restore", [archive], { ...target.envVars, BACKUP_PASSPHRASE: PASSPHRASE });
    expect(restored.status, restored.stderr).toBe(0);
    expect(restored.stdout).toContain("Two-step verification stays on");
    expect(restored.stdout).not.toContain(TWO_STEP_LOST_IN_RESTORE);

    clock.advance(60_000);
    const { services, app } = await start(target.envVars, clock);
    // The new installation has a key of its own: the secret was sealed again with it.
    expect(services.signIn.twoStepKey.equals(ctx.services.signIn.twoStepKey)).toBe(false);
    const methods = supertest.agent(app);
    const password = await methods.post("/api/login").send(ADMIN).expect(200);
    expect(password.body).toEqual({ twoFactorRequired: true });
    await methods.get("/api/auth/user").expect(401);
    const signedIn = await methods
      .post("/api/login/two-factor")
      .send({ code: codeAt(secret, clock) })
      .expect(200);
    expect(signedIn.body.username).toBe(ADMIN.username);
    expect((await methods.get("/api/admin/sign-in-methods").expect(200)).body.twoStep).toEqual({
      status: "on",
      recoveryCodesLeft: 10,
    });

    // The recovery codes came along too.
    const other = supertest.agent(app);
    expect((await other.post("/api/login").send(ADMIN).expect(200)).body).toEqual({ twoFactorRequired: true });
    await other.post("/api/login/two-factor").send({ code: recoveryCodes[0] }).expect(200);
  }, 180_000);

  it("an unencrypted backup cannot carry it: restore prints the warning, the owner is e-mailed, and the dashboard's state says so until it is on again", async () => {
    const clock = createManualClock("2026-03-02T09:00:10.000Z");
    const { ctx } = await siteWithTwoStep(clock);
    const archive = await backUp(ctx, null);

    const target = await newServer(MAIL_ON);
    const restored = await runScript("restore", [archive], target.envVars);
    expect(restored.status, restored.stderr).toBe(0);
    expect(restored.stdout).toContain(TWO_STEP_LOST_IN_RESTORE);
    expect(restored.stdout).toContain("the owner is e-mailed");

    const { services, app } = await start(target.envVars, clock);
    const jobs = await services.db
      .selectFrom("notification_jobs")
      .select(["kind", "status", "payload"])
      .where("kind", "=", "security")
      .execute();
    expect(jobs.map((job) => [job.status, (JSON.parse(job.payload) as { kind: string }).kind])).toEqual([
      ["pending", "two-step-lost-in-restore"],
    ]);
    const agent = supertest.agent(app);
    expect((await agent.post("/api/login").send(ADMIN).expect(200)).body.username).toBe(ADMIN.username);
    expect((await agent.get("/api/admin/sign-in-methods").expect(200)).body.twoStep.status).toBe("unreadable");
  }, 180_000);
});

describe("the first start's password file after a restore", () => {
  it("is removed by a restore that brings an administrator its password does not sign in to", async () => {
    const clock = createManualClock("2026-03-02T09:00:10.000Z");
    const ctx = await createAdminContext({}, { clock });
    cleanups.push(() => ctx.close());
    const archive = await backUp(ctx, null);

    const target = await newServer();
    // The new server's first start made a password file for its own administrator.
    const file = initialPasswordPath(target.dataDir);
    await fs.mkdir(path.dirname(file), { recursive: true, mode: 0o700 });
    await fs.writeFile(file, "username: admin\npassword: the new server's first password\n", { mode: 0o600 });

    const restored = await runScript("restore", [archive], target.envVars);
    expect(restored.status, restored.stderr).toBe(0);
    expect(restored.stdout).toContain("The first start's password file was removed");
    await expect(fs.access(file)).rejects.toThrow(/ENOENT/);
  }, 180_000);
});
