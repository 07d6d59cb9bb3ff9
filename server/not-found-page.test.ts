import { createHash } from "node:crypto";
import { data } from "react-router";
import { afterEach, describe, expect, it } from "vitest";
import { saveContent } from "~/content/content.server";
import { startFakeSite, type FakeSite } from "../tests/support/fake-site";

let site: FakeSite | undefined;
afterEach(async () => {
  await site?.close();
  site = undefined;
});

const nonceOf = (csp: string | string[] | undefined) => /'nonce-([^']+)'/.exec(String(csp ?? ""))?.[1];
const sha = (text: string) => `'sha256-${createHash("sha256").update(text, "utf8").digest("base64")}'`;

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

describe("the not-found page (issue 17 §6)", () => {
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
    for (const res of answers.slice(1)) expect(res.headers["content-security-policy"]).toContain(sha("window.__page = 1;"));
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
