import { isIP } from "node:net";
import type {
  AuthenticationResponseJSON,
  PublicKeyCredentialCreationOptionsJSON,
  PublicKeyCredentialRequestOptionsJSON,
  RegistrationResponseJSON,
} from "@simplewebauthn/server";
import type { Database } from "~/db/database.server";
import { identity } from "~/identity";
import type { Clock } from "~/lib/clock";
import type { CurrentUser } from "./login-schema";
import { beginCeremony, readCeremony, type CeremonyKind } from "./ceremonies.server";

/** Loaded at the first ceremony: about 250 modules every server start would read otherwise. */
const webAuthn = () => import("@simplewebauthn/server");

/** Passkeys (decision 0053): discoverable, bound to SITE_URL's host, user verification required, no attestation. */
export type PasskeySite = { available: true; rpID: string; origin: string } | { available: false; reason: string };

/** Whether passkeys can work for this SITE_URL, and if not, why (shown on the dashboard). */
export function passkeySiteFor(siteUrl: string): PasskeySite {
  const url = new URL(siteUrl);
  const host = url.hostname.replace(/^\[|\]$/g, "");
  if (isIP(host)) {
    return {
      available: false,
      reason: `Passkeys are off: SITE_URL (${url.origin}) is an IP address, and browsers only allow passkeys for a domain name. Set SITE_URL to the site's https:// address.`,
    };
  }
  if (url.protocol !== "https:" && host !== "localhost") {
    return {
      available: false,
      reason: `Passkeys are off: SITE_URL (${url.origin}) is plain http, and browsers only allow passkeys over https. Serve the site over https and set SITE_URL to its https:// address.`,
    };
  }
  return { available: true, rpID: host, origin: url.origin };
}

/** A refused ceremony; the message is shown as it is. */
export class PasskeyRefusal extends Error {
  override name = "PasskeyRefusal";
}

export const PASSKEY_MESSAGES = {
  expired: "The passkey request expired (after 5 minutes). Please try again.",
  unknownCeremony:
    "This passkey answer was already used, or the request was not started in this browser. Please try again.",
  unknownPasskey:
    "This passkey is not one of this site's: it may be for another site, or it was removed. Sign in with your password.",
  otherSite: "This passkey answer was made for another site, so it was refused.",
  mismatch: "This passkey answer does not match the request (it may be a replayed answer). Please try again.",
  counter: "This passkey's signature counter went backwards, so it may have been copied. Remove it and add it again.",
  notVerified: "The passkey could not be verified. Please try again.",
} as const;

/** The library's reason, in words the owner can act on. */
function refusalFor(error: unknown): PasskeyRefusal {
  const message = error instanceof Error ? error.message : "";
  if (/origin|RP ID/i.test(message)) return new PasskeyRefusal(PASSKEY_MESSAGES.otherSite);
  if (/challenge/i.test(message)) return new PasskeyRefusal(PASSKEY_MESSAGES.mismatch);
  if (/counter/i.test(message)) return new PasskeyRefusal(PASSKEY_MESSAGES.counter);
  return new PasskeyRefusal(PASSKEY_MESSAGES.notVerified);
}

type Services = { db: Database; clock: Clock; env: { SITE_URL: string } };

function siteOf(services: Services) {
  const site = passkeySiteFor(services.env.SITE_URL);
  if (!site.available) throw new PasskeyRefusal(site.reason);
  return site;
}

/** What the library checks an answer against: the ceremony's challenge, exactly this site's origin and RP ID, user verification. */
export function expectedAnswer(site: { origin: string; rpID: string }, challenge: string) {
  return {
    expectedChallenge: challenge,
    expectedOrigin: site.origin,
    expectedRPID: site.rpID,
    requireUserVerification: true,
  };
}

/** The library's check of an answer (expectedAnswer); what it throws becomes a refusal. */
async function verifiedForSite<T>(
  site: { origin: string; rpID: string },
  ceremony: { challenge: string | null },
  verify: (expected: ReturnType<typeof expectedAnswer>) => Promise<T>,
): Promise<T> {
  try {
    return await verify(expectedAnswer(site, ceremony.challenge!));
  } catch (error) {
    throw refusalFor(error);
  }
}

async function challengeOf(services: Services, kind: CeremonyKind, token: string | undefined) {
  const found = await readCeremony(services, kind, token, { take: true });
  if (found.status === "expired") throw new PasskeyRefusal(PASSKEY_MESSAGES.expired);
  if (found.status === "unknown" || !found.ceremony.challenge)
    throw new PasskeyRefusal(PASSKEY_MESSAGES.unknownCeremony);
  return found.ceremony;
}

export type PasskeySummary = { id: string; name: string; createdAt: string; lastUsedAt: string | null };

export async function listPasskeys(services: { db: Database }, userId: string): Promise<PasskeySummary[]> {
  const rows = await services.db
    .selectFrom("passkeys")
    .select(["id", "name", "created_at", "last_used_at"])
    .where("user_id", "=", userId)
    .orderBy("created_at")
    .execute();
  return rows.map((row) => ({ id: row.id, name: row.name, createdAt: row.created_at, lastUsedAt: row.last_used_at }));
}

/** Options for the browser's "create a passkey" prompt; the token goes in the ceremony's cookie. */
export async function beginPasskeyRegistration(
  services: Services,
  user: CurrentUser,
): Promise<{ token: string; options: PublicKeyCredentialCreationOptionsJSON }> {
  const site = siteOf(services);
  const existing = await services.db
    .selectFrom("passkeys")
    .select(["id", "transports"])
    .where("user_id", "=", user.id)
    .execute();
  const { generateRegistrationOptions } = await webAuthn();
  const options = await generateRegistrationOptions({
    rpName: identity.businessName,
    rpID: site.rpID,
    userName: user.username,
    userID: new TextEncoder().encode(user.id),
    attestationType: "none",
    excludeCredentials: existing.map((row) => ({ id: row.id, transports: JSON.parse(row.transports) as string[] })),
    authenticatorSelection: { residentKey: "required", userVerification: "required" },
  });
  const token = await beginCeremony(services, {
    kind: "passkey-registration",
    challenge: options.challenge,
    userId: user.id,
  });
  return { token, options };
}

