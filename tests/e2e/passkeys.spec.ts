// @phone-only: it sets its own phone-sized screen
import { test, expect, type Page } from "@playwright/test";
import { CHROMIUM_FLAGS, TEST_BROWSER_PATH } from "../support/chromium";
import { createSoftwareAuthenticator } from "../support/software-authenticator";
import { freePort, startTestServer, TEST_ADMIN, type TestServer } from "../support/test-server";
import { expectNoAxeViolations, expectToast } from "./admin-helpers";

/** What a passkey is, in the owner's words, beside the button and in the Account view. */
const PASSKEY_WORDS = "Passkey: sign in with your fingerprint or face instead of typing the password.";

/**
 * Passkeys in real Chromium with its virtual authenticator (resident
 * keys, user verification), at phone size. Passkeys need a domain name, so
 * this server's SITE_URL is http://localhost:PORT (the one plain-http host
 * browsers allow them on) and the browser visits localhost, which this
 * file's Chromium may resolve (the shared flags map every other name away).
 */
test.use({
  viewport: { width: 375, height: 812 },
  isMobile: true,
  hasTouch: true,
  launchOptions: {
    executablePath: TEST_BROWSER_PATH,
    args: CHROMIUM_FLAGS.map((flag) =>
      flag.startsWith("--host-resolver-rules=") ? `${flag}, EXCLUDE localhost` : flag,
    ),
  },
});

let server: TestServer;
let site: string;
test.beforeAll(async () => {
  const port = await freePort();
  site = `http://localhost:${port}`;
  server = await startTestServer({ port, env: { SITE_URL: site } });
});
test.afterAll(async () => {
  await server?.stop();
});

async function addVirtualAuthenticator(page: Page) {
  const cdp = await page.context().newCDPSession(page);
  await cdp.send("WebAuthn.enable");
  const { authenticatorId } = await cdp.send("WebAuthn.addVirtualAuthenticator", {
    options: {
      protocol: "ctap2",
      transport: "internal",
      hasResidentKey: true,
      hasUserVerification: true,
      isUserVerified: true,
      automaticPresenceSimulation: true,
    },
  });
  return { cdp, authenticatorId };
}

async function signInWithPassword(page: Page) {
  await page.goto(`${site}/admin`);
  await page.getByLabel("Username").fill(TEST_ADMIN.username);
  await page.getByLabel("Password").fill(TEST_ADMIN.password);
  await page.getByRole("button", { name: "Sign In", exact: true }).click();
  await expect(page.getByRole("heading", { name: "Website Management" })).toBeVisible();
}

/** The dashboard's "Your account" row opens the Account view. */
async function openAccount(page: Page) {
  await page.getByRole("link", { name: /^Your account/ }).click();
  await expect(page.getByRole("heading", { level: 1, name: "Your Account" })).toBeVisible();
}

/** Logout (which goes to the dashboard's Logout: back there first), then back to the login page. */
async function signOut(page: Page) {
  if (await page.getByRole("button", { name: "Back to Dashboard" }).count())
    await page.getByRole("button", { name: "Back to Dashboard" }).click();
  await page.getByRole("button", { name: "Logout" }).click();
  await page.waitForURL(`${site}/`);
  await page.goto(`${site}/admin`);
}

