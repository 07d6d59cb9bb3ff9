import { describe, expect, it } from "vitest";
import { isBotUserAgent, isPrefetch, referrerHost, viewedPage } from "./page-views";

describe("viewedPage", () => {
  it("is a public page's document or its client-navigation data, by GET only", () => {
    expect(viewedPage("GET", "/")).toEqual({ path: "/", navigation: "document" });
    expect(viewedPage("GET", "/stonework?utm_source=facebook")).toEqual({ path: "/stonework", navigation: "document" });
    expect(viewedPage("GET", "/landscaping.data")).toEqual({ path: "/landscaping", navigation: "data" });
    expect(viewedPage("GET", "/_root.data")).toEqual({ path: "/", navigation: "data" });
    for (const url of [
      "/admin",
      "/admin.data",
      "/api/content/hero.title",
      "/assets/x.js",
      "/nope",
      "/nope.data",
      "/sitemap.xml",
      "/contact/",
    ]) {
      expect(viewedPage("GET", url), url).toBeNull();
    }
    expect(viewedPage("HEAD", "/")).toBeNull();
    expect(viewedPage("POST", "/contact")).toBeNull();
  });

  it("is a public page a prerender shows, by its beacon (a POST to /api/page-views/shown?path=…)", () => {
    expect(viewedPage("POST", "/api/page-views/shown?path=%2Fstonework")).toEqual({
      path: "/stonework",
      navigation: "prerender-shown",
    });
    expect(viewedPage("POST", "/api/page-views/shown?path=/")).toEqual({ path: "/", navigation: "prerender-shown" });
    for (const url of [
      "/api/page-views/shown",
      "/api/page-views/shown?path=/admin",
      "/api/page-views/shown?path=/nope",
      "/api/page-views/shown?page=/",
    ]) {
      expect(viewedPage("POST", url), url).toBeNull();
    }
    expect(viewedPage("GET", "/api/page-views/shown?path=/")).toBeNull();
  });
});

describe("isBotUserAgent", () => {
  it.each([
    "Mozilla/5.0 (compatible; Googlebot/2.1; +http://www.google.com/bot.html)",
    "Mozilla/5.0 (compatible; bingbot/2.0; +http://www.bing.com/bingbot.htm)",
    "curl/8.5.0",
    "python-requests/2.32.3",
    "Wget/1.21.3",
    "",
    `Mozilla/5.0 ${"x".repeat(600)}`,
  ])("counts %s as a bot", (userAgent) => {
    expect(isBotUserAgent(userAgent)).toBe(true);
  });

  it("counts phone and desktop browsers as people, also once remembered and after the memory is full", () => {
    const iphone =
      "Mozilla/5.0 (iPhone; CPU iPhone OS 17_4 like Mac OS X) AppleWebKit/605.1.15 (KHTML, like Gecko) Version/17.4 Mobile/15E148 Safari/604.1";
    expect(isBotUserAgent(iphone)).toBe(false);
    expect(isBotUserAgent(iphone)).toBe(false);
    for (let i = 0; i < 1500; i++) isBotUserAgent(`RandomAgent/${i}`);
    expect(isBotUserAgent(iphone)).toBe(false);
    expect(isBotUserAgent(undefined)).toBe(true);
  });
});

describe("isPrefetch", () => {
  it("knows the prefetch headers", () => {
    expect(isPrefetch({ "sec-purpose": "prefetch" })).toBe(true);
    expect(isPrefetch({ "sec-purpose": "prefetch;prerender" })).toBe(true);
    expect(isPrefetch({ purpose: "prefetch" })).toBe(true);
    expect(isPrefetch({ "x-moz": "prefetch" })).toBe(true);
    expect(isPrefetch({})).toBe(false);
  });
});

describe("referrerHost", () => {
  const own = ["cornerstone.example.nz", "127.0.0.1"];
  it("keeps only the host, without www., and never this site", () => {
    expect(referrerHost("https://www.google.com/search?q=secret+words", own)).toBe("google.com");
    expect(referrerHost("https://l.facebook.com/l.php?u=x", own)).toBe("l.facebook.com");
    expect(referrerHost("https://User:Pass@Example.ORG:8443/path#frag", own)).toBe("example.org");
    expect(referrerHost("android-app://com.google.android.gm/", own)).toBe("com.google.android.gm");
    expect(referrerHost("https://cornerstone.example.nz/stonework", own)).toBeNull();
    expect(referrerHost("http://127.0.0.1:3000/", own)).toBeNull();
  });

  it("refuses anything that is not a plain host name", () => {
    for (const value of [
      undefined,
      "",
      "not a url",
      "https://",
      "https://[::1]/",
      "https://exa mple.com/",
      "javascript:alert(1)",
      `https://${"a".repeat(300)}.com/`,
    ]) {
      expect(referrerHost(value, own), String(value)).toBeNull();
    }
  });
});
