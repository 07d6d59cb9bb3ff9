import type { Page } from "@playwright/test";
import { PUBLIC_PAGE_PATHS } from "~/public-pages";
import { expect, hydrated, isPhone, menuButton, signIn, test } from "./fixtures";

const NAV = [
  ["Home", "/"],
  ["Stonework", "/stonework"],
  ["Hard Landscaping", "/landscaping"],
  ["Contact", "/contact"],
] as const;

test.describe("shared layout", () => {
  test("the sticky header shows the business name linking home and highlights the current page", async ({
    page,
  }, testInfo) => {
    await page.goto("/stonework");
    const header = page.getByRole("banner");
    await expect(header).toHaveCSS("position", "sticky");
    await expect(header.getByRole("link", { name: "Cornerstone Stonemasonry" })).toHaveAttribute("href", "/");

    // Below md the links live behind the menu button; at md and wider they show, and the button does not.
    const phone = isPhone(testInfo);
    const nav = header.getByRole("navigation", { name: "Main" });
    await expect(menuButton(page)).toBeVisible({ visible: phone });
    await expect(nav).toBeVisible({ visible: !phone });
    if (phone) await menuButton(page).click();
    await expect(nav).toBeVisible();
    for (const [label, href] of NAV) {
      const link = nav.getByRole("link", { name: label, exact: true });
      await expect(link).toHaveAttribute("href", href);
      if (href === "/stonework") await expect(link).toHaveAttribute("aria-current", "page");
      else await expect(link).not.toHaveAttribute("aria-current", "page");
    }

    await page.evaluate(() => window.scrollTo(0, 2000));
    await expect(header).toBeInViewport();
  });

  test("the menu button toggles the dropdown on small screens, and choosing a link closes it", async ({
    page,
  }, testInfo) => {
    // Desktop has no menu button (it shows below the md breakpoint only); the test above checks both sizes.
    test.skip(!isPhone(testInfo), "the menu button shows below the md breakpoint only (the test above checks both)");
    await page.goto("/");
    const button = menuButton(page);
    await hydrated(page);
    const details = page.locator("details[data-menu]");
    await expect(button).toHaveAccessibleName("Open menu");
    await button.click();
    await expect(details).toHaveJSProperty("open", true);
    await expect(button).toHaveAccessibleName("Close menu");
    const menu = page.locator("#mobile-menu");
    await expect(menu).toBeVisible();
    await button.click();
    await expect(details).toHaveJSProperty("open", false);
    await expect(menu).toBeHidden();

    await button.click();
    await menu.getByRole("link", { name: "Hard Landscaping" }).click();
    await expect(page).toHaveURL(/\/landscaping$/);
    await expect(page.locator("#mobile-menu")).toBeHidden();
    await expect(menuButton(page)).toHaveAccessibleName("Open menu");
  });

  test("the menu opens and closes with the keyboard on small screens", async ({ page }, testInfo) => {
    // Desktop has no menu button to open with the keyboard: its links are in the bar itself.
    test.skip(!isPhone(testInfo), "the menu button shows below the md breakpoint only");
    await page.goto("/stonework");
    await hydrated(page);
    const button = menuButton(page);
    await expect(button).toHaveAccessibleName("Open menu");
    await button.focus();
    await page.keyboard.press("Enter");
    await expect(button).toHaveAccessibleName("Close menu");
    await expect(button).toBeFocused();
    await expect(page.locator("#mobile-menu")).toBeVisible();
    await page.keyboard.press("Space");
    await expect(page.locator("#mobile-menu")).toBeHidden();
    await page.keyboard.press("Enter");
    await page.keyboard.press("Tab");
    await expect(page.locator("#mobile-menu").getByRole("link", { name: "Home" })).toBeFocused();
    // Escape closes it and hands focus back to the button.
    await page.keyboard.press("Escape");
    await expect(page.locator("#mobile-menu")).toBeHidden();
    await expect(button).toBeFocused();
    await expect(button).toHaveAccessibleName("Open menu");
  });

  test("the public pages load no framework: only their islands", async ({ page }) => {
    const scripts: string[] = [];
    page.on("request", (request) => {
      if (request.resourceType() === "script") scripts.push(new URL(request.url()).pathname);
    });
    // /contact's form is a React island of its own.
    for (const path of [...PUBLIC_PAGE_PATHS.filter((path) => path !== "/contact"), "/no/such/page"]) {
      await page.goto(path);
      await hydrated(page);
    }
    expect(scripts.length).toBeGreaterThan(0);
    expect(
      scripts.every((script) =>
        /^\/assets\/(island-(menu|hero)|mounted|menu-behaviour|largest-paint-attributes|hero-markup)-[\w-]+\.js$/.test(
          script,
        ),
      ),
      scripts.join(", "),
    ).toBe(true);
    expect(await page.evaluate(() => "__reactRouterContext" in window)).toBe(false);
  });

  test("the footer has the description, services, contact links and copyright", async ({ page }) => {
    await page.goto("/");
    const footer = page.getByRole("contentinfo");
    await expect(footer.getByText("Cornerstone Stonemasonry", { exact: true })).toBeVisible();
    await expect(footer).toContainText("traditional stonework, stone veneer and hard landscaping in New Plymouth");

    const services = [
      ["Traditional Stonework", "/stonework"],
      ["Veneer Installation", "/stonework"],
      ["Retaining Walls", "/landscaping"],
      ["Deck Construction", "/landscaping"],
      ["Garden Tune-ups", "/landscaping"],
    ];
    for (const [label, href] of services) {
      await expect(footer.getByRole("link", { name: label })).toHaveAttribute("href", href!);
    }
    await expect(footer.getByRole("link", { name: "027 555 0184" })).toHaveAttribute("href", "tel:0275550184");
    await expect(footer.getByRole("link", { name: "mark@cornerstonestonemasonry.co.nz" })).toHaveAttribute(
      "href",
      "mailto:mark@cornerstonestonemasonry.co.nz",
    );
    await expect(footer.locator("address")).toHaveText("14 Breakwater Road, Moturoa, New Plymouth 4310");
    await expect(footer).toContainText("© 2025 Cornerstone Stonemasonry Ltd");
  });

  test("a path outside the route table answers 404 with the 404 page inside the layout", async ({ page }) => {
    const response = await page.goto("/no/such/page");
    expect(response?.status()).toBe(404);
    await expect(page.getByRole("heading", { level: 1, name: "404 Page Not Found" })).toBeVisible();
    await expect(page).toHaveTitle("404 Page Not Found");
    await expect(page.getByRole("banner")).toBeVisible();
    await expect(page.getByRole("contentinfo")).toBeVisible();
  });

  test("a skip link moves keyboard users to the main content", async ({ page }) => {
    await page.goto("/");
    await page.keyboard.press("Tab");
    const skip = page.getByRole("link", { name: "Skip to main content" });
    await expect(skip).toBeFocused();
    await expect(skip).toBeVisible();
    await page.keyboard.press("Enter");
    await expect(page.locator("#main-content")).toBeFocused();
  });
});

