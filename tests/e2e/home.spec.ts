import { expect, test, hydrated } from "./fixtures";

test.describe("home page without images", () => {
  test("is server-rendered with the built-in text, and shows the gradient hero", async ({ page, request }) => {
    const html = await (await request.get("/")).text();
    expect(html).toContain("Stonemasonry &amp; Hard Landscaping in Taranaki");
    expect(html).toContain("What We Build");

    await page.goto("/");
    const hero = page.locator("section[data-hero-index]");
    await expect(hero.getByRole("heading", { level: 1 })).toHaveText("Stonemasonry & Hard Landscaping in Taranaki");
    await expect(hero).toContainText("craftsman with 20+ years on the tools");
    await expect(hero.locator("img")).toHaveCount(0);
    await expect(hero).toHaveClass(/bg-gradient-to-br/);
    await expect(hero.getByRole("button", { name: /slideshow/ })).toHaveCount(0);
  });

  test("'Get a Quote' goes to /contact and 'View Portfolio' to /stonework", async ({ page }) => {
    await page.goto("/");
    await page.getByRole("link", { name: "Get a Quote" }).click();
    await expect(page).toHaveURL(/\/contact$/);
    await expect(page.getByRole("heading", { level: 1 })).toHaveText("About Mark Brennan");
    await page.goto("/");
    await page.getByRole("link", { name: "View Portfolio" }).click();
    await expect(page).toHaveURL(/\/stonework$/);
    await expect(page.getByRole("heading", { level: 1 })).toHaveText("Professional Stonemasonry");
  });

  test("service cards say 'No image available' and link to their pages", async ({ page }) => {
    await page.goto("/");
    const services = page.getByRole("region", { name: "What We Build" });
    await expect(services.getByText("No image available")).toHaveCount(2);
    await expect(services.getByRole("link", { name: /Stonework/ })).toHaveAttribute("href", "/stonework");
    await expect(services.getByRole("link", { name: /Hard Landscaping/ })).toHaveAttribute("href", "/landscaping");
  });

  test("the about snippet links to the About page", async ({ page }) => {
    await page.goto("/");
    const about = page.getByRole("region", { name: "Local, Experienced, Hands-On" });
    await expect(about).toContainText("Based in New Plymouth");
    const more = about.getByRole("link", { name: "Learn More About Mark Brennan" });
    await expect(more).toHaveAttribute("href", "/contact");
  });
});

