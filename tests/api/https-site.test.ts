import supertest from "supertest";
import { afterEach, describe, expect, it } from "vitest";
import { ensureAdministrator } from "~/auth/auth.server";
import { createRequestListener } from "../../server/app";
import { createPageCache } from "../../server/page-cache";
import { ADMIN, createTestContext, type TestContext } from "./helpers";

// On an https:// SITE_URL, Secure cookies and HSTS do not depend on req.secure.

let ctx: TestContext | undefined;
afterEach(async () => {
  await ctx?.close();
  ctx = undefined;
});

async function site(siteUrl: string) {
  ctx = await createTestContext({ SITE_URL: siteUrl });
  await ensureAdministrator(ctx.services, ADMIN);
  // The whole listener, with the cached-page responder in front of Express.
  return supertest(createRequestListener(ctx.services, { pageCache: createPageCache() }));
}

const setCookies = (res: supertest.Response) => ([] as string[]).concat(res.headers["set-cookie"] ?? []);

describe("SITE_URL https://", () => {
  it("sets __Host- cookies, Secure and SameSite=Strict, even when the request reached the app over plain HTTP", async () => {
    const api = await site("https://stone.example.nz");
    const res = await api.post("/api/login").send(ADMIN).expect(200);
    const [session, device] = setCookies(res);
    expect(session).toMatch(
      /^__Host-cornerstone_session=[\w-]{43}; Max-Age=2592000; Path=\/; Expires=[^;]+; HttpOnly; Secure; SameSite=Strict$/,
    );
    expect(device).toMatch(
      /^__Host-cornerstone_device=[^;]+; Max-Age=31536000; Path=\/; Expires=[^;]+; HttpOnly; Secure; SameSite=Strict$/,
    );
    expect(session).not.toMatch(/Domain=/i);

    // The session is read from the __Host- cookie only.
    const token = session!.split(";")[0]!.split("=")[1]!;
    await api.get("/api/auth/user").set("Cookie", `__Host-cornerstone_session=${token}`).expect(200);
    await api.get("/api/auth/user").set("Cookie", `cornerstone_session=${token}`).expect(401);
    const logout = await api.post("/api/logout").set("Cookie", `__Host-cornerstone_session=${token}`).expect(204);
    expect(setCookies(logout)[0]).toMatch(
      /^__Host-cornerstone_session=; Path=\/; Expires=Thu, 01 Jan 1970 [^;]+; HttpOnly; Secure; SameSite=Strict$/,
    );
  });

  it("reads the first usable __Host- session cookie when a browser sends the name twice", async () => {
    const api = await site("https://stone.example.nz");
    const res = await api.post("/api/login").send(ADMIN).expect(200);
    const token = setCookies(res)[0]!.split(";")[0]!.split("=")[1]!;
    const name = "__Host-cornerstone_session";
    // The first copy counts: a later one never stands in for it.
    await api.get("/api/auth/user").set("Cookie", `${name}=${token}; ${name}=not-a-session`).expect(200);
    await api.get("/api/auth/user").set("Cookie", `${name}=not-a-session; ${name}=${token}`).expect(401);
    // A malformed or empty copy is skipped, so it does not sign the owner out.
    await api.get("/api/auth/user").set("Cookie", `${name}=%E0%A4%A; ${name}=${token}`).expect(200);
    await api.get("/api/auth/user").set("Cookie", `${name}=; ${name}=${token}`).expect(200);
    await api.get("/api/auth/user").set("Cookie", `${name}=%E0%A4%A`).expect(401);
  });

  it("sends HSTS on every response: API, errors, health check, and copies from the page cache", async () => {
    const api = await site("https://stone.example.nz");
    const first = await api.get("/api/content/hero.title").expect(200);
    const cached = await api.get("/api/content/hero.title").expect(200);
    expect(first.headers["x-cache"], "rendered").toBeUndefined();
    expect(cached.headers["x-cache"], "answered by the cached-page responder").toBe("hit");
    const notModified = await api
      .get("/api/content/hero.title")
      .set("If-None-Match", cached.headers["etag"]!)
      .expect(304);
    const answers = {
      first,
      cached,
      notModified,
      health: await api.get("/healthz"),
      notFound: await api.get("/api/nothing-here").expect(404),
    };
    for (const [name, res] of Object.entries(answers)) {
      expect(res.headers["strict-transport-security"], name).toBe("max-age=31536000; includeSubDomains");
    }
  });
});

describe("SITE_URL http:// (the control)", () => {
  it("sends no HSTS over plain HTTP and plain-named cookies without Secure", async () => {
    const api = await site("http://localhost:3000");
    const res = await api.post("/api/login").send(ADMIN).expect(200);
    for (const cookie of setCookies(res)) {
      expect(cookie).toMatch(/^cornerstone_(session|device)=/);
      expect(cookie).not.toMatch(/Secure/);
      expect(cookie).toMatch(/SameSite=Strict/);
    }
    await api.get("/api/content/hero.title").expect(200);
    const cached = await api.get("/api/content/hero.title").expect(200);
    expect(cached.headers["x-cache"], "answered by the cached-page responder").toBe("hit");
    expect(cached.headers["strict-transport-security"]).toBeUndefined();
    expect(res.headers["strict-transport-security"]).toBeUndefined();
  });
});
