import { createHash } from "node:crypto";
import { data } from "react-router";
import { afterEach, describe, expect, it } from "vitest";
import { saveContent } from "~/content/content.server";
import { startFakeSite, gate, type FakeSite } from "../tests/support/fake-site";

let site: FakeSite | undefined;
afterEach(async () => {
  await site?.close();
  site = undefined;
});

const nonceOf = (csp: string | string[] | undefined) => /'nonce-([^']+)'/.exec(String(csp ?? ""))?.[1];
const sha = (text: string) => `'sha256-${createHash("sha256").update(text, "utf8").digest("base64")}'`;

/** A page that counts its renders. */
function countingPage(extra: { onRender?: () => Promise<void> | void } = {}) {
  const state = { renders: 0 };
  return {
    state,
    page: {
      loader: async () => {
        state.renders += 1;
        await extra.onRender?.();
        return { render: state.renders };
      },
    },
  };
}

describe("the cached-page responder (through createRequestListener)", () => {
  it("serves the second GET from memory: same bytes and ETag, a fresh nonce, the inline script allowed by its hash", async () => {
    const { state, page } = countingPage();
    site = await startFakeSite(page);
    const first = await site.request("GET", "/");
    const second = await site.request("GET", "/");
    expect([first.status, second.status]).toEqual([200, 200]);
    expect(state.renders).toBe(1);
    expect([first.headers["x-cache"], second.headers["x-cache"]]).toEqual([undefined, "hit"]);
    expect(second.body).toBe(first.body);
    expect(second.headers.etag).toBe(first.headers.etag);
    expect(nonceOf(second.headers["content-security-policy"])).not.toBe(
      nonceOf(first.headers["content-security-policy"]),
    );
    expect(second.headers["content-security-policy"]).toContain(sha("window.__page = 1;"));
    expect(second.headers["cache-control"]).toBe("no-cache");
  });

  it("gives every cached copy a nonce of its own, never one shared by several copies", async () => {
    const { state, page } = countingPage();
    site = await startFakeSite(page);
    const first = await site.request("GET", "/");
    const copies = [];
    for (let i = 0; i < 5; i++) copies.push(await site.request("GET", "/"));
    expect(state.renders).toBe(1);
    expect(copies.map((copy) => copy.headers["x-cache"])).toEqual(["hit", "hit", "hit", "hit", "hit"]);
    const nonces = [first, ...copies].map((res) => nonceOf(res.headers["content-security-policy"]));
    for (const nonce of nonces) expect(nonce).toMatch(/^[A-Za-z0-9+/]{22}==$/);
    expect(new Set(nonces).size).toBe(6);
  });

  it("sends the copy Accept-Encoding allows, never one in a coding it gives q=0", async () => {
    const { page } = countingPage();
    site = await startFakeSite(page);
    const plain = (await site.request("GET", "/")).body;
    const sent: Record<string, unknown> = {};
    for (const accept of ["br, gzip", "gzip, br;q=0", "br;q=0, gzip;q=0", "gzip;q=0", "*;q=0, identity", "*"]) {
      const res = await site.request("GET", "/", { "Accept-Encoding": accept });
      const encoding = res.headers["content-encoding"] ?? "none";
      sent[accept] = encoding === "none" ? res.body === plain && encoding : encoding;
    }
    expect(sent).toEqual({
      "br, gzip": "br",
      "gzip, br;q=0": "gzip",
      "br;q=0, gzip;q=0": "none",
      "gzip;q=0": "none",
      "*;q=0, identity": "none",
      "*": "br",
    });
  });

  it("answers If-None-Match with a 304 and no body", async () => {
    const { state, page } = countingPage();
    site = await startFakeSite(page);
    const { headers } = await site.request("GET", "/stonework");
    const revalidated = await site.request("GET", "/stonework", { "If-None-Match": headers.etag! });
    expect(revalidated.status).toBe(304);
    expect(revalidated.body).toBe("");
    expect(revalidated.headers.etag).toBe(headers.etag);
    expect(nonceOf(revalidated.headers["content-security-policy"])).toBeTruthy();
    const changed = await site.request("GET", "/stonework", { "If-None-Match": '"another"' });
    expect(changed.status).toBe(200);
    expect(state.renders).toBe(1);
  });

  it("answers HEAD from the cache with the headers and length of the page, and no body", async () => {
    const { state, page } = countingPage();
    site = await startFakeSite(page);
    const get = await site.request("GET", "/contact");
    const head = await site.request("HEAD", "/contact");
    expect(head.status).toBe(200);
    expect(head.body).toBe("");
    expect(head.headers["content-length"]).toBe(String(Buffer.byteLength(get.body, "latin1")));
    expect(head.headers.etag).toBe(get.headers.etag);
    expect(state.renders).toBe(1);
  });

  it("does not store the empty answer to a HEAD that missed the cache", async () => {
    const { state, page } = countingPage();
    site = await startFakeSite(page);
    const head = await site.request("HEAD", "/landscaping");
    expect([head.status, head.body]).toEqual([200, ""]);
    const get = await site.request("GET", "/landscaping");
    expect(get.body).toContain("<main>");
    expect(state.renders).toBe(2);
  });

  it("ignores X-Forwarded-Proto from a client that is not a trusted proxy, on the cached path too", async () => {
    const { page } = countingPage();
    site = await startFakeSite(page, { TRUST_PROXY: "false" });
    await site.request("GET", "/");
    const cached = await site.request("GET", "/", { "X-Forwarded-Proto": "https" });
    expect(cached.headers["x-cache"], "answered by the cached-page responder").toBe("hit");
    expect(cached.headers["strict-transport-security"]).toBeUndefined();
  });

  it("honours X-Forwarded-Proto from a trusted proxy on the cached path", async () => {
    const { state, page } = countingPage();
    site = await startFakeSite(page, { TRUST_PROXY: "loopback" });
    await site.request("GET", "/");
    const cached = await site.request("GET", "/", { "X-Forwarded-Proto": "https" });
    expect(state.renders).toBe(1);
    expect(cached.headers["strict-transport-security"]).toMatch(/max-age=31536000/);
    const plain = await site.request("GET", "/");
    expect(plain.headers["strict-transport-security"]).toBeUndefined();
  });

  it("sends a render that a write overtook, but does not store it", async () => {
    const held = gate();
    let hold = true;
    const { state, page } = countingPage({ onRender: () => (hold ? held.opened : undefined) });
    site = await startFakeSite(page);
    const pending = site.request("GET", "/");
    await expect.poll(() => state.renders).toBe(1);
    // The owner saves while the page is rendering: what it read may be stale.
    await saveContent(site.services, "hero.title", "A newer headline");
    hold = false;
    held.open();
    expect((await pending).status).toBe(200);
    expect(site.pageCache.size).toBe(0);
    await site.request("GET", "/");
    expect(state.renders).toBe(2);
    await site.request("GET", "/");
    expect(state.renders).toBe(2);
  });

  it("never stores a response that sets a cookie, and never hands its cookie to another visitor", async () => {
    let renders = 0;
    site = await startFakeSite({
      loader: () => ({ render: ++renders }),
      html: ({ headers, nonce }) => {
        if (renders === 1) headers.append("Set-Cookie", "visitor=first; Path=/; HttpOnly");
        return `<html><body><script nonce="${nonce}">1</script></body></html>`;
      },
    });
    const first = await site.request("GET", "/");
    expect(first.headers["set-cookie"]).toEqual(["visitor=first; Path=/; HttpOnly"]);
    expect(site.pageCache.size).toBe(0);
    const second = await site.request("GET", "/");
    expect(second.headers["set-cookie"]).toBeUndefined();
    const third = await site.request("GET", "/");
    expect(third.headers["set-cookie"]).toBeUndefined();
    expect(renders).toBe(2);
  });

  it("never stores a render that fell back because the database failed", async () => {
    let failing = true;
    let renders = 0;
    site = await startFakeSite({
      loader: ({ context }) => {
        renders += 1;
        if (failing) context.markDegraded();
        return { fallback: failing };
      },
    });
    const degraded = await site.request("GET", "/");
    expect(degraded.status).toBe(200);
    expect(degraded.body).toContain('"fallback":true');
    expect(degraded.headers["cache-control"]).toBe("no-store");
    expect(site.pageCache.size).toBe(0);
    failing = false;
    const recovered = await site.request("GET", "/");
    expect(recovered.body).toContain('"fallback":false');
    expect((await site.request("GET", "/")).body).toContain('"fallback":false');
    expect(renders).toBe(2);
  });

  it("never stores client-navigation data that fell back either", async () => {
    let renders = 0;
    site = await startFakeSite({
      loader: ({ context }) => {
        renders += 1;
        context.markDegraded();
        return { fallback: true };
      },
    });
    expect((await site.request("GET", "/stonework.data")).status).toBe(200);
    expect((await site.request("GET", "/stonework.data")).status).toBe(200);
    expect(renders).toBe(2);
    expect(site.pageCache.size).toBe(0);
  });
});

