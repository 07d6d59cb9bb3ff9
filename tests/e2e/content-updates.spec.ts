// @phone-only: the owner's flow on the phone; its checks never look at the layout
import { randomUUID } from "node:crypto";
import type { APIRequestContext } from "@playwright/test";
import { signInApi } from "../support/sign-in-api";
import { expect, test, hydrated } from "./fixtures";

async function save(request: APIRequestContext, key: string, content: string) {
  const res = await request.put(`/api/admin/content/${key}`, { data: { content } });
  expect(res.status(), await res.text()).toBe(200);
}

test.describe("a content save is visible at once", () => {
  // Each test writes its own unique text first, so it holds in any order and when repeated.
  test("the server-rendered pages and the content API show new text straight after a save", async ({
    request,
    page,
  }) => {
    const run = randomUUID().slice(0, 8);
    await signInApi(request);
    await save(request, "hero.title", `Headline before ${run}`);
    await save(request, "footer.description", `Footer before ${run}.`);
    // Warm the page cache first, so a stale copy would be served if invalidation failed.
    for (const path of ["/", "/stonework", "/contact", "/api/content/hero.title", "/api/content/hero.title"]) {
      expect((await request.get(path)).status()).toBe(200);
    }
    expect(await (await request.get("/")).text()).toContain(`Headline before ${run}`);
    expect(await (await request.get("/stonework")).text()).toContain(`Footer before ${run}.`);

    await save(request, "hero.title", `Fresh headline ${run}`);
    await save(request, "footer.description", `A fresh footer line ${run}.`);
    expect(await (await request.get("/")).text()).toContain(`Fresh headline ${run}`);
    expect(await (await request.get("/stonework")).text()).toContain(`A fresh footer line ${run}.`);
    expect((await (await request.get("/api/content/hero.title")).json()).content).toBe(`Fresh headline ${run}`);

    await page.goto("/");
    await expect(page.getByRole("heading", { level: 1 })).toHaveText(`Fresh headline ${run}`);
    // Client-side navigation data is fresh too.
    await hydrated(page);
    await save(request, "stonework.intro", `A fresh stonework intro ${run}.`);
    await page.getByRole("contentinfo").getByRole("link", { name: "Veneer Installation" }).click();
    await expect(page.getByText(`A fresh stonework intro ${run}.`)).toBeVisible();
  });

  test("a gallery write refreshes the cached pages too", async ({ request }) => {
    await signInApi(request);
    const before = ((await (await request.get("/api/galleries/traditional")).json()) as { id: string }[]).map(
      (image) => image.id,
    );
    // Warm the cache: the page and the API read, each twice.
    for (let i = 0; i < 2; i++) {
      expect((await request.get("/stonework")).status()).toBe(200);
      expect(
        ((await (await request.get("/api/galleries/traditional")).json()) as { id: string }[]).map((image) => image.id),
      ).toEqual(before);
    }
    const { uploadURL } = await (await request.post("/api/objects/upload")).json();
    const { makeImage } = await import("../fixtures/images");
    const put = await request.put(uploadURL, {
      data: await makeImage("jpeg", { width: 600, height: 400 }),
      headers: { "Content-Type": "image/jpeg" },
    });
    expect(put.status()).toBe(200);
    const added = await request.put("/api/admin/gallery-images", {
      data: { imageURL: uploadURL, galleryType: "traditional", caption: "", sortOrder: String(before.length) },
    });
    expect(added.status()).toBe(201);
    const image = (await added.json()) as { id: string; imagePath: string };
    expect(await (await request.get("/stonework")).text()).toContain(image.imagePath);
    const listed = await (await request.get("/api/galleries/traditional")).json();
    expect(listed.map((item: { id: string }) => item.id)).toEqual([...before, image.id]);
  });
});

test.describe("content is plain text everywhere", () => {
  const SCRIPT = "<script>alert(1)</script>";
  const IMG = "<img src=x onerror=alert(1)>";

  test("stored markup renders as inert text on every page and in the admin API", async ({ page, request }) => {
    await signInApi(request);
    await save(request, "hero.title", SCRIPT);
    await save(request, "hero.subtitle", IMG);
    await save(request, "about.bio", `${SCRIPT}\n\n${IMG}`);
    await save(request, "contact.address", `${IMG}\n${SCRIPT}`);
    await save(request, "footer.description", IMG);

    let alerted = false;
    page.on("dialog", async (dialog) => {
      alerted = true;
      await dialog.dismiss();
    });
    for (const path of ["/", "/contact", "/stonework"]) {
      await page.goto(path);
      await hydrated(page);
      await expect(page.locator("main img[src='x'], footer img[src='x']")).toHaveCount(0);
    }
    await page.goto("/");
    await expect(page.getByRole("heading", { level: 1 })).toHaveText(SCRIPT);
    await expect(page.getByText(IMG).first()).toBeVisible();
    await page.goto("/contact");
    await expect(page.getByRole("region", { name: "Experience & Expertise" }).locator("p")).toHaveText([SCRIPT, IMG]);
    const html = await (await request.get("/")).text();
    expect(html).toContain("&lt;script&gt;alert(1)&lt;/script&gt;");
    expect(html).not.toContain("<img src=x onerror");
    // JSON-LD escapes "<" so it cannot close its script element.
    expect(html).toContain("\\u003cimg src=x onerror=alert(1)>");
    expect(alerted).toBe(false);
  });
});
