// @phone-only: it sets its own phone-sized screen
import type { Page } from "@playwright/test";
import { expect, test } from "./fixtures";

/**
 * The page's largest photo loads alone: every other photo starts only once it has loaded
 * (app/islands/page-script.ts). Without JavaScript they load as before, and the largest
 * photo never waits for a script. Each test holds the largest photo's response until it has seen
 * what the page does meanwhile, so nothing here depends on timing.
 */

test.use({
  viewport: { width: 390, height: 844 },
  serverSetup: { seed: { galleries: { homepage: 2, traditional: 3, landscaping: 1 } } },
});
// The first test of each project also starts its server and processes the seeded photos.
test.describe.configure({ timeout: 120_000 });

type Variant = { path: string };
type ApiImage = { imagePath: string; variants: { avif: Variant[]; webp: Variant[]; jpeg: Variant } };

const pathsOf = (image: ApiImage) =>
  new Set([
    image.imagePath,
    ...[...image.variants.avif, ...image.variants.webp, image.variants.jpeg].map((v) => v.path),
  ]);

/** Media requests in the order the browser made and finished them; the largest photo's held until `release()`. */
async function watchPhotos(page: Page, largest: Set<string>) {
  const events: { kind: "request" | "finished"; largest: boolean; path: string }[] = [];
  const isPhoto = (url: string) => new URL(url).pathname.startsWith("/media/");
  page.on("request", (request) => {
    if (isPhoto(request.url()))
      events.push({
        kind: "request",
        largest: largest.has(new URL(request.url()).pathname),
        path: new URL(request.url()).pathname,
      });
  });
  page.on("requestfinished", (request) => {
    if (isPhoto(request.url()))
      events.push({
        kind: "finished",
        largest: largest.has(new URL(request.url()).pathname),
        path: new URL(request.url()).pathname,
      });
  });
  let release!: () => void;
  const held = new Promise<void>((resolve) => (release = resolve));
  await page.route(
    (url) => largest.has(url.pathname),
    async (route) => {
      await held;
      await route.continue();
    },
  );
  return {
    events,
    release,
    otherRequests: () => events.filter((event) => event.kind === "request" && !event.largest),
    largestRequested: () => events.some((event) => event.kind === "request" && event.largest),
  };
}

/** Two animation frames: layout has run, and a lazy image near the screen would have been requested. */
const twoFrames = (page: Page) =>
  page.evaluate(
    () => new Promise<void>((resolve) => requestAnimationFrame(() => requestAnimationFrame(() => resolve()))),
  );

test("on /, the service cards' photos start only once the hero's photo has loaded", async ({ page, request }) => {
  const [hero] = (await (await request.get("/api/galleries/homepage")).json()) as ApiImage[];
  const photos = await watchPhotos(page, pathsOf(hero!));
  await page.goto("/", { waitUntil: "domcontentloaded" });
  await expect.poll(photos.largestRequested).toBe(true);
  const cards = page.getByRole("region", { name: "What We Build" }).locator("img");
  await expect(cards).toHaveCount(2);
  await twoFrames(page);
  expect(photos.otherRequests()).toEqual([]);
  await expect(page.locator("html")).toHaveAttribute("data-photos-wait", "");
  await expect(cards.first()).toHaveCSS("display", "none");

  photos.release();
  await expect.poll(() => photos.otherRequests().length).toBeGreaterThanOrEqual(2);
  await expect(page.locator("html")).not.toHaveAttribute("data-photos-wait");
  await expect(cards.first()).toHaveCSS("display", "block");
  // Every other photo was requested after the largest one had finished.
  const largestDone = photos.events.findIndex((event) => event.kind === "finished" && event.largest);
  const firstOther = photos.events.findIndex((event) => event.kind === "request" && !event.largest);
  expect(largestDone).toBeGreaterThanOrEqual(0);
  expect(firstOther).toBeGreaterThan(largestDone);
  await expect
    .poll(() =>
      cards.evaluateAll((imgs) =>
        imgs.every((img) => (img as HTMLImageElement).complete && (img as HTMLImageElement).naturalWidth > 0),
      ),
    )
    .toBe(true);
});

test("the favicon and the web manifest wait for the hero's photo too: in the head only once it has loaded", async ({
  page,
  request,
}) => {
  const [hero] = (await (await request.get("/api/galleries/homepage")).json()) as ApiImage[];
  const photos = await watchPhotos(page, pathsOf(hero!));
  const iconOrManifest = (url: string) =>
    ["/favicon.ico", "/icon.svg", "/manifest.webmanifest"].includes(new URL(url).pathname);
  const fetchedEarly: string[] = [];
  page.on("request", (request) => {
    if (iconOrManifest(request.url())) fetchedEarly.push(request.url());
  });
  await page.goto("/", { waitUntil: "domcontentloaded" });
  await expect.poll(photos.largestRequested).toBe(true);
  await twoFrames(page);
  // Meanwhile one empty icon, so that the browser does not fetch /favicon.ico for want of one.
  await expect(page.locator('head link[rel="icon"]')).toHaveCount(1);
  await expect(page.locator('head link[rel="icon"]')).toHaveAttribute("href", "data:,");
  await expect(page.locator('head link[rel="manifest"]')).toHaveCount(0);
  expect(fetchedEarly).toEqual([]);

  photos.release();
  await expect(page.locator('head link[rel="manifest"]')).toHaveAttribute("href", "/manifest.webmanifest");
  expect(
    await page.locator('head link[rel="icon"]').evaluateAll((links) => links.map((link) => link.getAttribute("href"))),
  ).toEqual(["/favicon.ico", "/icon.svg"]);
});

