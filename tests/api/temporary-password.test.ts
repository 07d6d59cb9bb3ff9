import { spawn } from "node:child_process";
import fs from "node:fs/promises";
import path from "node:path";
import supertest from "supertest";
import { afterEach, describe, expect, it } from "vitest";
import { initialPasswordPath, prepareAdministrator } from "~/auth/initial-admin.server";
import type { SecuritySummary } from "~/auth/security-summary";
import { parseEnv } from "~/env.server";
import { endStdin } from "../support/run-script";
import { createTestContext, type TestContext } from "./helpers";

// The dashboard asks the owner to change the generated first password,
// for as long as the database says it is unchanged, and stops once it is changed, however.

let ctx: TestContext;
afterEach(async () => {
  await ctx.close();
});

const NEW_PASSWORD = "a brand new long password";

/** Starts the administrator as the server does at start-up, with these extra settings. */
async function prepare(extraEnv: Record<string, string> = {}) {
  await prepareAdministrator({ ...ctx.services, env: parseEnv({ ...ctx.envVars, ...extraEnv }) }, () => {});
}

async function signIn(username: string, password: string) {
  const agent = supertest.agent(ctx.app);
  await agent.post("/api/login").send({ username, password }).expect(200);
  return agent;
}

async function temporaryPassword(agent: supertest.Agent): Promise<boolean> {
  const res = await agent.get("/api/admin/security/summary").expect(200);
  return (res.body as SecuritySummary).temporaryPassword;
}

/** A first start with nobody configured: SQLite generates the password (PostgreSQL never does, decision 0044). */
async function firstStartWithGeneratedPassword() {
  ctx = await createTestContext({}, { database: "sqlite" });
  await prepare();
  const password = /^password: (\S+)$/m.exec(await fs.readFile(initialPasswordPath(ctx.dataDir), "utf8"))![1]!;
  return { password, agent: await signIn("admin", password) };
}

function runPasswordScript(input: string): Promise<number | null> {
  const child = spawn(process.execPath, ["--import", "tsx", "scripts/admin-password.ts"], {
    env: { ...process.env, ...ctx.envVars, LOG_LEVEL: "silent" },
  });
  endStdin(child, input);
  return new Promise((resolve) => child.once("close", resolve));
}

describe("the generated first password", () => {
  it("is reported as temporary until it is changed on the dashboard", async () => {
    const { password, agent } = await firstStartWithGeneratedPassword();
    expect(await temporaryPassword(agent)).toBe(true);

    await agent
      .post("/api/admin/password")
      .send({ currentPassword: password, newPassword: NEW_PASSWORD, confirmPassword: NEW_PASSWORD })
      .expect(200);
    expect(await temporaryPassword(agent)).toBe(false);
  });

  it("stops being temporary when npm run admin:password changes it", async () => {
    const { agent } = await firstStartWithGeneratedPassword();
    expect(await temporaryPassword(agent)).toBe(true);
    expect(await runPasswordScript(`${NEW_PASSWORD}\n`)).toBe(0);
    expect(await temporaryPassword(await signIn("admin", NEW_PASSWORD))).toBe(false);
    // The old session was signed out by the change.
    await agent.get("/api/admin/security/summary").expect(401);
  });

  it("stops being temporary when ADMIN_PASSWORD_RESET sets another, and stays so when it sets the same one", async () => {
    const { password } = await firstStartWithGeneratedPassword();
    await prepare({ ADMIN_USERNAME: "admin", ADMIN_PASSWORD: password, ADMIN_PASSWORD_RESET: "1" });
    // The reset signed every session out (decision 0045), so sign in again.
    expect(await temporaryPassword(await signIn("admin", password))).toBe(true);

    await prepare({ ADMIN_USERNAME: "admin", ADMIN_PASSWORD: NEW_PASSWORD, ADMIN_PASSWORD_RESET: "1" });
    expect(await temporaryPassword(await signIn("admin", NEW_PASSWORD))).toBe(false);
  });

  it("is still temporary after a restart", async () => {
    const { agent } = await firstStartWithGeneratedPassword();
    await prepare();
    expect(await temporaryPassword(agent)).toBe(true);
  });
});

describe("a password that was not generated", () => {
  it("is not temporary when it came from ADMIN_USERNAME and ADMIN_PASSWORD", async () => {
    ctx = await createTestContext({ ADMIN_USERNAME: "owner", ADMIN_PASSWORD: NEW_PASSWORD });
    await prepare();
    expect(await temporaryPassword(await signIn("owner", NEW_PASSWORD))).toBe(false);
  });
});

// Runs on this run's back end, so the flag's queries run on PostgreSQL too.
describe("a site first started before the flag existed", () => {
  async function withInitialPasswordFile(password: string) {
    ctx = await createTestContext({ ADMIN_USERNAME: "admin", ADMIN_PASSWORD: "the generated one, say" });
    await prepare();
    const file = initialPasswordPath(ctx.dataDir);
    await fs.mkdir(path.dirname(file), { recursive: true });
    await fs.writeFile(file, `username: admin\npassword: ${password}\n`, { mode: 0o600 });
  }

  it("gets the flag at the next start while the password file still signs in", async () => {
    await withInitialPasswordFile("the generated one, say");
    const agent = await signIn("admin", "the generated one, say");
    expect(await temporaryPassword(agent)).toBe(false);
    await prepare();
    expect(await temporaryPassword(agent)).toBe(true);
  });

  it("does not get it when the file's password no longer signs in", async () => {
    await withInitialPasswordFile("an old password, changed since");
    await prepare();
    expect(await temporaryPassword(await signIn("admin", "the generated one, say"))).toBe(false);
  });
});