test.describe("home page with gallery images and stored text", () => {
  test.use({
    serverSetup: {
      seed: {
        galleries: { homepage: 3, traditional: 2, landscaping: 1 },
        content: { "hero.title": "Built in Stone", "services.title": "Our Services", "contact.name": "Mark B." },
      },
    },
  });

  test("renders stored text on the server, with no fallback flashing first", async ({ page, request }) => {
    const html = await (await request.get("/")).text();
    expect(html).toContain("Built in Stone");
    expect(html).not.toContain("Stonemasonry &amp; Hard Landscaping in Taranaki");

    const seen: string[] = [];
    await page.exposeFunction("recordHeading", (text: string) => seen.push(text));
    await page.addInitScript(() => {
      new MutationObserver(() => {
        const h1 = document.querySelector("h1");
        if (h1) (window as unknown as { recordHeading(t: string): void }).recordHeading(h1.textContent ?? "");
      }).observe(document, { subtree: true, childList: true, characterData: true });
    });
    await page.goto("/");
    await expect(page.getByRole("heading", { level: 1 })).toHaveText("Built in Stone");
    await expect(page.getByRole("link", { name: "Learn More About Mark B." })).toBeVisible();
    expect(seen.every((text) => text === "Built in Stone")).toBe(true);
  });

  test("service cards show the first traditional and landscaping images", async ({ page, request }) => {
    const traditional = await (await request.get("/api/galleries/traditional")).json();
    const landscaping = await (await request.get("/api/galleries/landscaping")).json();
    await page.goto("/");
    const services = page.getByRole("region", { name: "Our Services" });
    await expect(services.getByText("No image available")).toHaveCount(0);
    const images = services.locator("img");
    await expect(images).toHaveCount(2);
    await expect(images.nth(0)).toHaveAttribute("src", traditional[0].imagePath);
    await expect(images.nth(1)).toHaveAttribute("src", landscaping[0].imagePath);
  });

  test("the hero rotates every 5000 ms through the homepage gallery and wraps", async ({ page }) => {
    // Time stands still until the test moves it, however slowly the images load.
    await page.clock.install({ time: new Date("2026-01-01T09:00:00Z") });
    await page.clock.pauseAt(new Date("2026-01-01T09:00:01Z"));
    await page.goto("/");
    const hero = page.locator("section[data-hero-index]");
    await expect(hero).toHaveAttribute("data-hero-index", "0");
    const first = hero.locator("img").first();
    await expect(first).toHaveAttribute("fetchpriority", "high");
    await expect(first).toHaveAttribute("loading", "eager");

    // The next image is fetched ahead of its turn; wait until it has loaded.
    await expect(hero.locator("img")).toHaveCount(2);
    await expect
      .poll(() =>
        hero
          .locator("img")
          .nth(1)
          .evaluate((img: HTMLImageElement) => img.complete),
      )
      .toBe(true);
    await page.clock.runFor(4900);
    await expect(hero).toHaveAttribute("data-hero-index", "0");
    await page.clock.runFor(200);
    await expect(hero).toHaveAttribute("data-hero-index", "1");

    await expect(hero.locator("img")).toHaveCount(3);
    await expect
      .poll(() =>
        hero
          .locator("img")
          .nth(2)
          .evaluate((img: HTMLImageElement) => img.complete),
      )
      .toBe(true);
    await page.clock.runFor(5000);
    await expect(hero).toHaveAttribute("data-hero-index", "2");
    await page.clock.runFor(5000);
    await expect(hero).toHaveAttribute("data-hero-index", "0");
  });

  test("the first turn comes 5000 ms after the first photo shows, even when the script arrives later", async ({
    page,
  }) => {
    await page.clock.install({ time: new Date("2026-01-01T09:00:00Z") });
    await page.clock.pauseAt(new Date("2026-01-01T09:00:01Z"));
    // The hero's script is held back while the page's clock moves on, as on a slow phone.
    let release!: () => void;
    const held = new Promise<void>((resolve) => (release = resolve));
    await page.route("**/assets/island-hero-*.js", async (route) => {
      await held;
      await route.continue();
    });
    await page.goto("/");
    const hero = page.locator("section[data-hero-index]");
    const first = hero.locator("img").first();
    await expect.poll(() => first.evaluate((img: HTMLImageElement) => img.complete && img.naturalWidth > 0)).toBe(true);
    await expect(page.locator("html")).toHaveAttribute("data-largest-paint-at", /^\d+$/);
    await page.clock.runFor(3000);
    release();
    await hydrated(page);
    // The next photo is fetched once the script is there; wait until it has loaded.
    await expect(hero.locator("img")).toHaveCount(2);
    await expect
      .poll(() =>
        hero
          .locator("img")
          .nth(1)
          .evaluate((img: HTMLImageElement) => img.complete),
      )
      .toBe(true);
    // 3000 + 1900 ms after the first photo showed: not yet.
    await page.clock.runFor(1900);
    await expect(hero).toHaveAttribute("data-hero-index", "0");
    // 5100 ms after: turned (a timer started by the script would turn at 8000 ms).
    await page.clock.runFor(200);
    await expect(hero).toHaveAttribute("data-hero-index", "1");
    // Then every 5000 ms.
    await expect
      .poll(() =>
        hero
          .locator("img")
          .nth(2)
          .evaluate((img: HTMLImageElement) => img.complete),
      )
      .toBe(true);
    await page.clock.runFor(4800);
    await expect(hero).toHaveAttribute("data-hero-index", "1");
    await page.clock.runFor(200);
    await expect(hero).toHaveAttribute("data-hero-index", "2");
  });

  test("a swipe of 50 px or more moves the hero; a shorter one does not", async ({ page }) => {
    await page.clock.install({ time: new Date("2026-01-01T09:00:00Z") });
    await page.clock.pauseAt(new Date("2026-01-01T09:00:01Z"));
    await page.goto("/");
    await hydrated(page);
    const hero = page.locator("section[data-hero-index]");
    const box = (await hero.boundingBox())!;
    // Along the top padding, clear of links (dragging a link would start a link drag instead).
    const y = box.y + 12;
    const swipe = async (from: number, to: number) => {
      await page.mouse.move(from, y);
      await page.mouse.down();
      await page.mouse.move(to, y, { steps: 4 });
      await page.mouse.up();
    };
    await swipe(box.x + 200, box.x + 151);
    await expect(hero).toHaveAttribute("data-hero-index", "0");
    // Leftwards: the next photo.
    await swipe(box.x + 200, box.x + 150);
    await expect(hero).toHaveAttribute("data-hero-index", "1");
    await expect(hero.locator("picture.opacity-100")).toHaveCount(1);
    // Rightwards: back, then wrapping to the last.
    await swipe(box.x + 150, box.x + 220);
    await expect(hero).toHaveAttribute("data-hero-index", "0");
    await swipe(box.x + 150, box.x + 220);
    await expect(hero).toHaveAttribute("data-hero-index", "2");
  });

  test("the slideshow can be paused", async ({ page }) => {
    await page.clock.install({ time: new Date("2026-01-01T09:00:00Z") });
    await page.clock.pauseAt(new Date("2026-01-01T09:00:01Z"));
    await page.goto("/");
    await hydrated(page);
    const hero = page.locator("section[data-hero-index]");
    await hero.getByRole("button", { name: "Pause slideshow" }).click();
    await page.clock.runFor(15_000);
    await expect(hero).toHaveAttribute("data-hero-index", "0");
    await expect(hero.getByRole("button", { name: "Play slideshow" })).toBeVisible();
  });

  test("the hero stays still for visitors who prefer reduced motion", async ({ page }) => {
    await page.emulateMedia({ reducedMotion: "reduce" });
    await page.clock.install({ time: new Date("2026-01-01T09:00:00Z") });
    await page.clock.pauseAt(new Date("2026-01-01T09:00:01Z"));
    await page.goto("/");
    await hydrated(page);
    const hero = page.locator("section[data-hero-index]");
    await page.clock.runFor(15_000);
    await expect(hero).toHaveAttribute("data-hero-index", "0");
    await expect(hero.locator("img")).toHaveCount(1);
  });
});
