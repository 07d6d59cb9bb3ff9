import { expect, test } from "./fixtures";

/**
 * The first photo of /stonework (a phone's largest paint) is fetched at
 * once, with high priority, preloaded from the head, and a phone downloads the smallest variant at
 * least as wide as the photo's rendered width × its pixel ratio: never a larger one.
 */

type Variant = { path: string; width: number };
type ApiImage = { imagePath: string; variants: { avif: Variant[]; webp: Variant[]; jpeg: Variant } };

// Photos as wide as a phone camera's (down-scaled): variants of 480, 800, 1200 and 1600 px.
test.use({
  serverSetup: { seed: { galleries: { traditional: 2, landscaping: 1 }, gallerySize: { width: 1800, height: 1200 } } },
});

const PHONES = [
  // 390 − 2 × 16 px padding = 358 px wide, × 3 = 1074 px: the 1200 variant.
  { width: 390, deviceScaleFactor: 3, expected: 1200 },
  // 412 − 32 = 380 px, × 1.75 = 665 px: the 800 variant.
  { width: 412, deviceScaleFactor: 1.75, expected: 800 },
];

for (const phone of PHONES) {
  test(`a ${phone.width} px phone at DPR ${phone.deviceScaleFactor} downloads the ${phone.expected} px variant of /stonework's first photo, and no other`, async ({
    browser,
    server,
    request,
  }) => {
    const [first] = (await (await request.get("/api/galleries/traditional")).json()) as ApiImage[];
    expect(first!.variants.avif.map((v) => v.width)).toEqual([480, 800, 1200, 1600]);
    const context = await browser.newContext({
      baseURL: server.url,
      viewport: { width: phone.width, height: 844 },
      deviceScaleFactor: phone.deviceScaleFactor,
      isMobile: true,
      hasTouch: true,
    });
    const page = await context.newPage();
    const fetched: string[] = [];
    page.on("request", (r) => fetched.push(new URL(r.url()).pathname));
    await page.goto("/stonework");

    const img = page.getByRole("region", { name: "Traditional Stonework" }).locator("img").first();
    await expect(img).toHaveAttribute("fetchpriority", "high");
    await expect(img).toHaveAttribute("loading", "eager");
    const sizes =
      "(min-width: 1280px) 395px, (min-width: 1024px) calc((100vw - 96px) / 3), (min-width: 640px) calc((100vw - 64px) / 2), calc(100vw - 32px)";
    await expect(
      page.getByRole("region", { name: "Traditional Stonework" }).locator("source[type='image/avif']").first(),
    ).toHaveAttribute("sizes", sizes);
    const preload = page.locator('head link[rel="preload"][as="image"][fetchpriority="high"]');
    await expect(preload).toHaveCount(1);
    await expect(preload).toHaveAttribute("imagesizes", sizes);
    expect(await preload.getAttribute("imagesrcset")).toBe(
      first!.variants.avif.map((v) => `${v.path} ${v.width}w`).join(", "),
    );

    const expected = first!.variants.avif.find((v) => v.width === phone.expected)!.path;
    await expect
      .poll(() => img.evaluate((element: HTMLImageElement) => element.complete && element.currentSrc))
      .toContain(expected);
    const rendered = await img.evaluate((element) => element.getBoundingClientRect().width);
    expect(rendered).toBe(phone.width - 32);
    const ofFirst = [...first!.variants.avif, ...first!.variants.webp, first!.variants.jpeg].map((v) => v.path);
    expect(fetched.filter((path) => ofFirst.includes(path) || path === first!.imagePath)).toEqual([expected]);
    await context.close();
  });
}
