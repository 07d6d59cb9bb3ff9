import { expect, test, hydrated } from "./fixtures";

test.describe("stonework and landscaping without images", () => {
  test("Stonework shows its sections, empty galleries and the call card", async ({ page }) => {
    await page.goto("/stonework");
    await expect(page.getByRole("heading", { level: 1 })).toHaveText("Professional Stonemasonry");
    await expect(page.getByText("Solid stone, laid by hand.")).toBeVisible();
    const traditional = page.getByRole("region", { name: "Traditional Stonework" });
    await expect(traditional).toContainText("Full-bed stone walls");
    await expect(traditional.getByText("No images available in this gallery.")).toBeVisible();
    const veneer = page.getByRole("region", { name: "Modern Veneer Stonework" });
    await expect(veneer).toContainText("Natural stone veneer");
    await expect(veneer.getByText("No images available in this gallery.")).toBeVisible();

    const cta = page.getByRole("region", { name: "Planning a stone project?" });
    await expect(cta).toContainText("free, no-obligation quote");
    await expect(cta.getByRole("link", { name: "Call 027 555 0184" })).toHaveAttribute("href", "tel:0275550184");
    await expect(cta.getByRole("link", { name: "Send Message" })).toHaveCount(0);
  });

  test("Hard Landscaping shows its intro, projects gallery and both buttons", async ({ page }) => {
    await page.goto("/landscaping");
    await expect(page.getByRole("heading", { level: 1 })).toHaveText("Hard Landscaping");
    await expect(page.getByText("Retaining walls, decks, paths")).toBeVisible();
    const projects = page.getByRole("region", { name: "Recent Projects" });
    await expect(projects).toContainText("A selection of recent retaining walls");
    await expect(projects.getByText("No images available in this gallery.")).toBeVisible();
    const cta = page.getByRole("region", { name: "Ready to sort out the section?" });
    await expect(cta.getByRole("link", { name: "Call 027 555 0184" })).toHaveAttribute("href", "tel:0275550184");
    await cta.getByRole("link", { name: "Send Message" }).click();
    await expect(page).toHaveURL(/\/contact$/);
  });

  test("the About page shows the title, subtitle, four bio paragraphs and the contact card", async ({ page }) => {
    await page.goto("/contact");
    await expect(page.getByRole("heading", { level: 1 })).toHaveText("About Mark Brennan");
    await expect(page.getByText("Stonemason, craftsman and owner of Cornerstone Stonemasonry Ltd")).toBeVisible();
    const experience = page.getByRole("region", { name: "Experience & Expertise" });
    await expect(experience.locator("p")).toHaveCount(4);
    await expect(experience.locator("p").nth(0)).toContainText("more than 20 years");
    await expect(experience.locator("p").nth(2)).toContainText("serves the whole Taranaki region");

    const card = page.getByRole("region", { name: "Get In Touch" });
    await expect(card.getByText("Mark Brennan")).toBeVisible();
    await expect(card.getByRole("link", { name: "027 555 0184" })).toHaveAttribute("href", "tel:0275550184");
    await expect(card.getByRole("link", { name: "mark@cornerstonestonemasonry.co.nz" })).toHaveAttribute(
      "href",
      "mailto:mark@cornerstonestonemasonry.co.nz",
    );
    const lines = card.locator("address > span");
    await expect(lines).toHaveText(["14 Breakwater Road", "Moturoa", "New Plymouth 4310"]);
  });
});

