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

/**
 * Whether a state-changing request was sent from another site: the Origin
 * header decides; without one, Sec-Fetch-Site. Requests with neither (curl,
 * server-to-server) carry no ambient cookies from a browser and pass.
 */
export function isCrossSiteRequest(req: Request, siteOrigin: string): boolean {
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

/**
 * Pages (the no-JS contact form): the same rule. A refused post is not passed
 * to the route's action; the page is shown with a notice, as a 403
 * (server/react-router-handler.ts).
 */
export function refuseCrossSitePagePosts(env: Pick<Env, "SITE_URL">): RequestHandler {
  const siteOrigin = new URL(env.SITE_URL).origin;
  return (req, res, next) => {
    if (isCrossSiteRequest(req, siteOrigin)) res.locals.crossSiteRefused = true;
    next();
  };
}
