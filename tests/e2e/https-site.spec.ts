// @desktop-only: server behaviour, the same at any screen size
import { TEST_ADMIN, expect, test } from "./fixtures";

// With an https:// SITE_URL (a TLS proxy in front), HSTS and Secure cookies do not
// depend on the proxy saying X-Forwarded-Proto: https. Requests here reach the app over plain HTTP.
test.use({ serverSetup: { env: { SITE_URL: "https://stone.example.nz" } } });

const HSTS = "max-age=31536000; includeSubDomains";

test.describe("an https:// site", () => {
  test("sends HSTS on rendered pages, their cached copies, copies of a shared render, the admin and the API", async ({
    request,
  }) => {
    const rendered = await request.get("/stonework?first=1");
    const cachedFirst = await request.get("/landscaping");
    const cached = await request.get("/landscaping");
    expect(cached.headers()["x-cache"], "served from the page cache").toBe("hit");
    const together = await Promise.all(Array.from({ length: 6 }, () => request.get("/")));
    const others = [
      await request.get("/admin"),
      await request.get("/api/content/hero.title"),
      await request.get("/healthz"),
    ];
    for (const res of [rendered, cachedFirst, cached, ...together, ...others]) {
      expect(res.status(), res.url()).toBeLessThan(400);
      expect(res.headers()["strict-transport-security"], res.url()).toBe(HSTS);
    }
  });

  test("sets the session and device cookies as __Host-, Secure, SameSite=Strict", async ({ request }) => {
    const res = await request.post("/api/login", { data: TEST_ADMIN });
    expect(res.status()).toBe(200);
    const cookies = res
      .headersArray()
      .filter((h) => h.name.toLowerCase() === "set-cookie")
      .map((h) => h.value);
    expect(cookies).toHaveLength(2);
    expect(cookies[0]).toMatch(
      /^__Host-cornerstone_session=[^;]+; Max-Age=2592000; Path=\/; Expires=[^;]+; HttpOnly; Secure; SameSite=Strict$/,
    );
    expect(cookies[1]).toMatch(
      /^__Host-cornerstone_device=[^;]+; Max-Age=31536000; Path=\/; Expires=[^;]+; HttpOnly; Secure; SameSite=Strict$/,
    );
  });
});