test.describe("pages with stored content and gallery images", () => {
  test.use({
    serverSetup: {
      seed: {
        galleries: { traditional: 3, veneer: 2, landscaping: 2 },
        content: {
          "stonework.intro": "Stored stonework intro.",
          "about.bio": "First stored paragraph.\n\nSecond stored paragraph.",
          "contact.name": "Jo Mason",
          "contact.phone": "06 555 1234",
          "contact.email": "jo@example.co.nz",
          "contact.address": "1 Devon Street\nNew Plymouth 4310",
          "footer.description": "Stored footer text.",
          "landscaping.cta.title": "Stored call title",
        },
      },
    },
  });

  test("stored content is in the server's HTML and on every page that uses it", async ({ page, request }) => {
    const html = await (await request.get("/stonework")).text();
    expect(html).toContain("Stored stonework intro.");
    expect(html).toContain("Stored footer text.");
    expect(html).not.toContain("Solid stone, laid by hand.");

    await page.goto("/contact");
    await expect(page.getByRole("heading", { level: 1 })).toHaveText("About Jo Mason");
    const experience = page.getByRole("region", { name: "Experience & Expertise" });
    await expect(experience.locator("p")).toHaveText(["First stored paragraph.", "Second stored paragraph."]);
    const card = page.getByRole("region", { name: "Get In Touch" });
    await expect(card.getByRole("link", { name: "06 555 1234" })).toHaveAttribute("href", "tel:065551234");
    await expect(card.getByRole("link", { name: "jo@example.co.nz" })).toHaveAttribute(
      "href",
      "mailto:jo@example.co.nz",
    );
    await expect(card.locator("address > span")).toHaveText(["1 Devon Street", "New Plymouth 4310"]);
    const footer = page.getByRole("contentinfo");
    await expect(footer.locator("address")).toHaveText("1 Devon Street, New Plymouth 4310");
    await expect(footer.getByRole("link", { name: "06 555 1234" })).toHaveAttribute("href", "tel:065551234");

    await page.goto("/landscaping");
    await expect(
      page.getByRole("region", { name: "Stored call title" }).getByRole("link", { name: "Call 06 555 1234" }),
    ).toHaveAttribute("href", "tel:065551234");
  });

  test("galleries show lazy images in sort order with captions and alt text", async ({ page, request }) => {
    const traditional = await (await request.get("/api/galleries/traditional")).json();
    await page.goto("/stonework");
    const gallery = page.getByRole("region", { name: "Traditional Stonework" }).getByRole("list");
    const images = gallery.locator("img");
    await expect(images).toHaveCount(3);
    for (const [i, item] of traditional.entries()) {
      const img = images.nth(i);
      await expect(img).toHaveAttribute("src", item.imagePath);
      await expect(img).toHaveAttribute("alt", item.caption || `traditional ${i + 1}`);
      // The first is a phone's largest paint: fetched at once; the others when scrolled near.
      await expect(img).toHaveAttribute("loading", i === 0 ? "eager" : "lazy");
      await expect(img).toHaveAttribute("width", String(item.width));
    }
    await expect(gallery.locator("figcaption").first()).toHaveText(traditional[0].caption);
    await expect(page.getByRole("region", { name: "Modern Veneer Stonework" }).locator("img")).toHaveCount(2);
  });

  test("a link from another page loads the next page whole, gallery included", async ({ page }) => {
    await page.goto("/contact");
    await hydrated(page);
    // Public pages are plain documents (decision 0055): no client-side navigation, no .data request.
    const dataRequests: string[] = [];
    page.on("request", (r) => {
      if (new URL(r.url()).pathname.endsWith(".data")) dataRequests.push(r.url());
    });
    const documentRequest = page.waitForRequest(
      (r) => new URL(r.url()).pathname === "/landscaping" && r.resourceType() === "document",
    );
    await page.getByRole("contentinfo").getByRole("link", { name: "Retaining Walls" }).click();
    await documentRequest;
    await expect(page).toHaveURL(/\/landscaping$/);
    await expect(page.getByRole("region", { name: "Recent Projects" }).locator("img")).toHaveCount(2);
    expect(dataRequests).toEqual([]);
  });

  test.describe("with JavaScript disabled", () => {
    test.use({ javaScriptEnabled: false });

    test("the galleries are in place in the HTML, not behind a script", async ({ page, request }) => {
      const html = await (await request.get("/stonework")).text();
      // React writes each finished boundary in place (no hidden block and swap script).
      expect(html).not.toMatch(/<div hidden id="S:/);
      expect(html).not.toContain("$RC");
      for (const path of ["/stonework", "/landscaping"]) {
        await page.goto(path);
        await expect(page.getByTestId("gallery-placeholder")).toHaveCount(0);
        const images = page.locator("ul[data-gallery] img");
        await expect(images).toHaveCount(path === "/stonework" ? 5 : 2);
        await expect(images.first()).toBeVisible();
      }
    });
  });
});
