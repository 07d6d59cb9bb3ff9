import { afterEach, describe, expect, it } from "vitest";
import { startFakeSite, type FakeSite } from "../../tests/support/fake-site";

let site: FakeSite | undefined;
afterEach(async () => {
  await site?.close();
  site = undefined;
});

/** A page with an action that records what reached it. */
async function siteWithAction() {
  const actions: string[] = [];
  site = await startFakeSite({
    loader: ({ context }) => ({ refused: context.crossSiteRefused }),
    action: async ({ request }) => {
      actions.push(await request.text());
      return { done: true };
    },
    html: ({ data, request }) => `<html><body>${request.method} ${JSON.stringify(data)}</body></html>`,
  });
  return { site, actions };
}

const FORM = { "Content-Type": "application/x-www-form-urlencoded" };

describe("cross-site posts to pages", () => {
  it("a same-origin post reaches the action", async () => {
    const { site, actions } = await siteWithAction();
    const res = await site.request(
      "POST",
      "/contact",
      { ...FORM, Origin: site.origin, Host: new URL(site.origin).host },
      "name=Aroha",
    );
    expect(res.status).toBe(200);
    expect(actions).toEqual(["name=Aroha"]);
  });

  it("a post with neither Origin nor Sec-Fetch-Site (no browser) reaches the action", async () => {
    const { site, actions } = await siteWithAction();
    expect((await site.request("POST", "/contact", FORM, "name=Curl")).status).toBe(200);
    expect(actions).toEqual(["name=Curl"]);
  });

  it.each([
    ["another site's Origin", { Origin: "https://evil.example" }],
    ["Origin: null (a sandboxed frame)", { Origin: "null" }],
    ["Sec-Fetch-Site: cross-site without an Origin", { "Sec-Fetch-Site": "cross-site" }],
    ["Sec-Fetch-Site: same-site without an Origin", { "Sec-Fetch-Site": "same-site" }],
  ])("a post with %s never reaches the action: the page is shown as a 403, marked refused", async (_label, headers) => {
    const { site, actions } = await siteWithAction();
    const res = await site.request("POST", "/contact", { ...FORM, ...headers }, "name=Mallory");
    expect(res.status).toBe(403);
    expect(res.body).toContain('GET {"refused":true}');
    expect(actions).toEqual([]);
    // Never cached: the next visitor sees the page as usual.
    const next = await site.request("GET", "/contact");
    expect([next.status, next.body]).toEqual([200, '<html><body>GET {"refused":false}</body></html>']);
  });

  it("a same-origin Origin wins over a Sec-Fetch-Site that says otherwise (as for the API)", async () => {
    const { site, actions } = await siteWithAction();
    const res = await site.request(
      "POST",
      "/contact",
      { ...FORM, Origin: site.origin, "Sec-Fetch-Site": "cross-site" },
      "name=Aroha",
    );
    expect(res.status).toBe(200);
    expect(actions).toHaveLength(1);
  });
});
