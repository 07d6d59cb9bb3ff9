import {
  WebAuthnAbortService,
  browserSupportsWebAuthn,
  browserSupportsWebAuthnAutofill,
  startAuthentication,
  startRegistration,
  type AuthenticationResponseJSON,
  type PublicKeyCredentialCreationOptionsJSON,
  type PublicKeyCredentialRequestOptionsJSON,
} from "@simplewebauthn/browser";
import type { CurrentUser } from "~/auth/login-schema";
import type { PasskeyListItem } from "~/auth/sign-in-methods";
import { apiRequest } from "~/lib/api-client";

/** The browser's side of the passkey ceremonies (decision 0053), with @simplewebauthn/browser. */
export const SIGN_IN_METHODS_KEY = ["/api/admin/sign-in-methods"] as const;

/** What a passkey is, wherever the word appears for the owner. */
export const PASSKEY_EXPLAINED = "Passkey: sign in with your fingerprint or face instead of typing the password.";

export const supportsPasskeys = () => typeof window !== "undefined" && browserSupportsWebAuthn();

/** What to tell the owner when the browser's prompt failed (closed, timed out, not allowed). */
export function passkeyPromptProblem(error: unknown): string | null {
  const name = (error as { name?: string; cause?: { name?: string } })?.name;
  const cause = (error as { cause?: { name?: string } })?.cause?.name;
  if (name === "AbortError" || cause === "AbortError") return null;
  if (name === "NotAllowedError" || cause === "NotAllowedError" || name === "WebAuthnError") {
    return "The passkey prompt was closed or timed out. Please try again.";
  }
  return null;
}

/** Proof asked at each change to the sign-in: the current password, or one of the owner's passkeys. */
export type OwnerProof = { currentPassword: string } | { usePasskey: true };

/** The request body the server takes as proof: `{ currentPassword }`, or `{ passkey }` (an answer to a fresh challenge). */
export async function proofBody(
  proof: OwnerProof,
): Promise<{ currentPassword: string } | { passkey: AuthenticationResponseJSON }> {
  return "usePasskey" in proof ? { passkey: await confirmWithPasskey() } : { currentPassword: proof.currentPassword };
}

export async function addPasskey(input: { proof: OwnerProof; name?: string }): Promise<PasskeyListItem> {
  const begun = (await (
    await apiRequest("POST", "/api/admin/passkeys/options", await proofBody(input.proof))
  ).json()) as {
    options: PublicKeyCredentialCreationOptionsJSON;
  };
  const response = await startRegistration({ optionsJSON: begun.options });
  return (await (
    await apiRequest("POST", "/api/admin/passkeys", { response, name: input.name || undefined })
  ).json()) as PasskeyListItem;
}

export async function removePasskey(input: { id: string; proof: OwnerProof }): Promise<void> {
  await apiRequest("DELETE", `/api/admin/passkeys/${encodeURIComponent(input.id)}`, await proofBody(input.proof));
}

/** `autofill`: conditional mediation, waiting until a passkey is picked; `onPicked` runs before the server checks. */
export async function signInWithPasskey(
  options: { autofill?: boolean; onPicked?: () => void } = {},
): Promise<CurrentUser | null> {
  if (options.autofill && !(await browserSupportsWebAuthnAutofill())) return null;
  const optionsJSON = (await (
    await apiRequest("POST", "/api/login/passkey/options")
  ).json()) as PublicKeyCredentialRequestOptionsJSON;
  const response = await startAuthentication({ optionsJSON, useBrowserAutofill: options.autofill ?? false });
  options.onPicked?.();
  return (await (await apiRequest("POST", "/api/login/passkey", { response })).json()) as CurrentUser;
}

/** Stops a waiting autofill request (the login page is leaving, or the button was pressed). */
export const cancelPasskeyAutofill = () => WebAuthnAbortService.cancelCeremony();

/** A passkey's answer to a fresh challenge, proving it is the owner before a change. */
export async function confirmWithPasskey(): Promise<AuthenticationResponseJSON> {
  const optionsJSON = (await (
    await apiRequest("POST", "/api/admin/confirm/passkey/options")
  ).json()) as PublicKeyCredentialRequestOptionsJSON;
  return startAuthentication({ optionsJSON });
}
