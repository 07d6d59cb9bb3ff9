import { Router, type Request, type Response } from "express";
import type { ActivityEvent } from "~/activity/activity-log.server";
import { createSession, deleteSession, pruneExpiredSessions } from "~/auth/auth.server";
import { beginCeremony } from "~/auth/ceremonies.server";
import type { Device } from "~/auth/device-cookie.server";
import { loginSchema, type CurrentUser } from "~/auth/login-schema";
import { checkSignIn, clearSignInCounts, fileSignInReport, type SignInOutcome } from "~/auth/sign-in.server";
import { isTwoStepOn } from "~/auth/two-step.server";
import { queueSignInAlert } from "~/notifications/outbox-queue.server";
import type { AppServices } from "~/services.server";
import { HttpError } from "../http-error";
import { clearSessionCookie, readDeviceCookie, setDeviceCookie, setSessionCookie } from "../middleware/session";
import { recordRequestActivity } from "./activity-routes";
import { setCeremonyCookie } from "./ceremony-cookies";
import { parseJsonBody } from "./validation";

/** What a locked-out browser is told: the same for every limit, so it reveals nothing. */
export const SIGN_IN_LOCKED_MESSAGE =
  "Too many failed sign-in attempts. Please try again later. Whoever runs the site can clear this with: npm run admin:password";
const SIGN_IN_BUSY_MESSAGE = "Too many sign-ins are being checked right now. Please try again in a moment.";

/** The 429 for a sign-in that was not checked (over a limit, or the verification queue full). */
export function signInRefusal(outcome: Extract<SignInOutcome, { status: "locked" | "busy" }>): HttpError {
  return new HttpError(429, outcome.status === "locked" ? SIGN_IN_LOCKED_MESSAGE : SIGN_IN_BUSY_MESSAGE, undefined, {
    "Retry-After": String(outcome.retryAfterSeconds),
  });
}

/** Any good sign-in: a fresh session, its failures filed, the device cookie renewed, a new browser reported. */
export async function completeSignIn(
  services: AppServices,
  req: Request,
  res: Response,
  signedIn: {
    user: CurrentUser;
    device: Device | null;
    activity: Omit<ActivityEvent, "client" | "outcome">;
    passkeyId?: string;
  },
) {
  const { user, device } = signedIn;
  const { env } = services;
  // No valid device cookie: this browser has not signed in to this account before (or lost its cookie).
  const fromNewBrowser = device === null;

  // A fresh token at every sign-in; an old cookie's session is ended.
  if (res.locals.sessionToken) await deleteSession(services, res.locals.sessionToken);
  await pruneExpiredSessions(services);
  const session = await createSession(services, user.id, services.clock.now(), signedIn.passkeyId ?? null);
  await fileSignInReport(services, session.id);
  setSessionCookie(env, req, res, session.token);
  // The device cookie is renewed at every sign-in, keeping its id.
  setDeviceCookie(env, req, res, services.signIn.deviceCookies.issue(user.username, device?.id).value);
  services.logger.info({ userId: user.id, newBrowser: fromNewBrowser, kind: signedIn.activity.kind }, "signed in");
  await recordRequestActivity(services, req, { ...signedIn.activity, outcome: "success" });
  if (fromNewBrowser) {
    // The owner hears of every sign-in from a browser not seen before; a failed queue
    // never blocks the sign-in itself.
    await queueSignInAlert(services, {
      at: services.clock.now(),
      address: req.ip ?? "unknown",
      userAgent: req.get("user-agent") ?? "",
    }).catch((error: unknown) => services.logger.error({ err: error }, "could not queue the sign-in alert"));
  }
  res.json(user);
}

/** Sign-in, sign-out and the current user (spec §7). */
export function authRoutes(services: AppServices): Router {
  const router = Router();
  const { env } = services;

  router.get("/auth/user", (_req, res) => {
    if (!res.locals.user) throw new HttpError(401, "Unauthorized");
    res.json(res.locals.user);
  });

  router.post("/login", async (req, res) => {
    const { username, password } = parseJsonBody(req, loginSchema);
    const address = req.ip ?? "unknown";
    const outcome = await checkSignIn(
      services,
      { username, password, address, deviceCookie: readDeviceCookie(env, req) },
      { keepCounts: true },
    );
    switch (outcome.status) {
      case "locked":
      case "busy":
        services.logger.warn({ ip: address, outcome: outcome.status }, "sign-in refused without checking the password");
        await recordRequestActivity(services, req, { kind: "sign-in.locked", outcome: "refused" });
        throw signInRefusal(outcome);
      case "wrong-password":
        services.logger.warn({ ip: address }, "failed sign-in");
        await recordRequestActivity(services, req, { kind: "sign-in.password", outcome: "failure" });
        throw new HttpError(401, "Invalid username or password");
      case "signed-in":
        break;
    }
    if (await isTwoStepOn(services, outcome.user.id)) {
      // The password was right, but the sign-in waits for a code: no session yet, and the
      // counters stay until the second step succeeds (app/auth/sign-in.server.ts).
      const token = await beginCeremony(services, { kind: "two-step-sign-in", userId: outcome.user.id });
      setCeremonyCookie(env, req, res, "two-step-sign-in", token);
      res.json({ twoFactorRequired: true });
      return;
    }
    await clearSignInCounts(outcome.attempt);
    await completeSignIn(services, req, res, {
      user: outcome.user,
      device: outcome.device,
      activity: { kind: "sign-in.password" },
    });
  });

  router.post("/logout", async (req, res) => {
    if (res.locals.sessionToken) await deleteSession(services, res.locals.sessionToken);
    clearSessionCookie(env, req, res);
    res.status(204).end();
  });

  return router;
}
