// @phone-only: the owner's flow on the phone; its checks never look at the layout
import { TEST_ADMIN, expect, signIn, test } from "./fixtures";
import {
  editorSection,
  expectNoAxeViolations,
  expectToast,
  expectUnauthorizedToastShown,
  hydrated,
  openView,
  recordToasts,
} from "./admin-helpers";
import { signInApi } from "../support/sign-in-api";

test.describe("admin sign-in", () => {
  test("shows 'Loading...' while the sign-in status loads, then the login page", async ({ page }) => {
    let release!: () => void;
    const held = new Promise<void>((resolve) => (release = resolve));
    let authCalls = 0;
    await page.route("**/api/auth/user", async (route) => {
      authCalls += 1;
      await held;
      await route.continue();
    });
    await page.goto("/admin");
    const loading = page.getByRole("status").filter({ hasText: "Loading..." });
    await expect(loading).toBeVisible();
    await expect(page.getByRole("heading", { name: "Admin Access" })).toHaveCount(0);
    release();
    await expect(page.getByRole("heading", { level: 1, name: "Admin Access" })).toBeVisible();
    await expect(loading).toHaveCount(0);
    await expect(page.getByText("Sign in to manage your website content")).toBeVisible();
    await expect(page.getByLabel("Username")).toBeVisible();
    await expect(page.getByLabel("Password")).toHaveAttribute("type", "password");
    await expect(page.getByRole("button", { name: "Sign In" })).toBeEnabled();
    // The status check is not retried after its 401.
    expect(authCalls).toBe(1);
  });

  test("is a no-store, noindex page", async ({ page }) => {
    const response = await page.goto("/admin");
    expect(response?.headers()["cache-control"]).toContain("no-store");
    await expect(page).toHaveTitle("Website Management");
    await expect(page.locator('meta[name="robots"]')).toHaveAttribute("content", /noindex/);
  });

  test("validates the fields in place", async ({ page }) => {
    await page.goto("/admin");
    await hydrated(page);
    await page.getByRole("button", { name: "Sign In" }).click();
    const username = page.getByLabel("Username");
    const password = page.getByLabel("Password");
    await expect(username).toHaveAttribute("aria-invalid", "true");
    await expect(username).toHaveAccessibleDescription("Username is required");
    await expect(password).toHaveAccessibleDescription("Password is required");
    await expect(page.getByText("Username is required")).toBeVisible();
    await expect(page.getByText("Password is required")).toBeVisible();
    await expect(username).toBeFocused();
    await username.fill("owner");
    await page.getByRole("button", { name: "Sign In" }).click();
    await expect(page.getByText("Username is required")).toHaveCount(0);
    await expect(page.getByText("Password is required")).toBeVisible();
    await expect(password).toBeFocused();
  });

  test("says 'Login Failed' for a wrong password and stays on the login page", async ({ page }) => {
    await page.goto("/admin");
    await page.getByLabel("Username").fill(TEST_ADMIN.username);
    await page.getByLabel("Password").fill("not the password");
    await page.getByRole("button", { name: "Sign In" }).click();
    await expectToast(page, "Login Failed", "Invalid username or password. Please try again.", "destructive");
    await expect(page.getByRole("heading", { level: 1, name: "Admin Access" })).toBeVisible();
    await expect(page.getByRole("button", { name: "Sign In" })).toBeEnabled();
    await expect(page.getByText("Unauthorized", { exact: true })).toHaveCount(0);
  });

  test("shows 'Signing In...' while signing in, then loads /admin afresh on the dashboard", async ({ page }) => {
    await page.goto("/admin");
    await hydrated(page);
    await page.evaluate(() => ((window as unknown as { beforeSignIn: boolean }).beforeSignIn = true));
    let release!: () => void;
    const held = new Promise<void>((resolve) => (release = resolve));
    await page.route("**/api/login", async (route) => {
      await held;
      await route.continue();
    });
    await page.getByLabel("Username").fill(TEST_ADMIN.username);
    await page.getByLabel("Password").fill(TEST_ADMIN.password);
    await page.getByRole("button", { name: "Sign In" }).click();
    const pending = page.getByRole("button", { name: "Signing In..." });
    await expect(pending).toBeVisible();
    await expect(pending).toBeDisabled();
    const reload = page.waitForEvent("load");
    release();
    await reload;
    await expect(page).toHaveURL(/\/admin$/);
    await expect(page.getByRole("heading", { level: 1, name: "Website Management" })).toBeVisible();
    // A full page load: the old page's state is gone.
    expect(await page.evaluate(() => (window as unknown as { beforeSignIn?: boolean }).beforeSignIn)).toBeUndefined();
  });

  test("logs out and goes to the home page; /admin then shows the login page", async ({ page }) => {
    await signIn(page);
    await page.getByRole("button", { name: "Logout" }).click();
    await expect(page).toHaveURL((url) => url.pathname === "/");
    await expect(page.getByRole("heading", { level: 1 })).toBeVisible();
    expect((await page.request.get("/api/auth/user")).status()).toBe(401);
    await page.goto("/admin");
    await expect(page.getByRole("heading", { level: 1, name: "Admin Access" })).toBeVisible();
  });

  test("'View Website' is a plain link to the home page", async ({ page }) => {
    await signIn(page);
    const link = page.getByRole("link", { name: "View Website" });
    await expect(link).toHaveAttribute("href", "/");
    await link.click();
    await expect(page).toHaveURL((url) => url.pathname === "/");
  });

  test("a lost session during a save shows 'Unauthorized', then the login page after 500 ms", async ({
    page,
    context,
  }) => {
    await signInApi(page.request);
    await page.goto("/admin");
    await openView(page, "Homepage", "Homepage Content");
    const field = editorSection(page, "Hero Title").getByLabel("Content");
    await expect(field).not.toHaveValue("");
    await field.fill("Never saved");
    await context.clearCookies();
    const toasts = await recordToasts(page);
    const started = Date.now();
    await editorSection(page, "Hero Title").getByRole("button", { name: "Save Changes" }).click();
    await expectUnauthorizedToastShown(toasts);
    await expect(page.getByText("Content Updated")).toHaveCount(0);
    await expect(page.getByText("Failed to update content. Please try again.")).toHaveCount(0);
    await page.waitForURL(/\/admin$/, { waitUntil: "load" });
    await expect(page.getByRole("heading", { level: 1, name: "Admin Access" })).toBeVisible();
    expect(Date.now() - started).toBeGreaterThanOrEqual(500);
    expect((await page.request.get("/api/content/hero.title").then((r) => r.json())).content).not.toBe("Never saved");
  });

  test("a session that ends while browsing a view shows 'Unauthorized' once, then the login page for good", async ({
    page,
    context,
  }) => {
    // The page's timers run as usual, but the test can move them on instead of waiting.
    await page.clock.install();
    await signInApi(page.request);
    await page.goto("/admin");
    await expect(page.getByRole("heading", { level: 1, name: "Website Management" })).toBeVisible();
    await context.clearCookies();
    const authLoads: string[] = [];
    page.on("request", (req) => {
      if (req.url().endsWith("/api/auth/user")) authLoads.push(req.url());
    });
    const toasts = await recordToasts(page);
    await page.getByRole("button", { name: "View Submissions" }).click();
    await expectUnauthorizedToastShown(toasts);
    await page.waitForURL(/\/admin$/, { waitUntil: "load" });
    await expect(page.getByRole("heading", { level: 1, name: "Admin Access" })).toBeVisible();
    expect(authLoads).toHaveLength(1);
    // A minute passes on the login page: nothing else is scheduled, so nothing reloads it.
    await page.clock.runFor(60_000);
    await page.getByLabel("Username").fill(TEST_ADMIN.username);
    await page.getByLabel("Password").fill(TEST_ADMIN.password);
    await page.clock.runFor(60_000);
    // Still the same page (a reload would have emptied the field), and still one status check.
    await expect(page.getByLabel("Username")).toHaveValue(TEST_ADMIN.username);
    expect(authLoads).toHaveLength(1);
    // And signing in again works.
    await page.getByRole("button", { name: "Sign In" }).click();
    await expect(page.getByRole("heading", { level: 1, name: "Website Management" })).toBeVisible();
  });

  test("the login page has no axe violations, with and without errors", async ({ page }) => {
    await page.goto("/admin");
    await hydrated(page);
    await expect(page.getByRole("heading", { level: 1, name: "Admin Access" })).toBeVisible();
    await expectNoAxeViolations(page, "login page");
    await page.getByRole("button", { name: "Sign In" }).click();
    await expect(page.getByText("Username is required")).toBeVisible();
    await expectNoAxeViolations(page, "login errors");
  });
});

test.describe("admin without JavaScript", () => {
  // Chromium's script switch does not render <noscript> content, so the served page is checked.
  test("the page carries a note that the admin needs JavaScript", async ({ request }) => {
    const html = await (await request.get("/admin")).text();
    const notes = [...html.matchAll(/<noscript>([\s\S]*?)<\/noscript>/g)].map((match) => match[1]);
    expect(notes.some((note) => note?.includes("The admin area needs JavaScript."))).toBe(true);
  });
});
