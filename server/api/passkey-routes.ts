import type { AuthenticationResponseJSON, RegistrationResponseJSON } from "@simplewebauthn/server";
import { Router, type Request } from "express";
import { sessionIdOf } from "~/auth/auth.server";
import {
  PasskeyRefusal,
  beginPasskeyAssertion,
  beginPasskeyRegistration,
  finishPasskeyAssertion,
  finishPasskeyRegistration,
  listPasskeys,
  passkeySiteFor,
  removePasskey,
} from "~/auth/passkeys.server";
import {
  newPasskeySchema,
  ownerConfirmationSchema,
  passkeyAnswerSchema,
  type SignInMethods,
} from "~/auth/sign-in-methods";
import { signInCountersFor } from "~/auth/sign-in.server";
import { readTwoStepState } from "~/auth/two-step.server";
import { describeBrowser } from "~/lib/browser-name";
import { queueSecurityNotice } from "~/notifications/security-notices.server";
import type { AppServices } from "~/services.server";
import { HttpError, notFound } from "../http-error";
import { readDeviceCookie } from "../middleware/session";
import { recordRequestActivity } from "./activity-routes";
import { completeSignIn } from "./auth-routes";
import { clearCeremonyCookie, readCeremonyCookie, setCeremonyCookie } from "./ceremony-cookies";
import { confirmOwner } from "./owner-confirmation";
import { parseJsonBody } from "./validation";

const PASSKEY_SIGN_IN_LIMITED =
  "Too many failed passkey sign-ins from this address. Please wait 15 minutes, or sign in with your password.";

/** The default name of a new passkey: "Chrome on an Android phone", or "Passkey" for a browser not recognised. */
function defaultPasskeyName(req: Request): string {
  return describeBrowser(req.get("user-agent")) ?? "Passkey";
}

/** Signing in with a passkey. Mounted at /api. */
export function passkeySignInRoutes(services: AppServices): Router {
  const router = Router();
  const { env } = services;

  router.get("/login/methods", (_req, res) => {
    res.json({ passkeys: passkeySiteFor(env.SITE_URL).available });
  });

  // The login page asks once per visit (autofill) and once per button press.
  router.post("/login/passkey/options", async (req, res) => {
    const admitted = await services.signIn.limits.passkeyChallenges.hit(req.ip ?? "unknown");
    if (!admitted.allowed) {
      throw new HttpError(429, PASSKEY_SIGN_IN_LIMITED, undefined, {
        "Retry-After": String(admitted.retryAfterSeconds),
      });
    }
    const { token, options } = await beginPasskeyAssertion(services, "passkey-sign-in").catch(refusedAs(400));
    setCeremonyCookie(env, req, res, "passkey-sign-in", token);
    res.json(options);
  });

  // Complete on its own (the device checked a fingerprint or PIN): no password, no code,
  // and not held back by the password lock-outs; its own limit instead.
  router.post("/login/passkey", async (req, res) => {
    const { response } = parseJsonBody(req, passkeyAnswerSchema);
    const address = req.ip ?? "unknown";
    const admitted = await services.signIn.limits.passkey.hit(address);
    if (!admitted.allowed) {
      await recordRequestActivity(services, req, { kind: "sign-in.locked", outcome: "refused" });
      throw new HttpError(429, PASSKEY_SIGN_IN_LIMITED, undefined, {
        "Retry-After": String(admitted.retryAfterSeconds),
      });
    }
    const token = readCeremonyCookie(env, req, "passkey-sign-in");
    clearCeremonyCookie(env, req, res, "passkey-sign-in");
    let signedIn;
    try {
      signedIn = await finishPasskeyAssertion(services, "passkey-sign-in", {
        token,
        response: response as unknown as AuthenticationResponseJSON,
      });
    } catch (error) {
      if (!(error instanceof PasskeyRefusal)) throw error;
      services.logger.warn({ ip: address, reason: error.message }, "failed passkey sign-in");
      await recordRequestActivity(services, req, { kind: "sign-in.passkey", outcome: "failure" });
      throw new HttpError(401, error.message);
    }
    await services.signIn.limits.passkey.reset(address);
    const { device } = signInCountersFor(services, {
      username: signedIn.user.username,
      address,
      deviceCookie: readDeviceCookie(env, req),
    });
    await completeSignIn(services, req, res, {
      user: signedIn.user,
      device,
      activity: { kind: "sign-in.passkey", detail: { passkey: signedIn.passkeyName } },
      passkeyId: signedIn.passkeyId,
    });
  });

  return router;
}

