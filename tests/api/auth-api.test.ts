import { afterEach, beforeEach, describe, expect, it } from "vitest";
import type supertest from "supertest";
import { SESSION_COOKIE, createSession, ensureAdministrator, setAdministratorCredentials } from "~/auth/auth.server";
import { ADMIN, createAdminContext, createTestContext, type AdminContext } from "./helpers";

let ctx: AdminContext;
beforeEach(async () => {
  ctx = await createAdminContext();
});
afterEach(async () => {
  await ctx.close();
});

function sessionCookie(res: supertest.Response): string {
  const cookies = ([] as string[]).concat(res.headers["set-cookie"] ?? []);
  return cookies.find((c) => c.startsWith(`${SESSION_COOKIE}=`)) ?? "";
}

describe("POST /api/login", () => {
  it("answers 200 with the user and sets an httpOnly, SameSite=Strict, Path=/ session cookie", async () => {
    const res = await ctx.api.post("/api/login").send(ADMIN).expect(200);
    expect(res.body).toEqual({ id: expect.any(String), username: ADMIN.username });
    expect(JSON.stringify(res.body)).not.toContain("password");
    const cookie = sessionCookie(res);
    expect(cookie).toMatch(/HttpOnly/);
    expect(cookie).toMatch(/SameSite=Strict/);
    expect(cookie).toMatch(/Path=\//);
    expect(cookie).toMatch(/Max-Age=2592000/);
    expect(cookie).not.toMatch(/Secure/);
  });

  it("stores only the token's hash, and a new token at every sign-in", async () => {
    const first = sessionCookie(await ctx.api.post("/api/login").send(ADMIN));
    const second = sessionCookie(await ctx.api.post("/api/login").send(ADMIN));
    const token = (c: string) => decodeURIComponent(c.split(";")[0]!.split("=")[1]!);
    expect(token(first)).not.toBe(token(second));
    expect(Buffer.from(token(first), "base64url")).toHaveLength(32);
    const ids = (await ctx.services.db.selectFrom("sessions").select("id").execute()).map((r) => r.id);
    expect(ids).not.toContain(token(first));
    expect(ids.every((id) => /^[0-9a-f]{64}$/.test(id))).toBe(true);
  });

  it("marks the cookie Secure when the request came over HTTPS through a trusted proxy", async () => {
    const proxied = await createTestContext({
      TRUST_PROXY: "loopback",
      ADMIN_PASSWORD: ADMIN.password,
      ADMIN_USERNAME: ADMIN.username,
    });
    try {
      await ensureAdministrator(proxied.services, ADMIN);
      const res = await proxied.api.post("/api/login").set("X-Forwarded-Proto", "https").send(ADMIN).expect(200);
      expect(sessionCookie(res)).toMatch(/Secure/);
    } finally {
      await proxied.close();
    }
  });

  it("answers 400 with the form's messages when fields are missing", async () => {
    const res = await ctx.api.post("/api/login").send({ username: "", password: "" }).expect(400);
    expect(res.body.errors).toEqual({ username: "Username is required", password: "Password is required" });
  });

  it("answers a wrong password and an unknown username the same way", async () => {
    const wrong = await ctx.api
      .post("/api/login")
      .send({ username: ADMIN.username, password: "nope nope" })
      .expect(401);
    const unknown = await ctx.api.post("/api/login").send({ username: "nobody", password: "nope nope" }).expect(401);
    expect(wrong.body).toEqual({ message: "Invalid username or password" });
    expect(unknown.body).toEqual(wrong.body);
    expect(sessionCookie(wrong)).toBe("");
  });

  it("pays for a full password check even when the username is unknown (verifications counted)", async () => {
    const meter = ctx.services.signIn.meter;
    const before = meter.verifications;
    await ctx.api.post("/api/login").send({ username: ADMIN.username, password: "wrong password" }).expect(401);
    expect(meter.verifications).toBe(before + 1);
    await ctx.api.post("/api/login").send({ username: "nobody", password: "wrong password" }).expect(401);
    expect(meter.verifications).toBe(before + 2);
  });

  it("throttles: after 5 failures from one address, 429 with Retry-After, without checking the password", async () => {
    for (let i = 0; i < 5; i++) {
      await ctx.api.post("/api/login").send({ username: ADMIN.username, password: "wrong password" }).expect(401);
    }
    const verifications = ctx.services.signIn.meter.verifications;
    const blocked = await ctx.api.post("/api/login").send(ADMIN).expect(429);
    expect(Number(blocked.headers["retry-after"])).toBeGreaterThan(14 * 60);
    expect(blocked.body).toEqual({
      message:
        "Too many failed sign-in attempts. Please try again later. Whoever runs the site can clear this with: npm run admin:password",
    });
    expect(sessionCookie(blocked)).toBe("");
    expect(ctx.services.signIn.meter.verifications).toBe(verifications);
  });

  it("a success clears the failure count", async () => {
    for (let i = 0; i < 4; i++) {
      await ctx.api.post("/api/login").send({ username: ADMIN.username, password: "wrong password" }).expect(401);
    }
    await ctx.api.post("/api/login").send(ADMIN).expect(200);
    for (let i = 0; i < 4; i++) {
      await ctx.api.post("/api/login").send({ username: ADMIN.username, password: "wrong password" }).expect(401);
    }
    await ctx.api.post("/api/login").send(ADMIN).expect(200);
  });
});

describe("GET /api/auth/user", () => {
  it("answers 401 JSON when not signed in", async () => {
    const res = await ctx.api.get("/api/auth/user").expect(401);
    expect(res.body).toEqual({ message: "Unauthorized" });
  });

  it("answers 200 with {id, username} when signed in", async () => {
    const res = await ctx.admin.get("/api/auth/user").expect(200);
    expect(res.body).toEqual({ id: expect.any(String), username: ADMIN.username });
  });

  it("rejects an expired session", async () => {
    const user = await ctx.services.db.selectFrom("users").select("id").executeTakeFirstOrThrow();
    const { token } = await createSession(ctx.services, user.id, new Date(Date.now() - 31 * 24 * 60 * 60 * 1000));
    await ctx.api.get("/api/auth/user").set("Cookie", `${SESSION_COOKIE}=${token}`).expect(401);
    const fresh = await createSession(ctx.services, user.id);
    await ctx.api.get("/api/auth/user").set("Cookie", `${SESSION_COOKIE}=${fresh.token}`).expect(200);
  });

  it("signs everyone out when the password changes", async () => {
    await setAdministratorCredentials(ctx.services, { password: "another long password" });
    await ctx.admin.get("/api/auth/user").expect(401);
  });
});

describe("POST /api/logout", () => {
  it("answers 204, deletes the session row and clears the cookie; repeating is safe", async () => {
    expect(await ctx.services.db.selectFrom("sessions").selectAll().execute()).toHaveLength(1);
    const res = await ctx.admin.post("/api/logout").expect(204);
    expect(sessionCookie(res)).toMatch(/Expires=Thu, 01 Jan 1970/);
    expect(await ctx.services.db.selectFrom("sessions").selectAll().execute()).toHaveLength(0);
    await ctx.admin.get("/api/auth/user").expect(401);
    await ctx.admin.post("/api/logout").expect(204);
    await ctx.api.post("/api/logout").expect(204);
  });
});

describe("cross-site protection", () => {
  it("refuses a state-changing request from another origin with 403", async () => {
    const res = await ctx.api.post("/api/login").set("Origin", "https://evil.example").send(ADMIN).expect(403);
    expect(res.body).toEqual({ message: "Cross-site requests are not allowed" });
    await ctx.admin
      .put("/api/admin/content/hero.title")
      .set("Origin", "https://evil.example")
      .send({ content: "x" })
      .expect(403);
    await ctx.api.post("/api/contact").set("Origin", "null").send({}).expect(403);
  });

  it("uses Sec-Fetch-Site when there is no Origin", async () => {
    await ctx.admin.post("/api/logout").set("Sec-Fetch-Site", "cross-site").expect(403);
    await ctx.admin.post("/api/logout").set("Sec-Fetch-Site", "same-site").expect(403);
    await ctx.admin
      .put("/api/admin/content/hero.title")
      .set("Sec-Fetch-Site", "same-origin")
      .send({ content: "ok text" })
      .expect(200);
  });

  it("accepts the site's own origin, and leaves GET alone", async () => {
    await ctx.api.post("/api/login").set("Origin", "http://localhost:3000").send(ADMIN).expect(200);
    const host = await ctx.api.get("/api/content/hero.title").set("Origin", "https://evil.example").expect(200);
    expect(host.body.key).toBe("hero.title");
  });
});
