import { Router } from "express";
import { createSession, deleteSession, pruneExpiredSessions, verifyCredentials } from "~/auth/auth.server";
import { loginSchema } from "~/auth/login-schema";
import type { AppServices } from "~/services.server";
import { HttpError } from "../http-error";
import { clearSessionCookie, setSessionCookie } from "../middleware/session";
import { parseJsonBody } from "./validation";

/** Sign-in, sign-out and the current user (spec §7). */
export function authRoutes(services: AppServices): Router {
  const router = Router();

  router.get("/auth/user", (_req, res) => {
    if (!res.locals.user) throw new HttpError(401, "Unauthorized");
    res.json(res.locals.user);
  });

  router.post("/login", async (req, res) => {
    const ip = req.ip ?? "unknown";
    // Throttled before the password is even looked at.
    const limit = services.limits.login.check(ip);
    if (!limit.allowed) {
      throw new HttpError(
        429,
        "Too many failed sign-in attempts. Please wait and try again later.",
        undefined,
        { "Retry-After": String(limit.retryAfterSeconds) },
      );
    }
    const { username, password } = parseJsonBody(req, loginSchema);
    const user = await verifyCredentials(services, username, password);
    if (!user) {
      services.limits.login.hit(ip);
      services.logger.warn({ ip }, "failed sign-in");
      throw new HttpError(401, "Invalid username or password");
    }
    services.limits.login.reset(ip);
    // A fresh token at every sign-in; an old cookie's session is ended.
    if (res.locals.sessionToken) await deleteSession(services, res.locals.sessionToken);
    await pruneExpiredSessions(services);
    const { token } = await createSession(services, user.id);
    setSessionCookie(req, res, token);
    services.logger.info({ userId: user.id }, "signed in");
    res.json(user);
  });

  router.post("/logout", async (req, res) => {
    if (res.locals.sessionToken) await deleteSession(services, res.locals.sessionToken);
    clearSessionCookie(req, res);
    res.status(204).end();
  });

  return router;
}