test("on /stonework, the gallery's other photos wait with their boxes kept: no layout shift", async ({
  page,
  request,
}) => {
  const [first] = (await (await request.get("/api/galleries/traditional")).json()) as ApiImage[];
  await page.addInitScript(() => {
    const shifts: number[] = [];
    (window as unknown as { shifts: number[] }).shifts = shifts;
    new PerformanceObserver((list) => {
      for (const entry of list.getEntries()) shifts.push((entry as unknown as { value: number }).value);
    }).observe({ type: "layout-shift", buffered: true });
  });
  const photos = await watchPhotos(page, pathsOf(first!));
  await page.goto("/stonework", { waitUntil: "domcontentloaded" });
  await expect.poll(photos.largestRequested).toBe(true);
  const figures = page.locator("[data-gallery] figure");
  await expect(figures).toHaveCount(3);
  await twoFrames(page);
  const waiting = await figures.evaluateAll((all) => all.map((figure) => figure.getBoundingClientRect().height));
  expect(photos.otherRequests()).toEqual([]);
  // Each waiting photo's box already has its height (3:2 photos, 358 px wide: about 239 px).
  expect(waiting.slice(1).every((height) => height > 200)).toBe(true);

  photos.release();
  await page.waitForLoadState("load");
  await page.evaluate(() => window.scrollTo(0, document.body.scrollHeight));
  await expect
    .poll(() =>
      page
        .locator("[data-gallery] img")
        .evaluateAll((imgs) =>
          imgs.every((img) => (img as HTMLImageElement).complete && (img as HTMLImageElement).naturalWidth > 0),
        ),
    )
    .toBe(true);
  expect(await figures.evaluateAll((all) => all.map((figure) => figure.getBoundingClientRect().height))).toEqual(
    waiting,
  );
  // Zero as Lighthouse shows CLS (3 decimals): a busy machine's sub-pixel rounding once made 0.0003;
  // a waiting photo's box that went missing shifts the page by about 0.1 or more.
  expect(
    await page.evaluate(() =>
      (window as unknown as { shifts: number[] }).shifts.reduce((sum, value) => sum + value, 0),
    ),
  ).toBeLessThan(0.001);
});

test("the others wait for the largest photo to be painted, not only loaded: one that never paints holds them 3 s after its load", async ({
  page,
}) => {
  // Hidden (an eager <img> loads all the same), the hero photo never paints: Element Timing never reports it.
  await page.route(
    (url) => url.pathname === "/",
    async (route) => {
      const response = await route.fetch();
      const html = (await response.text()).replace(
        /(<img [^>]*)elementtiming="largest-paint"/,
        '$1hidden elementtiming="largest-paint"',
      );
      await route.fulfill({ response, body: html });
    },
  );
  await page.clock.install({ time: new Date("2026-01-01T09:00:00Z") });
  await page.clock.pauseAt(new Date("2026-01-01T09:00:01Z"));
  await page.goto("/");
  // Set when the photo's load event has run: released on the load alone, the others would start now.
  await expect(page.locator("html")).toHaveAttribute("data-largest-paint-at", /\d+/);
  await expect(page.locator("html")).toHaveAttribute("data-photos-wait", "");
  await page.clock.runFor(2_900);
  await expect(page.locator("html")).toHaveAttribute("data-photos-wait", "");
  await page.clock.runFor(200);
  await expect(page.locator("html")).not.toHaveAttribute("data-photos-wait");
});

test("the largest photo never waits for a script: with every script file held, it and then the others load", async ({
  page,
}) => {
  await page.route("**/assets/*.js", () => new Promise(() => {}));
  await page.goto("/");
  const hero = page.locator("section[data-hero-index] img").first();
  await expect.poll(() => hero.evaluate((img: HTMLImageElement) => img.complete && img.naturalWidth > 0)).toBe(true);
  const cards = page.getByRole("region", { name: "What We Build" }).locator("img");
  await expect
    .poll(() =>
      cards.evaluateAll((imgs) =>
        imgs.every((img) => (img as HTMLImageElement).complete && (img as HTMLImageElement).naturalWidth > 0),
      ),
    )
    .toBe(true);
});

test.describe("without JavaScript", () => {
  test.use({ javaScriptEnabled: false });

  test("the photos load as before: the service cards' start while the hero's is still on its way", async ({
    page,
    request,
  }) => {
    const [hero] = (await (await request.get("/api/galleries/homepage")).json()) as ApiImage[];
    const photos = await watchPhotos(page, pathsOf(hero!));
    await page.goto("/", { waitUntil: "domcontentloaded" });
    await expect.poll(photos.largestRequested).toBe(true);
    await expect.poll(() => photos.otherRequests().length).toBeGreaterThanOrEqual(2);
    expect(photos.events.some((event) => event.kind === "finished" && event.largest)).toBe(false);
    photos.release();
  });

  test("the favicon and the web manifest are in the head from the start", async ({ page }) => {
    await page.route("**/media/**", () => new Promise(() => {}));
    await page.goto("/", { waitUntil: "domcontentloaded" });
    await expect(page.locator('head link[rel="manifest"]')).toHaveAttribute("href", "/manifest.webmanifest");
    expect(
      await page
        .locator('head link[rel="icon"]')
        .evaluateAll((links) => links.map((link) => link.getAttribute("href"))),
    ).toEqual(["/favicon.ico", "/icon.svg"]);
  });
});
