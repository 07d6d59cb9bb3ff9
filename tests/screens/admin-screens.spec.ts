import fs from "node:fs/promises";
import path from "node:path";
import sharp from "sharp";
import { signInApi } from "../support/sign-in-api";
import { ADMIN_VIEWS, sendEnquiryWithPhoto } from "../e2e/admin-screens";
import { expect, test } from "../e2e/fixtures";

// The dashboard and each of its sub-views on the owner's 390 × 844 phone, as full-page PNGs in
// docs/screens/ (refreshed by `npm run screens`; docs/screens/README.md says how to read a change).

const SCREENS_DIR = path.resolve(import.meta.dirname, "../../docs/screens");

test.use({ serverSetup: { name: "screens", seed: { galleries: { traditional: 3, homepage: 2 } } } });

test.beforeAll(async () => {
  await fs.mkdir(SCREENS_DIR, { recursive: true });
});

test.beforeEach(async ({ page }) => {
  await signInApi(page.request);
  const inbox = (await (await page.request.get("/api/admin/contact-submissions/summary")).json()) as { total: number };
  if (inbox.total === 0) await sendEnquiryWithPhoto(page.request);
});

for (const [index, screen] of ADMIN_VIEWS.entries()) {
  test(`${screen.name}`, async ({ page }) => {
    await screen.open(page);
    // Images loaded, fonts ready, nothing moving.
    await page.evaluate(async () => {
      await document.fonts.ready;
      await Promise.all(
        [...document.images].map((image) => (image.complete ? null : image.decode().catch(() => null))),
      );
    });
    await expect(page.locator("[data-testid='photo-loading']")).toHaveCount(0);
    const shot = await page.screenshot({ fullPage: true, animations: "disabled", caret: "hide" });
    // A palette PNG: a few tens of kilobytes a screen, kept in git.
    const file = path.join(SCREENS_DIR, `${String(index + 1).padStart(2, "0")}-${screen.name}.png`);
    await sharp(shot).png({ palette: true, quality: 90, effort: 8 }).toFile(file);
  });
}
