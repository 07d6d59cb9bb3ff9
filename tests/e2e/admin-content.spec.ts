import type { Page } from "@playwright/test";
import { editorTitleFor, PAGE_GROUP_LABELS, PAGE_GROUPS, sectionsInGroup, type PageGroup } from "~/content/sections";
import { GALLERY_TITLES, GALLERY_TYPES } from "~/galleries/gallery";
import {
  backToDashboard,
  editorSection,
  expectNoAxeViolations,
  expectOneH1AndOrderedHeadings,
  expectToast,
  hydrated,
  openView,
} from "./admin-helpers";
import { signInApi } from "../support/sign-in-api";
import { expect, test } from "./fixtures";

async function openDashboard(page: Page) {
  await signInApi(page.request);
  await page.goto("/admin");
  await expect(page.getByRole("heading", { level: 1, name: "Website Management" })).toBeVisible();
}

/** Opens a group's editor, replaces one section's text and saves it. */
async function saveSection(page: Page, group: PageGroup, sectionTitle: string, text: string) {
  await openView(page, PAGE_GROUP_LABELS[group], editorTitleFor(group));
  const section = editorSection(page, sectionTitle);
  const field = section.getByLabel("Content");
  await expect(field).not.toHaveValue("");
  await field.fill(text);
  await section.getByRole("button", { name: "Save Changes" }).click();
  await expectToast(page, "Content Updated", "Your changes have been saved successfully.", "default");
  await expect(field).toHaveValue(text);
}

test.describe("admin dashboard", () => {
  test("has its title, links and three cards with every button", async ({ page }) => {
    await openDashboard(page);
    await expect(page.getByRole("link", { name: "View Website" })).toHaveAttribute("href", "/");
    await expect(page.getByRole("button", { name: "Logout" })).toBeVisible();

    const text = page.getByRole("region", { name: "Edit Website Text" });
    await expect(text.getByRole("heading", { level: 2 })).toHaveText("Edit Website Text");
    await expect(text.getByRole("button")).toHaveText([
      "Homepage",
      "Stonework",
      "Landscaping",
      "About/Contact Page",
      "Footer",
      "Contact Information",
    ]);
    const galleries = page.getByRole("region", { name: "Manage Photo Galleries" });
    await expect(galleries.getByRole("button")).toHaveText([
      "Traditional Stonework",
      "Veneer Stonework",
      "Hard Landscaping",
      "Homepage Hero Images",
    ]);
    const submissions = page.getByRole("region", { name: "Contact Form Submissions" });
    await expect(submissions.getByRole("button")).toHaveText(["View Submissions"]);
    await expectOneH1AndOrderedHeadings(page, "dashboard");
    await expectNoAxeViolations(page, "dashboard");
  });

  test("opens every sub-view in place and comes back from each", async ({ page }) => {
    await openDashboard(page);
    for (const group of PAGE_GROUPS) {
      await openView(page, PAGE_GROUP_LABELS[group], editorTitleFor(group));
      await expect(page.getByRole("heading", { name: "Website Management" })).toHaveCount(0);
      await backToDashboard(page);
      await expect(page.getByRole("button", { name: PAGE_GROUP_LABELS[group], exact: true })).toBeFocused();
    }
    for (const type of GALLERY_TYPES) {
      await openView(page, GALLERY_TITLES[type], `${GALLERY_TITLES[type]} Gallery`);
      await backToDashboard(page);
    }
    await openView(page, "View Submissions", "Contact Form Submissions");
    await backToDashboard(page);
  });

  test("keeps the open view across a reload", async ({ page }) => {
    await openDashboard(page);
    await openView(page, "Footer", "Content Editor");
    await expect(page).toHaveURL(/\?view=content(:|%3A)footer$/);
    await page.reload();
    await expect(page.getByRole("heading", { level: 1, name: "Content Editor" })).toBeVisible();
    await expect(editorSection(page, "Footer Description")).toBeVisible();
    await backToDashboard(page);
    await expect(page).toHaveURL(/\/admin$/);
  });
});

test.describe("admin content editor sections", () => {
  // Nothing is saved here, so every field shows its built-in text.
  test.use({ serverSetup: { name: "editor-sections" } });

  for (const group of PAGE_GROUPS) {
    test(`lists every section of '${group}' with its description, location and editor`, async ({ page }) => {
      await openDashboard(page);
      await openView(page, PAGE_GROUP_LABELS[group], editorTitleFor(group));
      await expect(page.getByRole("button", { name: "Back to Dashboard" })).toBeVisible();
      const sections = sectionsInGroup(group);
      await expect(page.getByRole("main").getByRole("heading", { level: 2 })).toHaveText(sections.map((s) => s.title));
      for (const section of sections) {
        const region = editorSection(page, section.title);
        await expect(region.getByText(section.description, { exact: true })).toBeVisible();
        await expect(region.getByText(`Location: ${section.location}`, { exact: true })).toBeVisible();
        const field = region.getByLabel("Content");
        await expect(field).toHaveAttribute("rows", "8");
        await expect(field).toHaveAttribute("placeholder", "Section content");
        await expect(field).toHaveValue(section.defaultContent);
        await expect(region.getByRole("button", { name: "Save Changes" })).toBeEnabled();
        // Editors on this page are not closable: no Cancel.
        await expect(region.getByRole("button", { name: "Cancel" })).toHaveCount(0);
      }
      if (group === "homepage" || group === "contact_info") {
        await expectOneH1AndOrderedHeadings(page, `${group} editor`);
        await expectNoAxeViolations(page, `${group} editor`);
      }
    });
  }
});

