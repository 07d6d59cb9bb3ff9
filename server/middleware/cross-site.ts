import type { Request, RequestHandler } from "express";
import type { Env } from "~/env.server";
import { HttpError } from "../http-error";

declare module "express-serve-static-core" {
  interface Locals {
    /** A page post refused as cross-site: the page renders as for a GET, with a notice. */
    crossSiteRefused?: boolean;
  }
}

const SAFE_METHODS = new Set(["GET", "HEAD", "OPTIONS"]);

/** Origin decides, else Sec-Fetch-Site; requests with neither carry no browser cookies and pass. */
function isCrossSiteRequest(req: Request, siteOrigin: string): boolean {
  if (SAFE_METHODS.has(req.method)) return false;
  const origin = req.get("origin");
  if (origin !== undefined) {
    const ownOrigin = `${req.protocol}://${req.get("host")}`;
    return origin !== ownOrigin && origin !== siteOrigin;
  }
  const fetchSite = req.get("sec-fetch-site");
  return fetchSite === "cross-site" || fetchSite === "same-site";
}

/** The API: refuses cross-site state-changing requests with a JSON 403, on top of SameSite cookies. */
export function rejectCrossSiteRequests(env: Pick<Env, "SITE_URL">): RequestHandler {
  const siteOrigin = new URL(env.SITE_URL).origin;
  return (req, _res, next) => {
    if (isCrossSiteRequest(req, siteOrigin)) throw new HttpError(403, "Cross-site requests are not allowed");
    next();
  };
}

/** A refused page post reaches no action: the page shows a notice, as a 403. */
export function refuseCrossSitePagePosts(env: Pick<Env, "SITE_URL">): RequestHandler {
  const siteOrigin = new URL(env.SITE_URL).origin;
  return (req, res, next) => {
    if (isCrossSiteRequest(req, siteOrigin)) res.locals.crossSiteRefused = true;
    next();
  };
}
