import type { CookieOptions, Request, RequestHandler, Response } from "express";
import { SESSION_COOKIE, SESSION_LIFETIME_MS, getSessionUser } from "~/auth/auth.server";
import type { CurrentUser } from "~/auth/login-schema";
import type { AppServices } from "~/services.server";
import { HttpError } from "../http-error";

declare module "express-serve-static-core" {
  interface Locals {
    /** The signed-in administrator, when the session cookie is valid. */
    user?: CurrentUser | null;
    sessionToken?: string;
    cspNonce: string;
  }
}

export function readCookie(req: Request, name: string): string | undefined {
  const header = req.headers.cookie;
  if (!header) return undefined;
  for (const part of header.split(";")) {
    const eq = part.indexOf("=");
    if (eq === -1) continue;
    if (part.slice(0, eq).trim() === name) {
      try {
        return decodeURIComponent(part.slice(eq + 1).trim());
      } catch {
        return undefined;
      }
    }
  }
  return undefined;
}

/** httpOnly, SameSite=Lax, Path=/, and Secure whenever the request came over HTTPS. */
export function sessionCookieOptions(req: Request): CookieOptions {
  return { httpOnly: true, sameSite: "lax", path: "/", secure: req.secure, maxAge: SESSION_LIFETIME_MS };
}

export function setSessionCookie(req: Request, res: Response, token: string) {
  res.cookie(SESSION_COOKIE, token, sessionCookieOptions(req));
}

export function clearSessionCookie(req: Request, res: Response) {
  const { maxAge: _maxAge, ...options } = sessionCookieOptions(req);
  res.clearCookie(SESSION_COOKIE, options);
}

/** Looks up the session cookie once per API request. */
export function resolveSession(services: AppServices): RequestHandler {
  return async (req, res, next) => {
    const token = readCookie(req, SESSION_COOKIE);
    res.locals.sessionToken = token;
    res.locals.user = token ? await getSessionUser(services, token) : null;
    next();
  };
}

/** 401 JSON unless an administrator is signed in. */
export const requireAdmin: RequestHandler = (_req, res, next) => {
  if (!res.locals.user) throw new HttpError(401, "Unauthorized");
  next();
};
