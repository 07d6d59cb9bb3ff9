// @phone-only: the owner's flow on the phone; its checks never look at the layout
import type { Page } from "@playwright/test";
import { editorSection, hydrated, openView } from "./admin-helpers";
import { signInApi } from "../support/sign-in-api";
import { expect, test } from "./fixtures";

/** The text editor never overwrites real text with the default, and never drops unsaved text silently. */

async function openFooterEditor(page: Page) {
  await signInApi(page.request);
  await page.goto("/admin");
  await expect(page.getByRole("heading", { level: 1, name: "Website Management" })).toBeVisible();
  await hydrated(page);
  await openView(page, "Footer", "Content Editor");
  const field = editorSection(page, "Footer Description").getByLabel("Content");
  await expect(field).toBeEnabled();
  return field;
}

const discardDialog = (page: Page) => page.getByRole("dialog", { name: "Discard unsaved changes?" });

test.describe("a section that fails to load", () => {
  test("shows an error with Retry, keeps Save disabled, and loads the real text on Retry", async ({ page }) => {
    await signInApi(page.request);
    await page.request.put("/api/admin/content/footer.description", { data: { content: "The real footer text." } });
    let failures = 1;
    await page.route("**/api/content/footer.description", async (route) => {
      if (failures-- > 0)
        await route.fulfill({
          status: 500,
          contentType: "application/json",
          body: '{"message":"Something went wrong"}',
        });
      else await route.continue();
    });
    await page.goto("/admin?view=content:footer");
    const section = editorSection(page, "Footer Description");
    const alert = section.getByRole("alert");
    await expect(alert).toContainText("could not be loaded");
    await expect(section.getByLabel("Content")).toBeDisabled();
    await expect(section.getByLabel("Content")).toHaveValue("");
    await expect(section.getByRole("button", { name: "Save Changes" })).toBeDisabled();

    await alert.getByRole("button", { name: "Retry" }).click();
    await expect(section.getByLabel("Content")).toHaveValue("The real footer text.");
    await expect(section.getByLabel("Content")).toBeEnabled();
    await expect(section.getByRole("button", { name: "Save Changes" })).toBeEnabled();
    await expect(section.getByRole("alert")).toHaveCount(0);
  });
});

test.describe("unsaved text", () => {
  test("the Back button asks first; Keep editing keeps the text, Discard leaves", async ({ page }) => {
    const field = await openFooterEditor(page);
    await field.fill("An edit I have not saved");
    await page.getByRole("button", { name: "Back to Dashboard" }).click();
    await expect(discardDialog(page)).toBeVisible();
    await discardDialog(page).getByRole("button", { name: "Keep editing" }).click();
    await expect(discardDialog(page)).toHaveCount(0);
    await expect(field).toHaveValue("An edit I have not saved");
    await expect(page).toHaveURL(/view=content(:|%3A)footer/);

    await page.getByRole("button", { name: "Back to Dashboard" }).click();
    await discardDialog(page).getByRole("button", { name: "Discard changes" }).click();
    await expect(page.getByRole("heading", { level: 1, name: "Website Management" })).toBeVisible();
    await expect(page).toHaveURL(/\/admin$/);
  });

  test("the browser's Back (a phone's back gesture) asks too, and the view stays until the owner discards", async ({
    page,
  }) => {
    const field = await openFooterEditor(page);
    await field.fill("Another unsaved edit");
    await page.goBack();
    await expect(discardDialog(page)).toBeVisible();
    await expect(page).toHaveURL(/view=content(:|%3A)footer/);
    // Behind the modal dialog (hidden from the accessibility tree meanwhile), the text is still there.
    await expect(page.locator('textarea[name="content"]')).toHaveValue("Another unsaved edit");
    await discardDialog(page).getByRole("button", { name: "Discard changes" }).click();
    await expect(page.getByRole("heading", { level: 1, name: "Website Management" })).toBeVisible();
    await expect(page).toHaveURL(/\/admin$/);
  });

  test("closing the tab asks (beforeunload); with nothing unsaved it does not", async ({ page }) => {
    const field = await openFooterEditor(page);
    const dialogs: string[] = [];
    page.on("dialog", (dialog) => {
      dialogs.push(dialog.type());
      void dialog.dismiss();
    });
    await field.fill("Unsaved when the tab closes");
    await page.close({ runBeforeUnload: true });
    await expect.poll(() => dialogs).toEqual(["beforeunload"]);
    // Dismissed: the page is still open, with the text.
    expect(page.isClosed()).toBe(false);
    await expect(field).toHaveValue("Unsaved when the tab closes");

    // Saved: closing no longer asks.
    await editorSection(page, "Footer Description").getByRole("button", { name: "Save Changes" }).click();
    await expect(editorSection(page, "Footer Description").getByRole("button", { name: "Save Changes" })).toBeEnabled();
    await expect(page.getByText("Content Updated", { exact: true })).toBeVisible();
    await page.close({ runBeforeUnload: true });
    await expect.poll(() => page.isClosed()).toBe(true);
    expect(dialogs).toEqual(["beforeunload"]);
  });

  test("leaving with nothing unsaved asks nothing", async ({ page }) => {
    await openFooterEditor(page);
    await page.getByRole("button", { name: "Back to Dashboard" }).click();
    await expect(page.getByRole("heading", { level: 1, name: "Website Management" })).toBeVisible();
    await expect(discardDialog(page)).toHaveCount(0);
  });
});
