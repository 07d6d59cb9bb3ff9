import type { Request, Response } from "express";
import { CEREMONY_COOKIES, CEREMONY_LIFETIME_MS, type CeremonyKind } from "~/auth/ceremonies.server";
import type { Env } from "~/env.server";
import { isHttpsSite, readCookie } from "../middleware/session";

/** A ceremony's cookie: httpOnly, SameSite=Strict, 5 minutes, `__Host-` and Secure on HTTPS. */
const nameOf = (env: Pick<Env, "SITE_URL">, kind: CeremonyKind) =>
  isHttpsSite(env) ? `__Host-${CEREMONY_COOKIES[kind]}` : CEREMONY_COOKIES[kind];

const optionsFor = (env: Pick<Env, "SITE_URL">, req: Request) =>
  ({ httpOnly: true, sameSite: "strict", path: "/", secure: isHttpsSite(env) || req.secure }) as const;

export function setCeremonyCookie(
  env: Pick<Env, "SITE_URL">,
  req: Request,
  res: Response,
  kind: CeremonyKind,
  token: string,
) {
  res.cookie(nameOf(env, kind), token, { ...optionsFor(env, req), maxAge: CEREMONY_LIFETIME_MS });
}

export function readCeremonyCookie(env: Pick<Env, "SITE_URL">, req: Request, kind: CeremonyKind): string | undefined {
  return readCookie(req, nameOf(env, kind));
}

export function clearCeremonyCookie(env: Pick<Env, "SITE_URL">, req: Request, res: Response, kind: CeremonyKind) {
  res.clearCookie(nameOf(env, kind), optionsFor(env, req));
}