/** Checks the browser's answer and stores the new passkey under `name`. */
export async function finishPasskeyRegistration(
  services: Services,
  user: CurrentUser,
  input: { token: string | undefined; response: RegistrationResponseJSON; name: string },
): Promise<PasskeySummary> {
  const site = siteOf(services);
  const ceremony = await challengeOf(services, "passkey-registration", input.token);
  if (ceremony.userId !== user.id) throw new PasskeyRefusal(PASSKEY_MESSAGES.unknownCeremony);
  const { verifyRegistrationResponse } = await webAuthn();
  const verification = await verifiedForSite(site, ceremony, (expected) =>
    verifyRegistrationResponse({ response: input.response, ...expected }),
  );
  if (!verification.verified) throw new PasskeyRefusal(PASSKEY_MESSAGES.notVerified);
  const { credential } = verification.registrationInfo;
  const now = services.clock.now().toISOString();
  await services.db
    .insertInto("passkeys")
    .values({
      id: credential.id,
      user_id: user.id,
      name: input.name,
      public_key: Buffer.from(credential.publicKey).toString("base64url"),
      counter: credential.counter,
      transports: JSON.stringify(credential.transports ?? []),
      created_at: now,
      last_used_at: null,
    })
    .execute();
  return { id: credential.id, name: input.name, createdAt: now, lastUsedAt: null };
}

/** Options for "sign in with a passkey" (or confirming with one): any of this site's passkeys may answer. */
export async function beginPasskeyAssertion(
  services: Services,
  kind: "passkey-sign-in" | "passkey-confirmation",
): Promise<{ token: string; options: PublicKeyCredentialRequestOptionsJSON }> {
  const site = siteOf(services);
  const { generateAuthenticationOptions } = await webAuthn();
  const options = await generateAuthenticationOptions({ rpID: site.rpID, userVerification: "required" });
  const token = await beginCeremony(services, { kind, challenge: options.challenge });
  return { token, options };
}

/** Checks a passkey's answer (challenge, origin, RP ID, user verification, signature), storing the new counter. */
export async function finishPasskeyAssertion(
  services: Services,
  kind: "passkey-sign-in" | "passkey-confirmation",
  input: { token: string | undefined; response: AuthenticationResponseJSON },
): Promise<{ user: CurrentUser; passkeyId: string; passkeyName: string }> {
  const site = siteOf(services);
  const ceremony = await challengeOf(services, kind, input.token);
  const passkey = await services.db
    .selectFrom("passkeys")
    .innerJoin("users", "users.id", "passkeys.user_id")
    .select([
      "passkeys.id",
      "passkeys.name",
      "passkeys.public_key",
      "passkeys.counter",
      "passkeys.transports",
      "users.id as user_id",
      "users.username",
    ])
    .where("passkeys.id", "=", input.response.id)
    .executeTakeFirst();
  if (!passkey) throw new PasskeyRefusal(PASSKEY_MESSAGES.unknownPasskey);
  const storedCounter = Number(passkey.counter);
  const { verifyAuthenticationResponse } = await webAuthn();
  const verification = await verifiedForSite(site, ceremony, (expected) =>
    verifyAuthenticationResponse({
      response: input.response,
      ...expected,
      credential: {
        id: passkey.id,
        publicKey: Buffer.from(passkey.public_key, "base64url"),
        counter: storedCounter,
        transports: JSON.parse(passkey.transports) as string[],
      },
    }),
  );
  if (!verification.verified) throw new PasskeyRefusal(PASSKEY_MESSAGES.notVerified);
  // Conditional on the counter read above: two answers racing on two instances cannot both move it.
  const stored = await services.db
    .updateTable("passkeys")
    .set({ counter: verification.authenticationInfo.newCounter, last_used_at: services.clock.now().toISOString() })
    .where("id", "=", passkey.id)
    .where("counter", "=", storedCounter)
    .executeTakeFirst();
  if (Number(stored.numUpdatedRows) !== 1) throw new PasskeyRefusal(PASSKEY_MESSAGES.counter);
  return {
    user: { id: passkey.user_id, username: passkey.username },
    passkeyId: passkey.id,
    passkeyName: passkey.name,
  };
}

/** Removes one passkey; its name, or null when there was none. */
export async function removePasskey(services: { db: Database }, userId: string, id: string): Promise<string | null> {
  const row = await services.db
    .deleteFrom("passkeys")
    .where("id", "=", id)
    .where("user_id", "=", userId)
    .returning("name")
    .executeTakeFirst();
  return row?.name ?? null;
}

/** "Sign out everywhere": removes every passkey of the user but `keepId` (the one this session signed in with); their names. */
export async function removeOtherPasskeys(
  services: { db: Database },
  userId: string,
  keepId: string | null,
): Promise<string[]> {
  let removed = services.db.deleteFrom("passkeys").where("user_id", "=", userId);
  if (keepId) removed = removed.where("id", "!=", keepId);
  return (await removed.returning("name").execute()).map((row) => row.name);
}

/** Removes every passkey (`npm run admin:password -- --reset-2fa`). */
export async function removeEveryPasskey(services: { db: Database }): Promise<number> {
  const result = await services.db.deleteFrom("passkeys").executeTakeFirst();
  return Number(result.numDeletedRows);
}
