import type { APIRequestContext } from "@playwright/test";
import { TEST_ADMIN, expect, test, hydrated } from "./fixtures";

async function signInApi(request: APIRequestContext) {
  const res = await request.post("/api/login", { data: TEST_ADMIN });
  expect(res.status()).toBe(200);
}

async function save(request: APIRequestContext, key: string, content: string) {
  const res = await request.put(`/api/admin/content/${key}`, { data: { content } });
  expect(res.status(), await res.text()).toBe(200);
}

test.describe("a content save is visible at once", () => {
  test("the server-rendered pages and the content API show new text straight after a save", async ({ request, page }) => {
    await signInApi(request);
    // Warm the page cache first, so a stale copy would be served if invalidation failed.
    for (const path of ["/", "/stonework", "/contact", "/api/content/hero.title", "/api/content/hero.title"]) {
      expect((await request.get(path)).status()).toBe(200);
    }
    expect(await (await request.get("/")).text()).toContain("Stonemasonry &amp; Hard Landscaping in Taranaki");

    await save(request, "hero.title", "Fresh headline after a save");
    await save(request, "footer.description", "A fresh footer line.");
    expect(await (await request.get("/")).text()).toContain("Fresh headline after a save");
    expect(await (await request.get("/stonework")).text()).toContain("A fresh footer line.");
    expect((await (await request.get("/api/content/hero.title")).json()).content).toBe("Fresh headline after a save");

    await page.goto("/");
    await expect(page.getByRole("heading", { level: 1 })).toHaveText("Fresh headline after a save");
    // Client-side navigation data is fresh too.
    await hydrated(page);
    await save(request, "stonework.intro", "A fresh stonework intro.");
    await page.getByRole("contentinfo").getByRole("link", { name: "Veneer Installation" }).click();
    await expect(page.getByText("A fresh stonework intro.")).toBeVisible();
  });

  test("a gallery write refreshes the cached pages too", async ({ request }) => {
    await signInApi(request);
    expect(await (await request.get("/stonework")).text()).toContain("No images available in this gallery.");
    for (let i = 0; i < 2; i++) expect(await (await request.get("/api/galleries/traditional")).json()).toEqual([]);
    const { uploadURL } = await (await request.post("/api/objects/upload")).json();
    const { makeImage } = await import("../fixtures/images");
    const put = await request.put(uploadURL, { data: await makeImage("jpeg", { width: 600, height: 400 }), headers: { "Content-Type": "image/jpeg" } });
    expect(put.status()).toBe(200);
    const added = await request.put("/api/admin/gallery-images", { data: { imageURL: uploadURL, galleryType: "traditional", caption: "", sortOrder: "0" } });
    expect(added.status()).toBe(201);
    const html = await (await request.get("/stonework")).text();
    expect(html).toContain((await added.json()).imagePath);
    const listed = await (await request.get("/api/galleries/traditional")).json();
    expect(listed.map((image: { id: string }) => image.id)).toEqual([(await added.json()).id]);
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
