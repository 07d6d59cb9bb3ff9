import fs from "node:fs/promises";
import path from "node:path";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { ensureAdministrator, verifyCredentials } from "~/auth/auth.server";
import { initialPasswordPath } from "~/auth/initial-admin.server";
import { SIGN_IN_SCOPES } from "~/auth/sign-in.server";
import { runAdminPassword } from "./admin-password-runner";
import { createTestContext, type TestContext } from "./helpers";

// The script runs against this run's back end (SQLite in DATA_DIR, or PostgreSQL and S3).
let ctx: TestContext;
beforeEach(async () => {
  ctx = await createTestContext();
  await ensureAdministrator(ctx.services, { username: "owner", password: "the old password" });
});
afterEach(async () => {
  await ctx.close();
});

const activityKinds = () => ctx.services.db.selectFrom("activity_log").select(["kind", "outcome", "detail"]).execute();

const runScript = (input: string, args: string[] = []) =>
  runAdminPassword({ ...ctx.envVars, LOG_LEVEL: "silent" }, input, args);

describe("npm run admin:password", () => {
  it("sets a new password read from stdin, without echoing it", async () => {
    const result = await runScript("a brand new password\n");
    expect(result.status, result.stderr).toBe(0);
    expect(result.stdout).toContain("The admin password was changed");
    expect(result.stdout).toContain("every sign-in lock-out was cleared");
    expect(result.stdout + result.stderr).not.toContain("a brand new password");
    expect(await verifyCredentials(ctx.services, "owner", "a brand new password")).not.toBeNull();
    expect(await verifyCredentials(ctx.services, "owner", "the old password")).toBeNull();
    // The security log says it happened, and where.
    expect(await activityKinds()).toEqual([
      { kind: "account.password-changed", outcome: "success", detail: '{"via":"server"}' },
    ]);
  });

  it("can rename the administrator too", async () => {
    expect((await runScript("another new password\n", ["--username", "mark"])).status).toBe(0);
    expect(await verifyCredentials(ctx.services, "mark", "another new password")).not.toBeNull();
  });

  it("clears every sign-in lock-out (not the contact form's limit) and deletes the first-start password file", async () => {
    const { db } = ctx.services;
    const window = { window_start: "2026-01-01T00:00:00.000Z", expires_at: "2999-01-01T00:00:00.000Z", count: 99 };
    await db
      .insertInto("rate_limit_counters")
      .values([
        ...SIGN_IN_SCOPES.map((scope) => ({ scope, key: "k", ...window })),
        { scope: "contact", key: "k", ...window },
      ])
      .execute();
    const file = initialPasswordPath(ctx.dataDir);
    await fs.mkdir(path.dirname(file), { recursive: true });
    await fs.writeFile(file, "password: first\n", { mode: 0o600 });

    expect((await runScript("a brand new password\n")).status).toBe(0);
    expect((await db.selectFrom("rate_limit_counters").select("scope").execute()).map((r) => r.scope)).toEqual([
      "contact",
    ]);
    await expect(fs.access(file)).rejects.toThrow(/ENOENT/);
  });

  it("refuses a short password and changes nothing", async () => {
    const result = await runScript("short\n");
    expect(result.status).toBe(1);
    expect(result.stderr).toContain("at least 8 characters");
    expect(await verifyCredentials(ctx.services, "owner", "the old password")).not.toBeNull();
  });
});

describe("npm run admin:password -- --reset-2fa", () => {
  it("turns two-step off, removes every passkey, ends every session and pending step, clears the lock-outs; the password stays", async () => {
    const { db } = ctx.services;
    const user = await db.selectFrom("users").select("id").executeTakeFirstOrThrow();
    const at = "2026-01-01T00:00:00.000Z";
    const later = "2999-01-01T00:00:00.000Z";
    await db
      .insertInto("two_factor")
      .values({ user_id: user.id, secret_encrypted: "v1.x.y.z", enabled_at: at, created_at: at })
      .execute();
    await db.insertInto("recovery_codes").values({ code_hash: "h", user_id: user.id, created_at: at }).execute();
    await db
      .insertInto("passkeys")
      .values({
        id: "cred",
        user_id: user.id,
        name: "Mark's iPhone",
        public_key: "k",
        counter: 0,
        transports: "[]",
        created_at: at,
        last_used_at: null,
      })
      .execute();
    await db
      .insertInto("sessions")
      .values({ id: "s", user_id: user.id, expires_at: later, created_at: at, last_used_at: at })
      .execute();
    await db
      .insertInto("auth_ceremonies")
      .values({
        id: "c",
        kind: "two-step-sign-in",
        challenge: null,
        user_id: user.id,
        created_at: at,
        expires_at: later,
      })
      .execute();
    await db
      .insertInto("rate_limit_counters")
      .values(SIGN_IN_SCOPES.map((scope) => ({ scope, key: "k", window_start: at, expires_at: later, count: 99 })))
      .execute();

    // No password piped in: none is needed.
    const result = await runScript("", ["--reset-2fa"]);
    expect(result.status, result.stderr).toBe(0);
    expect(result.stdout).toContain("Two-step verification is off and 1 passkey(s) were removed");
    for (const table of [
      "two_factor",
      "recovery_codes",
      "passkeys",
      "sessions",
      "auth_ceremonies",
      "rate_limit_counters",
    ] as const) {
      expect(await db.selectFrom(table).selectAll().execute(), table).toEqual([]);
    }
    expect(await verifyCredentials(ctx.services, "owner", "the old password")).not.toBeNull();
    expect(await activityKinds()).toEqual([
      { kind: "two-step.turned-off", outcome: "success", detail: '{"via":"server"}' },
    ]);
  });
});

describe("e-mails from npm run admin:password", () => {
  const MAIL_ON = {
    SMTP_URL: "smtp://127.0.0.1:9",
    MAIL_FROM: "Site <site@example.nz>",
    NOTIFY_EMAIL: "owner@example.nz",
  };
  const securityMails = async () =>
    (
      await ctx.services.db.selectFrom("notification_jobs").select("payload").where("kind", "=", "security").execute()
    ).map((row) => JSON.parse(row.payload) as { kind: string; userAgent: string; passkeyNames?: string[] });

  it("tells the owner of a password set and of a reset on the server, for the running server's outbox to send", async () => {
    const env = { ...ctx.envVars, LOG_LEVEL: "silent", ...MAIL_ON };
    expect((await runAdminPassword(env, "a brand new password\n", [])).status).toBe(0);
    expect(await securityMails()).toEqual([expect.objectContaining({ kind: "password-changed", userAgent: "" })]);

    const { db } = ctx.services;
    const user = await db.selectFrom("users").select("id").executeTakeFirstOrThrow();
    const at = "2026-01-01T00:00:00.000Z";
    await db
      .insertInto("two_factor")
      .values({ user_id: user.id, secret_encrypted: "v1.x.y.z", enabled_at: at, created_at: at })
      .execute();
    await db
      .insertInto("passkeys")
      .values({
        id: "cred",
        user_id: user.id,
        name: "Mark's iPhone",
        public_key: "k",
        counter: 0,
        transports: "[]",
        created_at: at,
        last_used_at: null,
      })
      .execute();
    expect((await runAdminPassword(env, "", ["--reset-2fa"])).status).toBe(0);
    expect((await securityMails()).map((mail) => [mail.kind, mail.passkeyNames])).toEqual([
      ["password-changed", undefined],
      ["two-step-off", undefined],
      ["passkey-removed", ["Mark's iPhone"]],
    ]);
  }, 120_000);
});