function refusedAs(status: number) {
  return (error: unknown): never => {
    if (error instanceof PasskeyRefusal) throw new HttpError(status, error.message);
    throw error;
  };
}

/** Passkeys and two-step state; adding or removing a passkey always asks for fresh proof (a stolen session). */
export function passkeyAccountRoutes(services: AppServices): Router {
  const router = Router();
  const { env } = services;

  router.get("/sign-in-methods", async (_req, res) => {
    const user = res.locals.user!;
    const site = passkeySiteFor(env.SITE_URL);
    const session = await services.db
      .selectFrom("sessions")
      .select("passkey_id")
      .where("id", "=", sessionIdOf(res.locals.sessionToken!))
      .executeTakeFirst();
    const list = await listPasskeys(services, user.id);
    const methods: SignInMethods = {
      passkeys: {
        available: site.available,
        unavailableReason: site.available ? null : site.reason,
        list,
        signedInWith: list.some((passkey) => passkey.id === session?.passkey_id) ? session!.passkey_id : null,
      },
      twoStep: await readTwoStepState(services, user.id),
    };
    res.json(methods);
  });

  router.post("/passkeys/options", async (req, res) => {
    await confirmOwner(services, req, res, parseJsonBody(req, ownerConfirmationSchema));
    const { token, options } = await beginPasskeyRegistration(services, res.locals.user!).catch(refusedAs(409));
    setCeremonyCookie(env, req, res, "passkey-registration", token);
    res.json({ options, defaultName: defaultPasskeyName(req) });
  });

  router.post("/passkeys", async (req, res) => {
    const { response, name } = parseJsonBody(req, newPasskeySchema);
    const token = readCeremonyCookie(env, req, "passkey-registration");
    clearCeremonyCookie(env, req, res, "passkey-registration");
    const passkey = await finishPasskeyRegistration(services, res.locals.user!, {
      token,
      response: response as unknown as RegistrationResponseJSON,
      name: name || defaultPasskeyName(req),
    }).catch(refusedAs(400));
    await recordRequestActivity(services, req, {
      kind: "passkey.added",
      outcome: "success",
      detail: { passkey: passkey.name },
    });
    await queueSecurityNotice(services, {
      kind: "passkey-added",
      passkeyName: passkey.name,
      userAgent: req.get("user-agent") ?? "",
    });
    res.status(201).json(passkey);
  });

  router.delete("/passkeys/:id", async (req, res) => {
    await confirmOwner(services, req, res, parseJsonBody(req, ownerConfirmationSchema));
    const name = await removePasskey(services, res.locals.user!.id, String(req.params.id));
    if (name === null) throw notFound("That passkey was not found; it may have been removed already.");
    await recordRequestActivity(services, req, {
      kind: "passkey.removed",
      outcome: "success",
      detail: { passkey: name },
    });
    await queueSecurityNotice(services, {
      kind: "passkey-removed",
      passkeyName: name,
      userAgent: req.get("user-agent") ?? "",
    });
    res.status(204).end();
  });

  // A challenge for confirming a change (a passkey added or removed, two-step off, new recovery
  // codes) with a passkey instead of the password.
  router.post("/confirm/passkey/options", async (req, res) => {
    const { token, options } = await beginPasskeyAssertion(services, "passkey-confirmation").catch(refusedAs(409));
    setCeremonyCookie(env, req, res, "passkey-confirmation", token);
    res.json(options);
  });

  return router;
}