test("add a passkey, sign out, sign in with it, remove it", async ({ page }) => {
  const errors: string[] = [];
  page.on("pageerror", (error) => errors.push(error.message));
  const { cdp, authenticatorId } = await addVirtualAuthenticator(page);

  await signInWithPassword(page);
  await openAccount(page);
  const account = page.getByRole("region", { name: "Your Account" });
  // The word is explained where the owner meets it.
  await expect(account.getByText(PASSKEY_WORDS, { exact: true })).toBeVisible();
  await account.getByRole("button", { name: "Add a passkey" }).click();
  const dialog = page.getByRole("dialog", { name: "Add a passkey" });
  // Signed in a moment ago, and the password is asked all the same.
  await expectNoAxeViolations(page, "the Add a passkey dialog");
  await dialog.getByLabel("Current password").fill(TEST_ADMIN.password);
  await dialog.getByLabel("Name").fill("Mark's phone");
  await dialog.getByRole("button", { name: "Add Passkey" }).click();
  await expectToast(page, "Passkey Added", /Mark's phone/);
  const list = account.getByRole("list", { name: "Your passkeys" });
  await expect(list.getByRole("listitem")).toHaveCount(1);
  await expect(list).toContainText("Mark's phone");
  await expect(list).toContainText("Not used yet");
  await expectNoAxeViolations(page, "the Account card with a passkey");
  const { credentials } = await cdp.send("WebAuthn.getCredentials", { authenticatorId });
  expect(credentials).toHaveLength(1);
  expect(credentials[0]!.isResidentCredential).toBe(true);
  expect(credentials[0]!.rpId).toBe("localhost");

  // Autofill (conditional mediation): the login page offers the passkey in the username field's
  // suggestions; the virtual authenticator picks it as the owner would, and that signs in.
  await signOut(page);
  await expect(page.getByRole("heading", { name: "Website Management" })).toBeVisible();
  await openAccount(page);
  await expect(list).toContainText("Last used");

  // The button: this browser now offers no autofill, so only the button can sign in.
  await page.addInitScript(() => {
    PublicKeyCredential.isConditionalMediationAvailable = () => Promise.resolve(false);
  });
  await signOut(page);
  await expect(page.getByLabel("Username")).toHaveAttribute("autocomplete", "username webauthn");
  await expectNoAxeViolations(page, "the login page with the passkey button");
  // One touch: no username, no password.
  await page.getByRole("button", { name: "Sign in with a passkey" }).click();
  await expect(page.getByRole("heading", { name: "Website Management" })).toBeVisible();

  await openAccount(page);
  await list.getByRole("button", { name: "Remove Mark's phone" }).click();
  const removal = page.getByRole("dialog", { name: "Remove this passkey?" });
  await expectNoAxeViolations(page, "the Remove this passkey dialog");
  await removal.getByRole("button", { name: "Remove Passkey" }).click();
  await expect(removal.getByLabel("Current password")).toHaveAccessibleDescription(
    "Enter your current password, or confirm with a passkey",
  );
  await removal.getByLabel("Current password").fill(TEST_ADMIN.password);
  await removal.getByRole("button", { name: "Remove Passkey" }).click();
  await expectToast(page, "Passkey Removed");
  await expect(list).toHaveCount(0);

  // The phone still holds it, but the site no longer knows it: refused with a clear message.
  await signOut(page);
  await page.getByRole("button", { name: "Sign in with a passkey" }).click();
  await expect(page.getByRole("alert").filter({ hasText: "not one of this site's" })).toBeVisible();
  await expect(page.getByRole("heading", { name: "Website Management" })).toHaveCount(0);
  expect(errors).toEqual([]);
});

test("sign out everywhere removes a planted passkey but keeps the one in use", async ({ page }) => {
  const errors: string[] = [];
  page.on("pageerror", (error) => errors.push(error.message));
  await addVirtualAuthenticator(page);
  // Only the button signs in with a passkey here (no autofill), so the steps are the same every time.
  await page.addInitScript(() => {
    PublicKeyCredential.isConditionalMediationAvailable = () => Promise.resolve(false);
  });
  await signInWithPassword(page);
  await openAccount(page);
  const account = page.getByRole("region", { name: "Your Account" });
  await account.getByRole("button", { name: "Add a passkey" }).click();
  const adding = page.getByRole("dialog", { name: "Add a passkey" });
  await adding.getByLabel("Current password").fill(TEST_ADMIN.password);
  await adding.getByLabel("Name").fill("Mark's phone");
  await adding.getByRole("button", { name: "Add Passkey" }).click();
  await expectToast(page, "Passkey Added", /Mark's phone/);

  // Someone else's passkey, added with this session (their own authenticator, over the API).
  const theirs = createSoftwareAuthenticator({ origin: site, rpId: "localhost" });
  const begun = await page.request.post(`${site}/api/admin/passkeys/options`, {
    data: { currentPassword: TEST_ADMIN.password },
  });
  expect(begun.status()).toBe(200);
  const planted = await page.request.post(`${site}/api/admin/passkeys`, {
    data: { response: theirs.register((await begun.json()).options), name: "Not mine" },
  });
  expect(planted.status()).toBe(201);

  // The owner signs in with their own passkey, and signs out everywhere, removing the other one.
  await signOut(page);
  await page.getByRole("button", { name: "Sign in with a passkey" }).click();
  await expect(page.getByRole("heading", { name: "Website Management" })).toBeVisible();
  await openAccount(page);
  await account.getByRole("button", { name: "Sign Out Everywhere" }).click();
  const dialog = page.getByRole("dialog", { name: "Sign out everywhere?" });
  const listed = dialog.getByRole("list", { name: "Passkeys that can sign in" }).getByRole("listitem");
  await expect(listed).toHaveCount(2);
  await expect(listed.nth(0)).toContainText(/Mark's phone \(you signed in with this one\)Added .+ · Last used /);
  await expect(listed.nth(1)).toContainText(/Not mine.*Not used yet/);
  await dialog.getByRole("checkbox", { name: "Also remove the other passkey (keeps “Mark's phone”)" }).check();
  await expectNoAxeViolations(page, "the Sign out everywhere dialog with its passkeys");
  await dialog.getByLabel("Current password").fill(TEST_ADMIN.password);
  await dialog.getByRole("button", { name: "Sign Out Everywhere" }).click();
  await expect(page.getByLabel("Username")).toBeVisible();

  // Theirs no longer signs in; the owner's still does.
  const stranger = await page.request.post(`${site}/api/login/passkey/options`);
  const refused = await page.request.post(`${site}/api/login/passkey`, {
    data: { response: theirs.authenticate(await stranger.json()) },
  });
  expect(refused.status()).toBe(401);
  await page.getByRole("button", { name: "Sign in with a passkey" }).click();
  await expect(page.getByRole("heading", { name: "Website Management" })).toBeVisible();
  await openAccount(page);
  const list = account.getByRole("list", { name: "Your passkeys" });
  await expect(list.getByRole("listitem")).toHaveCount(1);
  await expect(list).toContainText("Mark's phone");
  expect(errors).toEqual([]);
});

test("the login page shows no passkey error until the owner presses 'Sign in with a passkey'", async ({ page }) => {
  // A phone that can hold passkeys, but none for this site: the browser's silent offer in the username
  // field's suggestions (conditional mediation) ends at once, refused, without the owner doing anything.
  await addVirtualAuthenticator(page);
  await page.addInitScript(() => {
    const get = navigator.credentials.get.bind(navigator.credentials);
    navigator.credentials.get = (options?: CredentialRequestOptions) => {
      const answer = get(options);
      if (options?.mediation === "conditional") {
        answer.catch((error: Error) => Object.assign(window, { silentOfferEnded: error.name }));
      }
      return answer;
    };
  });
  await page.goto(`${site}/admin`);
  await expect
    .poll(() => page.evaluate(() => (window as { silentOfferEnded?: string }).silentOfferEnded))
    .toBe("NotAllowedError");
  // Two frames on, the page has had its chance to react.
  await page.evaluate(() => new Promise((resolve) => requestAnimationFrame(() => requestAnimationFrame(resolve))));
  await expect(page.getByRole("button", { name: "Sign in with a passkey" })).toBeVisible();
  await expect(page.getByText(PASSKEY_WORDS, { exact: true })).toBeVisible();
  await expect(page.getByRole("alert")).toHaveCount(0);

  // Pressed: now a failure is the owner's to know about.
  await page.getByRole("button", { name: "Sign in with a passkey" }).click();
  await expect(page.getByRole("alert")).toHaveText("The passkey prompt was closed or timed out. Please try again.");
});

test("an IP-address SITE_URL hides the passkey buttons and the dashboard says why", async ({ browser }) => {
  // The suite's usual server set-up: SITE_URL http://127.0.0.1:PORT.
  const ipServer = await startTestServer();
  const context = await browser.newContext({ viewport: { width: 375, height: 812 }, isMobile: true });
  try {
    const page = await context.newPage();
    await page.goto(`${ipServer.url}/admin`);
    await expect(page.getByRole("button", { name: "Sign In", exact: true })).toBeVisible();
    await page.getByLabel("Username").fill(TEST_ADMIN.username);
    await page.getByLabel("Password").fill(TEST_ADMIN.password);
    await expect(page.getByRole("button", { name: "Sign in with a passkey" })).toHaveCount(0);
    await page.getByRole("button", { name: "Sign In", exact: true }).click();
    await openAccount(page);
    const account = page.getByRole("region", { name: "Your Account" });
    const note = account.getByRole("note");
    await expect(note).toContainText("Passkeys cannot be used at this website's address yet.");
    await note.getByText("Details for whoever runs your website").click();
    await expect(note.getByText(/is an IP address/)).toBeVisible();
    await expect(account.getByRole("button", { name: "Add a passkey" })).toHaveCount(0);
  } finally {
    await context.close();
    await ipServer.stop();
  }
});
