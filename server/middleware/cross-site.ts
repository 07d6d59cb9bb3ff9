import type { RequestHandler } from "express";
import type { Env } from "~/env.server";
import { HttpError } from "../http-error";

const SAFE_METHODS = new Set(["GET", "HEAD", "OPTIONS"]);

/**
 * Refuses state-changing API requests sent from another site, on top of
 * SameSite cookies: the Origin header decides; without one, Sec-Fetch-Site.
 * Requests with neither (curl, server-to-server) carry no ambient cookies
 * from a browser and pass.
 */
export function rejectCrossSiteRequests(env: Pick<Env, "SITE_URL">): RequestHandler {
  const siteOrigin = new URL(env.SITE_URL).origin;
  return (req, _res, next) => {
    if (SAFE_METHODS.has(req.method)) return next();
    const origin = req.get("origin");
    if (origin !== undefined) {
      const ownOrigin = `${req.protocol}://${req.get("host")}`;
      if (origin !== ownOrigin && origin !== siteOrigin) {
        throw new HttpError(403, "Cross-site requests are not allowed");
      }
      return next();
    }
    const fetchSite = req.get("sec-fetch-site");
    if (fetchSite === "cross-site" || fetchSite === "same-site") {
      throw new HttpError(403, "Cross-site requests are not allowed");
    }
    next();
  };
}
