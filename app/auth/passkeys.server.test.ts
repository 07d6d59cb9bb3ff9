import fs from "node:fs/promises";
import os from "node:os";
import path from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { migrateToLatest, openDatabase, type Database } from "~/db/database.server";
import { createManualClock } from "~/lib/clock";
import { createSoftwareAuthenticator, FLAGS, type SoftwarePasskey } from "../../tests/support/software-authenticator";
import { ensureAdministrator } from "./auth.server";
import {
  PASSKEY_MESSAGES,
  beginPasskeyAssertion,
  beginPasskeyRegistration,
  expectedAnswer,
  finishPasskeyAssertion,
  finishPasskeyRegistration,
  passkeySiteFor,
} from "./passkeys.server";

/**
 * The rule every passkey answer is checked by, on a live site's SITE_URL: exactly its origin and RP ID,
 * and user verification (a PIN or a fingerprint). The API tests (tests/api/passkeys-api.test.ts) run
 * on http://localhost, so the near misses of a real domain are tried here.
 */
const SITE_URL = "https://stone.example.co.nz";
let dir: string;
let db: Database;
let services: { db: Database; clock: ReturnType<typeof createManualClock>; env: { SITE_URL: string } };
let user: { id: string; username: string };
beforeAll(async () => {
  dir = await fs.mkdtemp(path.join(os.tmpdir(), "cornerstone-passkeys-"));
  db = openDatabase(dir);
  await migrateToLatest(db);
  services = { db, clock: createManualClock("2026-03-02T09:00:00.000Z"), env: { SITE_URL } };
  await ensureAdministrator({ db }, { username: "owner", password: "a long enough password" });
  user = await db.selectFrom("users").select(["id", "username"]).executeTakeFirstOrThrow();
});
afterAll(async () => {
  await db.destroy();
  await fs.rm(dir, { recursive: true, force: true });
});

type Overrides = { origin?: string; rpId?: string; flags?: number };
const authenticator = createSoftwareAuthenticator({ origin: SITE_URL, rpId: "stone.example.co.nz" });

/** The passkey the site last took (the authenticator keeps the refused ones too). */
let stored: SoftwarePasskey | undefined;

async function register(overrides: Overrides = {}) {
  const { token, options } = await beginPasskeyRegistration(services, user);
  const response = authenticator.register(options, overrides);
  const summary = await finishPasskeyRegistration(services, user, {
    token,
    response: response as never,
    name: "Phone",
  });
  stored = authenticator.passkeys.find((passkey) => passkey.id === summary.id);
  return summary;
}

async function signIn(overrides: Overrides = {}) {
  const { token, options } = await beginPasskeyAssertion(services, "passkey-sign-in");
  const response = authenticator.authenticate(options, { passkey: stored, ...overrides });
  return finishPasskeyAssertion(services, "passkey-sign-in", { token, response: response as never });
}

/** Origins and RP IDs a mistake could let in: the plain-http form, the dev server, a port, a sub- or parent domain. */
const NEAR_ORIGINS = [
  "http://stone.example.co.nz",
  "http://localhost:5173",
  "https://stone.example.co.nz:8443",
  "https://www.stone.example.co.nz",
  "https://example.co.nz",
];
const NEAR_RP_IDS = ["localhost", "example.co.nz", "co.nz", "www.stone.example.co.nz"];

describe("a passkey answer", () => {
  it("is checked against exactly the site's origin and RP ID, and must be user-verified", () => {
    const site = passkeySiteFor(SITE_URL);
    expect(site.available && expectedAnswer(site, "the-challenge")).toEqual({
      expectedChallenge: "the-challenge",
      expectedOrigin: "https://stone.example.co.nz",
      expectedRPID: "stone.example.co.nz",
      requireUserVerification: true,
    });
  });

  it("is refused from any other origin or for any other RP ID, at registration and at sign-in", async () => {
    for (const origin of NEAR_ORIGINS) {
      await expect(register({ origin }), origin).rejects.toThrow(PASSKEY_MESSAGES.otherSite);
    }
    for (const rpId of NEAR_RP_IDS) {
      await expect(register({ rpId }), rpId).rejects.toThrow(PASSKEY_MESSAGES.otherSite);
    }
    await expect(register()).resolves.toMatchObject({ name: "Phone" });
    for (const origin of NEAR_ORIGINS) {
      await expect(signIn({ origin }), origin).rejects.toThrow(PASSKEY_MESSAGES.otherSite);
    }
    for (const rpId of NEAR_RP_IDS) {
      await expect(signIn({ rpId }), rpId).rejects.toThrow(PASSKEY_MESSAGES.otherSite);
    }
    await expect(signIn()).resolves.toMatchObject({ user: { username: "owner" } });
  });

  it("is refused without user verification (only touched, no PIN or fingerprint), at registration and at sign-in", async () => {
    await expect(register({ flags: FLAGS.present | FLAGS.attested })).rejects.toThrow(PASSKEY_MESSAGES.notVerified);
    await register();
    await expect(signIn({ flags: FLAGS.present })).rejects.toThrow(PASSKEY_MESSAGES.notVerified);
    await expect(signIn()).resolves.toMatchObject({ user: { username: "owner" } });
  });
});
