import { parseCookie } from "cookie";
import type { CookieOptions, Request, RequestHandler, Response } from "express";
import { SESSION_COOKIE, SESSION_LIFETIME_MS, getSessionUser } from "~/auth/auth.server";
import { DEVICE_COOKIE, DEVICE_COOKIE_LIFETIME_MS } from "~/auth/device-cookie.server";
import type { CurrentUser } from "~/auth/login-schema";
import type { Env } from "~/env.server";
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

/** A cookie value, percent-decoded; undefined when it is empty or does not decode. */
function decodeCookieValue(value: string): string | undefined {
  if (value === "") return undefined;
  try {
    return decodeURIComponent(value);
  } catch {
    return undefined;
  }
}

/**
 * A cookie's first usable value (browsers list the most specific and oldest first); an empty or malformed copy
 * is skipped, so it neither signs the owner out nor stands in for the real one.
 */
export function readCookie(req: Request, name: string): string | undefined {
  const header = req.headers.cookie;
  if (!header) return undefined;
  return parseCookie(header, { decode: decodeCookieValue })[name];
}

/** Whether the site is served over HTTPS (SITE_URL says so), whatever this request came over. */
export const isHttpsSite = (env: Pick<Env, "SITE_URL">) => env.SITE_URL.startsWith("https://");

/** `__Host-` on HTTPS sites, so no other host or plain-HTTP page can set or shadow them. */
const sessionCookieName = (env: Pick<Env, "SITE_URL">) =>
  isHttpsSite(env) ? `__Host-${SESSION_COOKIE}` : SESSION_COOKIE;
const deviceCookieName = (env: Pick<Env, "SITE_URL">) => (isHttpsSite(env) ? `__Host-${DEVICE_COOKIE}` : DEVICE_COOKIE);

/** httpOnly, SameSite=Strict, Path=/; Secure on an HTTPS site or request. */
function cookieOptions(env: Pick<Env, "SITE_URL">, req: Request, maxAge: number): CookieOptions {
  return { httpOnly: true, sameSite: "strict", path: "/", secure: isHttpsSite(env) || req.secure, maxAge };
}

function sessionCookieOptions(env: Pick<Env, "SITE_URL">, req: Request): CookieOptions {
  return cookieOptions(env, req, SESSION_LIFETIME_MS);
}

export function setSessionCookie(env: Pick<Env, "SITE_URL">, req: Request, res: Response, token: string) {
  res.cookie(sessionCookieName(env), token, sessionCookieOptions(env, req));
}

export function clearSessionCookie(env: Pick<Env, "SITE_URL">, req: Request, res: Response) {
  const { maxAge: _maxAge, ...options } = sessionCookieOptions(env, req);
  res.clearCookie(sessionCookieName(env), options);
}

/** The device cookie (app/auth/device-cookie.server.ts): same flags, a year long. */
export function setDeviceCookie(env: Pick<Env, "SITE_URL">, req: Request, res: Response, value: string) {
  res.cookie(deviceCookieName(env), value, cookieOptions(env, req, DEVICE_COOKIE_LIFETIME_MS));
}

export function readDeviceCookie(env: Pick<Env, "SITE_URL">, req: Request): string | undefined {
  return readCookie(req, deviceCookieName(env));
}

/** Looks up the session cookie once per API request. */
export function resolveSession(services: AppServices): RequestHandler {
  const name = sessionCookieName(services.env);
  return async (req, res, next) => {
    const token = readCookie(req, name);
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