test.describe("admin content editor", () => {
  test("homepage: a new hero title shows on /", async ({ page }) => {
    await openDashboard(page);
    await saveSection(page, "homepage", "Hero Title", "Solid Stone Walls, Built to Last");
    await page.goto("/");
    await expect(page.getByRole("heading", { level: 1 })).toHaveText("Solid Stone Walls, Built to Last");
  });

  test("stonework: a new intro shows on /stonework", async ({ page }) => {
    await openDashboard(page);
    await saveSection(page, "stonework", "Stonework Introduction", "Every wall laid by hand in Taranaki stone.");
    await page.goto("/stonework");
    await expect(page.getByRole("main").getByText("Every wall laid by hand in Taranaki stone.")).toBeVisible();
  });

  test("landscaping: a new intro shows on /landscaping", async ({ page }) => {
    await openDashboard(page);
    await saveSection(page, "landscaping", "Landscaping Introduction", "Retaining walls and decks that last.");
    await page.goto("/landscaping");
    await expect(page.getByRole("main").getByText("Retaining walls and decks that last.")).toBeVisible();
  });

  test("about/contact: a new subtitle shows on /contact", async ({ page }) => {
    await openDashboard(page);
    await saveSection(page, "contact", "About Subtitle", "Third-generation stonemason");
    await page.goto("/contact");
    await expect(page.getByRole("main").getByText("Third-generation stonemason", { exact: true })).toBeVisible();
  });

  test("footer: a new description shows in the footer of every page", async ({ page }) => {
    await openDashboard(page);
    await saveSection(page, "footer", "Footer Description", "Honest stonework since 2004.");
    for (const path of ["/", "/landscaping"]) {
      await page.goto(path);
      await expect(page.getByRole("contentinfo").getByText("Honest stonework since 2004.")).toBeVisible();
    }
  });

  test("contact information: a new phone number shows on /contact as a call link", async ({ page }) => {
    await openDashboard(page);
    await saveSection(page, "contact_info", "Phone Number", "06 758 1234");
    await page.goto("/contact");
    const link = page.getByRole("main").getByRole("link", { name: "06 758 1234" });
    await expect(link).toHaveAttribute("href", "tel:067581234");
  });

  test("a multi-line text keeps its line breaks", async ({ page }) => {
    await openDashboard(page);
    await saveSection(page, "contact_info", "Address", "1 Quarry Lane\nOakura\nNew Plymouth 4314");
    await page.goto("/contact");
    await expect(page.getByRole("main").locator("address")).toContainText("1 Quarry Lane");
    await expect(page.getByRole("main").locator("address span")).toHaveText([
      "1 Quarry Lane",
      "Oakura",
      "New Plymouth 4314",
    ]);
  });

  test("shows 'Saving...' while a save is under way", async ({ page }) => {
    await openDashboard(page);
    await openView(page, "Stonework", "Stonework Page");
    let release!: () => void;
    const held = new Promise<void>((resolve) => (release = resolve));
    await page.route("**/api/admin/content/**", async (route) => {
      await held;
      await route.continue();
    });
    const section = editorSection(page, "Stonework Call-to-Action Title");
    await section.getByLabel("Content").fill("Got a wall in mind?");
    await section.getByRole("button", { name: "Save Changes" }).click();
    const saving = section.getByRole("button", { name: "Saving..." });
    await expect(saving).toBeVisible();
    await expect(saving).toBeDisabled();
    release();
    await expectToast(page, "Content Updated", "Your changes have been saved successfully.");
    await expect(section.getByRole("button", { name: "Save Changes" })).toBeEnabled();
  });

  test("says 'Error' when a save fails, and keeps the text", async ({ page }) => {
    await openDashboard(page);
    await openView(page, "Landscaping", "Landscaping Page");
    await page.route("**/api/admin/content/**", (route) =>
      route.fulfill({ status: 500, contentType: "application/json", body: '{"message":"Something went wrong"}' }),
    );
    const section = editorSection(page, "Landscaping Call-to-Action Title");
    await section.getByLabel("Content").fill("Will not be saved");
    await section.getByRole("button", { name: "Save Changes" }).click();
    await expectToast(page, "Error", "Failed to update content. Please try again.", "destructive");
    await expect(section.getByLabel("Content")).toHaveValue("Will not be saved");
    await expect(page.getByRole("heading", { level: 1, name: "Landscaping Page" })).toBeVisible();
    const stored = await (await page.request.get("/api/content/landscaping.cta.title")).json();
    expect(stored.content).not.toBe("Will not be saved");
  });

  test("the editor is usable by keyboard alone", async ({ page }) => {
    await openDashboard(page);
    await hydrated(page);
    await page.getByRole("button", { name: "Footer", exact: true }).focus();
    await page.keyboard.press("Enter");
    await expect(page.getByRole("heading", { level: 1, name: "Content Editor" })).toBeFocused();
    const field = editorSection(page, "Footer Description").getByLabel("Content");
    await expect(field).toBeEnabled();
    await expect(field).not.toHaveValue("");
    await field.focus();
    await expect(field).toBeFocused();
    await page.keyboard.press("ControlOrMeta+a");
    await page.keyboard.type("Typed with the keyboard.");
    await page.keyboard.press("Tab");
    await expect(editorSection(page, "Footer Description").getByRole("button", { name: "Save Changes" })).toBeFocused();
    await page.keyboard.press("Enter");
    await expectToast(page, "Content Updated");
    expect((await (await page.request.get("/api/content/footer.description")).json()).content).toBe(
      "Typed with the keyboard.",
    );
  });
});
