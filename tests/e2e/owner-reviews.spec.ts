import type { Page } from "@playwright/test";
import { signInApi } from "../support/sign-in-api";
import { expectToast, openView, pressUntilAnnounced, sendEnquiry } from "./admin-helpers";
import { OWNER_PHONE } from "./admin-screens";
import { expect, hydrated, isPhone, test } from "./fixtures";

// The owner keeps his customers' reviews from the phone (at 390 × 844; the desktop project at its own
// size), and asks for one from an enquiry in a tap.

test.beforeEach(async ({ page }, testInfo) => {
  if (isPhone(testInfo)) await page.setViewportSize(OWNER_PHONE);
  await signInApi(page.request);
});

/** The home page as served, the same for every request but its CSP nonce. */
const homeHtml = async (page: Page) =>
  (await (await page.request.get("/")).text()).replace(/nonce="[^"]*"/g, 'nonce=""');

async function addReview(page: Page, fields: { quote: string; name: string; town?: string; link?: string }) {
  await page.getByRole("button", { name: "Add Review" }).click();
  const dialog = page.getByRole("dialog", { name: "Add review" });
  await dialog.getByLabel("What the customer said").fill(fields.quote);
  await dialog.getByLabel("Name").fill(fields.name);
  if (fields.town) await dialog.getByLabel("Town (optional)").fill(fields.town);
  if (fields.link) await dialog.getByLabel("Link to the original (optional)").fill(fields.link);
  await dialog.getByLabel("Job (optional)").selectOption("Traditional Stonework");
  await dialog.getByRole("button", { name: "Save" }).click();
  await expectToast(page, "Success", "Review added successfully");
  await expect(dialog).toHaveCount(0);
}

test.describe("customer reviews", () => {
  test.use({ serverSetup: { name: "owner-reviews" } });

  test("adds two, reorders, hides one; / shows them in that order as text; deleting both brings back the spec's page", async ({
    page,
  }) => {
    const specHome = await homeHtml(page);
    const dialogs: string[] = [];
    page.on("dialog", (dialog) => {
      dialogs.push(dialog.message());
      void dialog.accept();
    });

    await page.goto("/admin");
    await hydrated(page);
    await openView(page, "Manage Reviews", "Customer Reviews");
    expect(new URL(page.url()).search).toBe("?view=reviews");
    await expect(page.getByText("No reviews yet")).toBeVisible();

    // A field left empty is refused in place, with the API's own words.
    await page.getByRole("button", { name: "Add Review" }).click();
    await page.getByRole("dialog", { name: "Add review" }).getByRole("button", { name: "Save" }).click();
    await expect(page.getByText("What the customer said is required")).toBeVisible();
    await expect(page.getByLabel("What the customer said")).toBeFocused();
    await page.getByRole("button", { name: "Cancel" }).click();

    await addReview(page, {
      quote: '<script>alert("no")</script> The wall is perfect.',
      name: "Sarah K.",
      town: "Waitara",
      link: "https://g.page/r/cornerstone/review",
    });
    await addReview(page, { quote: "Tidy work, on time.", name: "Tom R." });
    const cards = page.getByRole("list", { name: "Customer Reviews" }).getByRole("listitem");
    await expect(cards).toHaveText([/Sarah K\./, /Tom R\./]);

    // Tom's review first, by its drag handle (the keyboard drives the same drag as a finger or a mouse).
    const liveRegion = page.locator('[id^="DndLiveRegion"]');
    await page.getByRole("button", { name: "Drag to reorder Tom R." }).focus();
    await page.keyboard.press("Space");
    await expect(liveRegion).toContainText("Picked up");
    await pressUntilAnnounced(page, "ArrowUp", liveRegion, "is over position 1 of 2.");
    await page.keyboard.press("Space");
    await expectToast(page, "Success", "Review order updated");
    await expect(cards).toHaveText([/Tom R\./, /Sarah K\./]);

    // A visitor's page beside the admin's.
    const visitor = await page.context().newPage();
    await visitor.goto("/");
    const section = visitor.getByRole("region", { name: "What customers say" });
    await expect(section.getByRole("listitem")).toHaveText([/Tom R\./, /Sarah K\., Waitara, Traditional Stonework/]);
    await expect(
      section.getByText('<script>alert("no")</script> The wall is perfect.', { exact: false }),
    ).toBeVisible();
    const link = section.getByRole("link", { name: "Read it on Google" });
    await expect(link).toHaveAttribute("href", "https://g.page/r/cornerstone/review");
    await expect(link).toHaveAttribute("rel", "nofollow noopener");

    await page.getByRole("button", { name: "Hide Sarah K." }).click();
    await expectToast(page, "Success", "Review hidden from the website");
    await expect(cards.first()).not.toContainText("Hidden");
    await expect(cards.nth(1)).toContainText("Hidden");
    await visitor.reload();
    await expect(section.getByRole("listitem")).toHaveText([/Tom R\./]);

    for (const name of ["Tom R.", "Sarah K."]) {
      await page.getByRole("button", { name: `Delete ${name}` }).click();
      await expectToast(page, "Success", "Review deleted successfully");
    }
    expect(dialogs).toEqual(Array(2).fill("Are you sure you want to delete this review?"));
    await expect(page.getByText("No reviews yet")).toBeVisible();
    expect(await homeHtml(page)).toBe(specHome);
  });

  test("Ask for a review: says where to set the address, then opens the mail app and messages with it; the inbox remembers", async ({
    page,
  }) => {
    await sendEnquiry(page, {
      name: "Aroha Smith",
      email: "aroha@example.nz",
      phone: "027 123 4567",
      message: "Could you quote for a stone wall?",
    });
    await page.goto("/admin?view=submissions");
    const card = page.getByRole("article", { name: "Aroha Smith" });
    await expect(card.getByText(/set “Where customers leave a review” in Edit Website Text/)).toBeVisible();
    await expect(card.getByRole("link", { name: "Ask for a review" })).toHaveCount(0);

    const reviewLink = "https://g.page/r/cornerstone/review";
    expect(
      (await page.request.put("/api/admin/content/contact.reviewLink", { data: { content: reviewLink } })).status(),
    ).toBe(200);
    await page.reload();
    const ask = card.getByRole("link", { name: "Ask for a review" });
    const mailto = new URL((await ask.getAttribute("href"))!);
    expect(mailto.protocol + mailto.pathname).toBe("mailto:aroha@example.nz");
    expect(mailto.search).not.toContain("+");
    expect(decodeURIComponent(mailto.search)).toContain(`Hi Aroha,`);
    expect(decodeURIComponent(mailto.search)).toContain(reviewLink);
    const text = (await card.getByRole("link", { name: "Text", exact: true }).getAttribute("href"))!;
    expect(text.startsWith("sms:0271234567?&body=")).toBe(true);
    expect(decodeURIComponent(text)).toContain(reviewLink);

    // The tap opens the owner's mail app (kept from leaving the page here) and tells the server.
    await page.evaluate(() => document.addEventListener("click", (event) => event.preventDefault()));
    await ask.click();
    await expect(card.getByText(/^Review asked for on \w+ \d+\w\w, \d{4}$/)).toBeVisible();
    await page.reload();
    await expect(card.getByText(/^Review asked for on/)).toBeVisible();
  });
});
