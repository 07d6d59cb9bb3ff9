import type { Page } from "@playwright/test";
import { defaultContentFor } from "~/content/sections";
import { closeToast, editorSection, expectNoAxeViolations, expectToast, openView } from "./admin-helpers";
import { signInApi } from "../support/sign-in-api";
import { expect, test } from "./fixtures";

/** Save twice, restore the first version, see it on the public page, then reset to the default. */

async function openHomepageEditor(page: Page) {
  await signInApi(page.request);
  await page.goto("/admin");
  await expect(page.getByRole("heading", { level: 1, name: "Website Management" })).toBeVisible();
  await openView(page, "Homepage", "Homepage Content");
  return editorSection(page, "Hero Title");
}

async function save(page: Page, text: string) {
  const section = editorSection(page, "Hero Title");
  const field = section.getByLabel("Content");
  await expect(field).toBeEnabled();
  await field.fill(text);
  await section.getByRole("button", { name: "Save Changes" }).click();
  await expectToast(page, "Content Updated", "Your changes have been saved successfully.");
  await closeToast(page);
}

/** The dialog fits the screen: nothing sticks out sideways (a phone is 375 px wide). */
async function expectFitsViewport(page: Page) {
  const dialog = page.getByRole("dialog");
  const box = (await dialog.boundingBox())!;
  const width = page.viewportSize()!.width;
  expect(box.x).toBeGreaterThanOrEqual(0);
  expect(box.x + box.width).toBeLessThanOrEqual(width);
  expect(await dialog.evaluate((el) => el.scrollWidth <= el.clientWidth)).toBe(true);
}

test("save twice, restore the first version, see it on the public page, then reset to the default", async ({
  page,
}) => {
  // Unique texts, so a repeated run on the same server never finds an earlier run's versions.
  const run = Math.random().toString(36).slice(2, 8);
  const first = `Stone walls that outlast us all (${run})`;
  const second = `Second thoughts on stone (${run})`;
  const section = await openHomepageEditor(page);
  await save(page, first);
  await save(page, second);

  await section.getByRole("button", { name: "History of Hero Title" }).click();
  const history = page.getByRole("dialog", { name: "History" });
  await expect(history).toBeVisible();
  const version = history.getByRole("listitem").filter({ hasText: first });
  await expect(version).toHaveCount(1);
  // Newest first: the first text is the newest earlier version (the second is current, so not listed).
  await expect(history.getByRole("listitem").first()).toContainText(first);
  await expect(version).toContainText(/^[A-Z][a-z]+ \d{1,2}(st|nd|rd|th), \d{4} at \d{1,2}:\d\d (AM|PM)/);
  await expectFitsViewport(page);
  await expectNoAxeViolations(page, "history dialog");

  await version.getByRole("button", { name: "Restore" }).click();
  const confirm = page.getByRole("dialog", { name: "Restore this version?" });
  await expect(confirm.getByRole("region", { name: "Text of this version" })).toHaveText(first);
  await expectFitsViewport(page);
  await confirm.getByRole("button", { name: "Restore" }).click();
  await expectToast(page, "Version Restored", "The website now shows the restored text.");
  await expect(page.getByRole("dialog")).toHaveCount(0);
  await expect(section.getByLabel("Content")).toHaveValue(first);

  await page.goto("/");
  await expect(page.getByRole("heading", { level: 1 })).toHaveText(first);

  // The restore replaced the second text, which is kept: the restore can be undone too.
  await page.goto("/admin?view=content:homepage");
  await section.getByRole("button", { name: "History of Hero Title" }).click();
  await expect(history.getByRole("listitem").first()).toContainText(second);

  await history.getByRole("button", { name: "Reset to default" }).click();
  const reset = page.getByRole("dialog", { name: "Reset to default?" });
  await expect(reset.getByRole("region", { name: "Built-in text" })).toHaveText(defaultContentFor("hero.title"));
  await reset.getByRole("button", { name: "Reset to default" }).click();
  await expectToast(page, "Default Restored", "The website now shows the built-in text.");
  await expect(section.getByLabel("Content")).toHaveValue(defaultContentFor("hero.title"));

  await page.goto("/");
  await expect(page.getByRole("heading", { level: 1 })).toHaveText(defaultContentFor("hero.title"));
});