/** The stand-in build's catch-all route as the not-found page: status 404, counting its renders. */
async function notFoundSite() {
  const state = { renders: 0 };
  site = await startFakeSite({
    loader: () => {
      state.renders += 1;
      return data({ notFound: true }, { status: 404 });
    },
  });
  return { site, state };
}

describe("the not-found page", () => {
  it("is rendered once and served to every junk URL as a 404, each under a fresh nonce, its script allowed by hash", async () => {
    const { site, state } = await notFoundSite();
    const answers = [];
    for (let i = 0; i < 5; i++) answers.push(await site.request("GET", `/junk-${i}-${"x".repeat(4000)}`));
    expect(answers.map((res) => res.status)).toEqual([404, 404, 404, 404, 404]);
    expect(state.renders).toBe(1);
    expect(new Set(answers.map((res) => res.body)).size).toBe(1);
    expect(answers[0]!.body).toContain('"notFound":true');
    const nonces = answers.map((res) => nonceOf(res.headers["content-security-policy"]));
    expect(new Set(nonces).size).toBe(5);
    for (const res of answers.slice(1))
      expect(res.headers["content-security-policy"]).toContain(sha("window.__page = 1;"));
    // Never a 304: a 404 is not revalidated.
    const again = await site.request("GET", "/junk-again", { "If-None-Match": answers[1]!.headers.etag! });
    expect(again.status).toBe(404);
    expect(state.renders).toBe(1);
  });

  it("renders afresh with a query string, and for React Router's data requests", async () => {
    const { site, state } = await notFoundSite();
    await site.request("GET", "/nothing");
    await site.request("GET", "/other/deeper");
    expect(state.renders).toBe(1);
    expect(site.pageCache.size).toBe(1);
    await site.request("GET", "/nothing?page=2");
    await site.request("GET", "/nothing.data");
    expect(state.renders).toBe(3);
    expect(site.pageCache.size).toBe(1);
  });

  it("is rendered again after the texts change", async () => {
    const { site, state } = await notFoundSite();
    await site.request("GET", "/a");
    await site.request("GET", "/b");
    expect(state.renders).toBe(1);
    await saveContent(site.services, "hero.title", "A newer headline");
    await site.request("GET", "/c");
    await site.request("GET", "/d");
    expect(state.renders).toBe(2);
  });
});
