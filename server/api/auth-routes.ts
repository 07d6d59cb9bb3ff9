import { Router } from "express";
import { createSession, deleteSession, pruneExpiredSessions } from "~/auth/auth.server";
import { loginSchema } from "~/auth/login-schema";
import { checkSignIn, fileSignInReport, type SignInOutcome } from "~/auth/sign-in.server";
import { queueSignInAlert } from "~/notifications/outbox-queue.server";
import type { AppServices } from "~/services.server";
import { HttpError } from "../http-error";
import { clearSessionCookie, readDeviceCookie, setDeviceCookie, setSessionCookie } from "../middleware/session";
import { recordRequestActivity } from "./activity-routes";
import { parseJsonBody } from "./validation";

/** What a locked-out browser is told: the same for every limit, so it reveals nothing. */
export const SIGN_IN_LOCKED_MESSAGE =
  "Too many failed sign-in attempts. Please try again later. Whoever runs the site can clear this with: npm run admin:password";
export const SIGN_IN_BUSY_MESSAGE = "Too many sign-ins are being checked right now. Please try again in a moment.";

/** The 429 for a sign-in that was not checked (over a limit, or the verification queue full). */
export function signInRefusal(outcome: Extract<SignInOutcome, { status: "locked" | "busy" }>): HttpError {
  return new HttpError(429, outcome.status === "locked" ? SIGN_IN_LOCKED_MESSAGE : SIGN_IN_BUSY_MESSAGE, undefined, {
    "Retry-After": String(outcome.retryAfterSeconds),
  });
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
    const outcome = await checkSignIn(services, { username, password, address, deviceCookie: readDeviceCookie(env, req) });
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
    const { user, device } = outcome;
    // No valid device cookie: this browser has not signed in to this account before (or lost its cookie).
    const fromNewBrowser = device === null;

    // A fresh token at every sign-in; an old cookie's session is ended.
    if (res.locals.sessionToken) await deleteSession(services, res.locals.sessionToken);
    await pruneExpiredSessions(services);
    const session = await createSession(services, user.id);
    await fileSignInReport(services, session.id);
    setSessionCookie(env, req, res, session.token);
    // The device cookie is renewed at every sign-in, keeping its id.
    setDeviceCookie(env, req, res, services.signIn.deviceCookies.issue(user.username, device?.id).value);
    services.logger.info({ userId: user.id, newBrowser: fromNewBrowser }, "signed in");
    await recordRequestActivity(services, req, { kind: "sign-in.password", outcome: "success" });
    if (fromNewBrowser) {
      // The owner hears of every sign-in from a browser not seen before (issue 9); a failed queue
      // never blocks the sign-in itself.
      await queueSignInAlert(services, {
        at: services.clock.now(),
        address: req.ip ?? "unknown",
        userAgent: req.get("user-agent") ?? "",
      }).catch((error: unknown) => services.logger.error({ err: error }, "could not queue the sign-in alert"));
    }
    res.json(user);
  });

  router.post("/logout", async (req, res) => {
    if (res.locals.sessionToken) await deleteSession(services, res.locals.sessionToken);
    clearSessionCookie(env, req, res);
    res.status(204).end();
  });

  return router;
}
