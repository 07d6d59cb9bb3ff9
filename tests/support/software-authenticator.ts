import { createHash, generateKeyPairSync, randomBytes, sign, type KeyObject } from "node:crypto";
import { isoCBOR } from "@simplewebauthn/server/helpers";

/**
 * A passkey authenticator in software, for API tests of the WebAuthn
 * ceremonies without a browser (the browser tests use Chromium's own virtual
 * authenticator). It answers like a platform authenticator with "none"
 * attestation: an ES256 key from node:crypto, CBOR from @simplewebauthn's
 * helpers. `origin`/`rpId` can be set to another site's, and `flags` leave out user verification, to test refusals.
 */
const b64url = (bytes: Uint8Array) => Buffer.from(bytes).toString("base64url");
const sha256 = (data: Uint8Array | string) => createHash("sha256").update(data).digest();

/** The authenticator data's flags: an answer without `verified` is one where no PIN or fingerprint was asked. */
export const FLAGS = { present: 0x01, verified: 0x04, attested: 0x40 } as const;

export type SoftwarePasskey = { id: string; privateKey: KeyObject; counter: number; userHandle: string };

export function createSoftwareAuthenticator(site: { origin: string; rpId: string }) {
  const passkeys: SoftwarePasskey[] = [];

  const authenticatorData = (rpId: string, flags: number, counter: number, attested?: Buffer) => {
    const counterBytes = Buffer.alloc(4);
    counterBytes.writeUInt32BE(counter);
    return Buffer.concat([sha256(rpId), Buffer.from([flags]), counterBytes, ...(attested ? [attested] : [])]);
  };
  const clientData = (type: string, challenge: string, origin: string) =>
    Buffer.from(JSON.stringify({ type, challenge, origin, crossOrigin: false }));

  return {
    passkeys,
    /** Answers navigator.credentials.create(): a new resident ES256 credential. */
    register(
      options: { challenge: string; user: { id: string } },
      overrides: { origin?: string; rpId?: string; flags?: number } = {},
    ) {
      const { privateKey, publicKey } = generateKeyPairSync("ec", { namedCurve: "P-256" });
      const jwk = publicKey.export({ format: "jwk" });
      const coseKey = new Map<number, number | Uint8Array>([
        [1, 2],
        [3, -7],
        [-1, 1],
        [-2, Buffer.from(jwk.x!, "base64url")],
        [-3, Buffer.from(jwk.y!, "base64url")],
      ]);
      const credentialId = randomBytes(16);
      const idLength = Buffer.alloc(2);
      idLength.writeUInt16BE(credentialId.length);
      const attested = Buffer.concat([Buffer.alloc(16), idLength, credentialId, Buffer.from(isoCBOR.encode(coseKey))]);
      const authData = authenticatorData(
        overrides.rpId ?? site.rpId,
        overrides.flags ?? FLAGS.present | FLAGS.verified | FLAGS.attested,
        0,
        attested,
      );
      const attestationObject = isoCBOR.encode(
        new Map<string, unknown>([
          ["fmt", "none"],
          ["attStmt", new Map()],
          ["authData", authData],
        ]) as never,
      );
      const passkey = { id: b64url(credentialId), privateKey, counter: 0, userHandle: options.user.id };
      passkeys.push(passkey);
      return {
        id: passkey.id,
        rawId: passkey.id,
        type: "public-key" as const,
        response: {
          clientDataJSON: b64url(clientData("webauthn.create", options.challenge, overrides.origin ?? site.origin)),
          attestationObject: b64url(attestationObject),
          transports: ["internal"],
        },
        clientExtensionResults: {},
        authenticatorAttachment: "platform",
      };
    },
    /** Answers navigator.credentials.get() with a passkey (the first by default), its counter moved on by 1. */
    authenticate(
      options: { challenge: string },
      overrides: { passkey?: SoftwarePasskey; origin?: string; rpId?: string; counter?: number; flags?: number } = {},
    ) {
      const passkey = overrides.passkey ?? passkeys[0];
      if (!passkey) throw new Error("No passkey registered on this software authenticator");
      passkey.counter = overrides.counter ?? passkey.counter + 1;
      const authData = authenticatorData(
        overrides.rpId ?? site.rpId,
        overrides.flags ?? FLAGS.present | FLAGS.verified,
        passkey.counter,
      );
      const clientDataJSON = clientData("webauthn.get", options.challenge, overrides.origin ?? site.origin);
      const signature = sign("sha256", Buffer.concat([authData, sha256(clientDataJSON)]), passkey.privateKey);
      return {
        id: passkey.id,
        rawId: passkey.id,
        type: "public-key" as const,
        response: {
          clientDataJSON: b64url(clientDataJSON),
          authenticatorData: b64url(authData),
          signature: b64url(signature),
          userHandle: passkey.userHandle,
        },
        clientExtensionResults: {},
        authenticatorAttachment: "platform",
      };
    },
  };
}
