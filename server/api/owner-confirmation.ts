import type { Request, Response } from "express";
import { PasskeyRefusal, finishPasskeyAssertion } from "~/auth/passkeys.server";
import type { OwnerConfirmation } from "~/auth/sign-in-methods";
import { checkSignIn } from "~/auth/sign-in.server";
import type { AuthenticationResponseJSON } from "@simplewebauthn/server";
import type { AppServices } from "~/services.server";
import { badRequest } from "../http-error";
import { readDeviceCookie } from "../middleware/session";
import { signInRefusal } from "./auth-routes";
import { clearCeremonyCookie, readCeremonyCookie } from "./ceremony-cookies";

const WRONG_CURRENT_PASSWORD = "The current password is not right";

/** Proof the owner is there before a sign-in change: the password (under the limits) or a passkey; else 400/429. */
export async function confirmOwner(
  services: AppServices,
  req: Request,
  res: Response,
  proof: OwnerConfirmation,
): Promise<"password" | "passkey"> {
  const user = res.locals.user!;
  if (proof.passkey) {
    const token = readCeremonyCookie(services.env, req, "passkey-confirmation");
    clearCeremonyCookie(services.env, req, res, "passkey-confirmation");
    try {
      const confirmed = await finishPasskeyAssertion(services, "passkey-confirmation", {
        token,
        response: proof.passkey as unknown as AuthenticationResponseJSON,
      });
      if (confirmed.user.id !== user.id) throw new PasskeyRefusal("That passkey is not yours.");
      return "passkey";
    } catch (error) {
      if (error instanceof PasskeyRefusal) throw badRequest(error.message, { errors: { passkey: error.message } });
      throw error;
    }
  }
  if (!proof.currentPassword) {
    const message = "Confirm with your current password or a passkey";
    throw badRequest(message, { errors: { currentPassword: message } });
  }
  const outcome = await checkSignIn(services, {
    username: user.username,
    password: proof.currentPassword,
    address: req.ip ?? "unknown",
    deviceCookie: readDeviceCookie(services.env, req),
  });
  if (outcome.status === "locked" || outcome.status === "busy") throw signInRefusal(outcome);
  if (outcome.status === "wrong-password")
    throw badRequest(WRONG_CURRENT_PASSWORD, { errors: { currentPassword: WRONG_CURRENT_PASSWORD } });
  return "password";
}
