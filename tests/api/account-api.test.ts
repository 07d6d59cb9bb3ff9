import fs from "node:fs/promises";
import path from "node:path";
import supertest from "supertest";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { SESSION_COOKIE, verifyCredentials } from "~/auth/auth.server";
import { initialPasswordPath } from "~/auth/initial-admin.server";
import { createManualClock, type ManualClock } from "~/lib/clock";
import { SIGN_IN_LOCKED_MESSAGE } from "../../server/api/auth-routes";
import { ADMIN, createAdminContext, type AdminContext } from "./helpers";

// Sign out everywhere, idle sessions, change the password from the dashboard.

let ctx: AdminContext;
let clock: ManualClock;
beforeEach(async () => {
  clock = createManualClock("2026-06-01T09:00:00.000Z");
  ctx = await createAdminContext({}, { clock });
});
afterEach(async () => {
  await ctx.close();
});

/** Another browser, signed in. */
async function secondBrowser() {
  const agent = supertest.agent(ctx.app);
  await agent.post("/api/login").send(ADMIN).expect(200);
  return agent;
}

const NEW_PASSWORD = "a brand new long password";
const change = (agent: supertest.Agent, body: Record<string, unknown>) => agent.post("/api/admin/password").send(body);

describe("DELETE /api/admin/sessions (sign out everywhere)", () => {
  it("ends every session, this one included, and clears the cookie", async () => {
    const other = await secondBrowser();
    expect(await ctx.services.db.selectFrom("sessions").selectAll().execute()).toHaveLength(2);
    const res = await ctx.admin.delete("/api/admin/sessions").expect(204);
    expect(([] as string[]).concat(res.headers["set-cookie"] ?? []).join()).toMatch(
      new RegExp(`${SESSION_COOKIE}=;.*Expires=Thu, 01 Jan 1970`),
    );
    await ctx.admin.get("/api/auth/user").expect(401);
    await other.get("/api/auth/user").expect(401);
    expect(await ctx.services.db.selectFrom("sessions").selectAll().execute()).toHaveLength(0);
  });

  it("needs a session and a same-origin request", async () => {
    await ctx.api.delete("/api/admin/sessions").expect(401);
    await ctx.admin.delete("/api/admin/sessions").set("Origin", "https://evil.example").expect(403);
    await ctx.admin.get("/api/auth/user").expect(200);
  });
});

describe("idle sessions", () => {
  const DAY = 24 * 60 * 60 * 1000;

  it("end after 14 days without a request; a session in use lasts to its 30 days", async () => {
    const idle = await secondBrowser();
    for (let day = 1; day <= 29; day++) {
      clock.advance(DAY);
      await ctx.admin.get("/api/auth/user").expect(200);
      if (day === 13) await idle.get("/api/auth/user").expect(200);
      if (day === 27) await idle.get("/api/auth/user").expect(401);
    }
    clock.advance(DAY);
    await ctx.admin.get("/api/auth/user").expect(401);
  });
});

describe("POST /api/admin/password", () => {
  it("changes the password, keeps this session, ends every other one and deletes the first-start password file", async () => {
    const file = initialPasswordPath(ctx.dataDir);
    await fs.mkdir(path.dirname(file), { recursive: true });
    await fs.writeFile(file, "password: old\n", { mode: 0o600 });
    const other = await secondBrowser();

    const res = await change(ctx.admin, {
      currentPassword: ADMIN.password,
      newPassword: NEW_PASSWORD,
      confirmPassword: NEW_PASSWORD,
    }).expect(200);
    expect(res.body).toEqual({ message: "Password changed. Every other session was signed out." });

    await ctx.admin.get("/api/auth/user").expect(200);
    await other.get("/api/auth/user").expect(401);
    expect(await verifyCredentials(ctx.services, ADMIN.username, NEW_PASSWORD)).not.toBeNull();
    expect(await verifyCredentials(ctx.services, ADMIN.username, ADMIN.password)).toBeNull();
    await expect(fs.access(file)).rejects.toThrow(/ENOENT/);
  });

  it("asks for the new password twice, with the same minimum length as ADMIN_PASSWORD, and changes nothing otherwise", async () => {
    const short = await change(ctx.admin, {
      currentPassword: ADMIN.password,
      newPassword: "short",
      confirmPassword: "short",
    }).expect(400);
    expect(short.body.errors).toEqual({ newPassword: "The new password must be at least 8 characters" });
    const differ = await change(ctx.admin, {
      currentPassword: ADMIN.password,
      newPassword: NEW_PASSWORD,
      confirmPassword: `${NEW_PASSWORD}!`,
    }).expect(400);
    expect(differ.body.errors).toEqual({ confirmPassword: "The two new passwords differ" });
    const missing = await change(ctx.admin, {}).expect(400);
    expect(Object.keys(missing.body.errors).sort()).toEqual(["confirmPassword", "currentPassword", "newPassword"]);
    expect(await verifyCredentials(ctx.services, ADMIN.username, ADMIN.password)).not.toBeNull();
  });

  it("refuses a wrong current password with a field message (not a 401, which would sign the dashboard out)", async () => {
    const res = await change(ctx.admin, {
      currentPassword: "not it at all",
      newPassword: NEW_PASSWORD,
      confirmPassword: NEW_PASSWORD,
    }).expect(400);
    expect(res.body).toEqual({
      message: "The current password is not right",
      errors: { currentPassword: "The current password is not right" },
    });
    expect(await verifyCredentials(ctx.services, ADMIN.username, ADMIN.password)).not.toBeNull();
    await ctx.admin.get("/api/auth/user").expect(200);
  });

  it("counts against the same sign-in limits: after 5 wrong current passwords, 429 without checking", async () => {
    for (let i = 0; i < 5; i++) {
      await change(ctx.admin, {
        currentPassword: `wrong ${i} guess`,
        newPassword: NEW_PASSWORD,
        confirmPassword: NEW_PASSWORD,
      }).expect(400);
    }
    const before = ctx.services.signIn.meter.verifications;
    const res = await change(ctx.admin, {
      currentPassword: ADMIN.password,
      newPassword: NEW_PASSWORD,
      confirmPassword: NEW_PASSWORD,
    }).expect(429);
    expect(res.body).toEqual({ message: SIGN_IN_LOCKED_MESSAGE });
    expect(ctx.services.signIn.meter.verifications).toBe(before);
    // The failures count for sign-ins too: this browser's limit is used up.
    await ctx.admin.post("/api/login").send(ADMIN).expect(429);
    expect(await verifyCredentials(ctx.services, ADMIN.username, ADMIN.password)).not.toBeNull();
  });

  it("needs a session", async () => {
    await ctx.api
      .post("/api/admin/password")
      .send({ currentPassword: ADMIN.password, newPassword: NEW_PASSWORD, confirmPassword: NEW_PASSWORD })
      .expect(401);
  });
});
