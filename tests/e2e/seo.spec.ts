// @desktop-only: server behaviour, the same at any screen size
import { expect, test } from "./fixtures";
import { nuCheck } from "../support/nu-checker";
import { REVIEWS_AND_TOWNS } from "../support/seed";
import { PUBLIC_PAGE_PATHS } from "~/public-pages";

const PAGES = PUBLIC_PAGE_PATHS;

test.describe("search engines: no images", () => {
  test("every public page has a unique title and description, a canonical URL, Open Graph and Twitter tags", async ({
    page,
    server,
  }) => {
    const titles = new Set<string>();
    const descriptions = new Set<string>();
    for (const path of PAGES) {
      await page.goto(path);
      await expect(page.locator("html")).toHaveAttribute("lang", "en-NZ");
      const title = await page.title();
      const description = await page.locator('meta[name="description"]').getAttribute("content");
      expect(title.length, path).toBeGreaterThan(10);
      expect(description?.length ?? 0, path).toBeGreaterThan(50);
      expect(description!.length, path).toBeLessThanOrEqual(160);
      titles.add(title);
      descriptions.add(description!);
      const url = `${server.url}${path}`;
      await expect(page.locator('link[rel="canonical"]')).toHaveAttribute("href", url);
      await expect(page.locator('meta[property="og:url"]')).toHaveAttribute("content", url);
      await expect(page.locator('meta[property="og:title"]')).toHaveAttribute("content", title);
      await expect(page.locator('meta[property="og:description"]')).toHaveAttribute("content", description!);
      await expect(page.locator('meta[property="og:type"]')).toHaveAttribute("content", "website");
      await expect(page.locator('meta[name="twitter:card"]')).toHaveAttribute("content", "summary");
      await expect(page.locator('meta[property="og:image"]')).toHaveCount(0);
    }
    expect(titles.size).toBe(PAGES.length);
    expect(descriptions.size).toBe(PAGES.length);
  });

  test("the description comes from the page's content", async ({ page }) => {
    await page.goto("/stonework");
    await expect(page.locator('meta[name="description"]')).toHaveAttribute("content", /^Solid stone, laid by hand\./);
  });

  test("JSON-LD describes the business with its contact details and area", async ({ page, server }) => {
    await page.goto("/");
    const json = JSON.parse((await page.locator('script[type="application/ld+json"]').textContent())!);
    expect(json).toMatchObject({
      "@context": "https://schema.org",
      "@type": "HomeAndConstructionBusiness",
      name: "Cornerstone Stonemasonry",
      telephone: "027 555 0184",
      email: "mark@cornerstonestonemasonry.co.nz",
      url: `${server.url}/`,
      // The region, and the towns the built-in texts name, before the owner has changed anything.
      areaServed: [
        { "@type": "AdministrativeArea", name: "Taranaki" },
        ...["New Plymouth", "Waitara", "Inglewood", "Ōakura", "Stratford", "Hāwera"].map((name) => ({
          "@type": "City",
          name,
        })),
      ],
      address: {
        "@type": "PostalAddress",
        streetAddress: "14 Breakwater Road, Moturoa",
        addressLocality: "New Plymouth",
        postalCode: "4310",
        addressRegion: "Taranaki",
        addressCountry: "NZ",
      },
    });
  });

  test("robots.txt keeps crawlers out of /admin and /api and points to the sitemap", async ({ request, server }) => {
    const res = await request.get("/robots.txt");
    expect(res.status()).toBe(200);
    const text = await res.text();
    expect(text).toContain("Disallow: /admin");
    expect(text).toContain("Disallow: /api");
    expect(text).toContain(`Sitemap: ${server.url}/sitemap.xml`);
  });

  test("the sitemap lists the public routes only", async ({ request, server }) => {
    const res = await request.get("/sitemap.xml");
    expect(res.headers()["content-type"]).toMatch(/application\/xml/);
    const locs = [...(await res.text()).matchAll(/<loc>([^<]+)<\/loc>/g)].map((m) => m[1]);
    expect(locs).toEqual(PAGES.map((p) => `${server.url}${p}`));
  });

  test("there is a favicon, app icons and a web manifest", async ({ page, request }) => {
    await page.goto("/");
    for (const selector of [
      'link[rel="icon"][href="/favicon.ico"]',
      'link[rel="icon"][type="image/svg+xml"]',
      'link[rel="apple-touch-icon"]',
      'link[rel="manifest"]',
    ]) {
      const href = await page.locator(selector).getAttribute("href");
      const res = await request.get(href!);
      expect(res.status(), selector).toBe(200);
    }
    const manifest = await (await request.get("/manifest.webmanifest")).json();
    expect(manifest).toMatchObject({ name: "Cornerstone Stonemasonry", start_url: "/", lang: "en-NZ" });
    for (const icon of manifest.icons) expect((await request.get(icon.src)).status(), icon.src).toBe(200);
    expect(manifest.icons.map((i: { sizes: string }) => i.sizes)).toEqual(
      expect.arrayContaining(["192x192", "512x512"]),
    );
  });

  test("the 404 page answers with status 404 and is not indexed", async ({ page }) => {
    const res = await page.goto("/old-page.html");
    expect(res?.status()).toBe(404);
    await expect(page.locator('meta[name="robots"]')).toHaveAttribute("content", "noindex");
  });
});

test.describe("search engines: with images and edited contact details", () => {
  test.use({
    serverSetup: {
      seed: {
        galleries: { homepage: 2 },
        content: { "contact.phone": "06 555 9999", "contact.address": "5 Gill Street\nNew Plymouth 4310" },
      },
    },
  });

  test("Open Graph and Twitter use the first homepage image", async ({ page, request, server }) => {
    const [first] = await (await request.get("/api/galleries/homepage")).json();
    for (const path of PAGES) {
      await page.goto(path);
      await expect(page.locator('meta[property="og:image"]')).toHaveAttribute(
        "content",
        `${server.url}${first.imagePath}`,
      );
      await expect(page.locator('meta[name="twitter:card"]')).toHaveAttribute("content", "summary_large_image");
      await expect(page.locator('meta[name="twitter:image"]')).toHaveAttribute(
        "content",
        `${server.url}${first.imagePath}`,
      );
    }
    expect((await request.get(first.imagePath)).status()).toBe(200);
  });

  test("JSON-LD follows the contact_info content", async ({ page }) => {
    await page.goto("/contact");
    const json = JSON.parse((await page.locator('script[type="application/ld+json"]').textContent())!);
    expect(json.telephone).toBe("06 555 9999");
    expect(json.address).toMatchObject({
      streetAddress: "5 Gill Street",
      addressLocality: "New Plymouth",
      postalCode: "4310",
    });
  });
});

for (const setup of [
  { name: "empty" },
  {
    name: "populated",
    seed: { galleries: { homepage: 2, traditional: 3, veneer: 2, landscaping: 2 }, ...REVIEWS_AND_TOWNS },
  },
]) {
  test.describe(`valid HTML (${setup.name})`, () => {
    test.use({ serverSetup: setup });

    test("the Nu HTML checker finds no error and no warning on any public page or the 404 page", async ({
      request,
    }) => {
      const pages: Record<string, string> = {};
      for (const path of [...PAGES, "/no-such-page"]) pages[path] = await (await request.get(path)).text();
      expect(await nuCheck(pages)).toEqual([]);
    });
  });
}