test.describe("the phone menu without JavaScript", () => {
  // At a phone's width on both projects: the menu is a <details>, so it works with no script at all.
  test.use({ javaScriptEnabled: false, viewport: { width: 375, height: 812 } });

  test("opens and closes from its button and the keyboard, and its links navigate", async ({ page }) => {
    const scripts: string[] = [];
    page.on("request", (request) => {
      if (request.resourceType() === "script") scripts.push(request.url());
    });
    await page.goto("/stonework");
    const menu = page.locator("#mobile-menu");
    await expect(menu).toBeHidden();
    await menuButton(page).click();
    await expect(menu).toBeVisible();
    await expect(menu.getByRole("link")).toHaveCount(4);
    await expect(menu.getByRole("link", { name: "Stonework", exact: true })).toHaveAttribute("aria-current", "page");
    // Its name follows its state in CSS, with no script to change it.
    await expect(menuButton(page)).toHaveAccessibleName("Close menu");
    await menuButton(page).click();
    await expect(menu).toBeHidden();
    await expect(menuButton(page)).toHaveAccessibleName("Open menu");
    await menuButton(page).focus();
    await page.keyboard.press("Enter");
    await expect(menu).toBeVisible();

    await menu.getByRole("link", { name: "Hard Landscaping" }).click();
    await expect(page).toHaveURL(/\/landscaping$/);
    await expect(page.getByRole("heading", { level: 1 })).toHaveText("Hard Landscaping");
    await expect(page.locator("#mobile-menu")).toBeHidden();
    await menuButton(page).click();
    await page.locator("#mobile-menu").getByRole("link", { name: "Contact" }).click();
    await expect(page).toHaveURL(/\/contact$/);
    expect(scripts).toEqual([]);
  });
});

/** Whether Chromium's accessibility tree says the menu button is expanded (what a screen reader hears). */
async function expandedInAccessibilityTree(page: Page): Promise<boolean | undefined> {
  const cdp = await page.context().newCDPSession(page);
  try {
    const { root } = (await cdp.send("DOM.getDocument")) as { root: { nodeId: number } };
    const { nodeId } = (await cdp.send("DOM.querySelector", {
      nodeId: root.nodeId,
      selector: "summary[data-menu-button]",
    })) as { nodeId: number };
    const { nodes } = (await cdp.send("Accessibility.getPartialAXTree", { nodeId, fetchRelatives: false })) as {
      nodes: { properties?: { name: string; value: { value: unknown } }[] }[];
    };
    const expanded = nodes[0]?.properties?.find((property) => property.name === "expanded");
    return expanded ? expanded.value.value === true : undefined;
  } finally {
    await cdp.detach();
  }
}

test.describe("the phone menu closes on an outside tap, Escape and a chosen link", () => {
  test.use({ viewport: { width: 390, height: 844 }, hasTouch: true });

  for (const path of [...PUBLIC_PAGE_PATHS, "/admin"]) {
    test(`${path}: the summary has no role and no aria-expanded; the <details> states it`, async ({ page }) => {
      await page.goto(path);
      await hydrated(page);
      const button = menuButton(page);
      await expect(button).not.toHaveAttribute("role");
      await expect(button).not.toHaveAttribute("aria-expanded");
      expect(await expandedInAccessibilityTree(page)).toBe(false);
      await button.tap();
      await expect(page.locator("#mobile-menu")).toBeVisible();
      await expect(button).not.toHaveAttribute("aria-expanded");
      expect(await expandedInAccessibilityTree(page)).toBe(true);
    });
  }

  const headers = [
    { label: "public page (the menu island)", path: "/stonework", signedIn: false },
    { label: "admin (React)", path: "/admin", signedIn: true },
  ];
  for (const { label, path, signedIn } of headers) {
    test(`${label}: a tap outside, Escape and a chosen link each close it`, async ({ page }) => {
      if (signedIn) await signIn(page);
      else await page.goto(path);
      await hydrated(page);
      const button = menuButton(page);
      const menu = page.locator("#mobile-menu");

      // A tap outside the menu, on the page below it.
      await button.tap();
      await expect(menu).toBeVisible();
      await page.getByRole("contentinfo").tap({ position: { x: 10, y: 10 } });
      await expect(menu).toBeHidden();
      await expect(button).toHaveAccessibleName("Open menu");

      // A tap inside it (between its links) leaves it open.
      await button.tap();
      await menu.tap({ position: { x: 5, y: 5 } });
      await expect(menu).toBeVisible();

      // Escape, with focus back on the button.
      await page.keyboard.press("Escape");
      await expect(menu).toBeHidden();
      await expect(button).toBeFocused();

      // A chosen link. The test keeps the page from leaving (after the menu's own handler has run),
      // so the menu is seen closed on this page.
      await page.evaluate(() =>
        window.addEventListener("click", (event) => {
          if ((event.target as Element).closest("#mobile-menu a")) event.preventDefault();
        }),
      );
      await button.tap();
      await expect(menu).toBeVisible();
      await menu.getByRole("link", { name: "Hard Landscaping" }).tap();
      await expect(menu).toBeHidden();
      await expect(page).not.toHaveURL(/\/landscaping$/);
    });

    // One behaviour for both headers (menu-behaviour.ts): the admin's once kept its own React state,
    // which Escape did not close.
    test(`${label}: Escape closes it, from its button or from a link in it, with focus back on the button`, async ({
      page,
    }) => {
      if (signedIn) await signIn(page);
      else await page.goto(path);
      await hydrated(page);
      const button = menuButton(page);
      const menu = page.locator("#mobile-menu");

      await button.tap();
      await expect(menu).toBeVisible();
      await expect(button).toBeFocused();
      await page.keyboard.press("Escape");
      await expect(menu).toBeHidden();
      await expect(button).toHaveAccessibleName("Open menu");

      await button.focus();
      await page.keyboard.press("Enter");
      await expect(menu).toBeVisible();
      await page.keyboard.press("Tab");
      await expect(menu.getByRole("link", { name: "Home" })).toBeFocused();
      await page.keyboard.press("Escape");
      await expect(menu).toBeHidden();
      await expect(button).toBeFocused();
    });
  }
});
