import type { IncomingMessage, ServerResponse } from "node:http";
import type { Express } from "express";
import {
  isBotUserAgent,
  isPrefetch,
  ownHostOf,
  referrerHost,
  viewedPage,
  type ViewedPage,
} from "~/analytics/page-views";
import { SESSION_COOKIE } from "~/auth/auth.server";
import type { AppServices } from "~/services.server";

export type TrustFunction = (address: string, hop: number) => boolean;

/** Answers kept for this many (address, hop) pairs; a hard cap, so anonymous traffic never grows memory. */
const TRUST_CACHE_LIMIT = 1000;

/** Express's trust-proxy function, remembered (it parses addresses at every call). */
export function rememberedTrust(trust: TrustFunction): TrustFunction {
  // One map per hop, so a lookup builds no key string.
  const answers: Map<string, boolean>[] = [];
  let size = 0;
  return (address, hop) => {
    const forHop = (answers[hop] ??= new Map());
    let answer = forHop.get(address);
    if (answer === undefined) {
      answer = trust(address, hop);
      if (size >= TRUST_CACHE_LIMIT) {
        for (const map of answers) map?.clear();
        size = 0;
      }
      forHop.set(address, answer);
      size++;
    }
    return answer;
  };
}

/** The client address exactly as Express's req.ip, read in place without building the list (every page view). */
export function clientAddress(req: IncomingMessage, trust: TrustFunction): string {
  let current = req.socket.remoteAddress ?? "";
  const forwarded = req.headers["x-forwarded-for"];
  if (!forwarded) return current;
  // Node joins repeated headers into one string; an array would only come from a hand-made request.
  const header = Array.isArray(forwarded) ? forwarded.join(",") : forwarded;
  let end = header.length;
  let hop = 0;
  while (trust(current, hop)) {
    // The next address to the left, spaces around it dropped (as the forwarded package parses it).
    while (end > 0 && (header.charCodeAt(end - 1) === 0x20 || header.charCodeAt(end - 1) === 0x2c)) end--;
    if (end === 0) return current;
    let start = end;
    while (start > 0 && header.charCodeAt(start - 1) !== 0x2c) start--;
    let first = start;
    while (first < end && header.charCodeAt(first) === 0x20) first++;
    current = header.slice(first, end);
    end = start;
    hop++;
  }
  return current;
}

export type PageViewCounter = {
  /** After the cached-page responder answered: counts the view if it is one. */
  countAnswered(req: IncomingMessage, res: ServerResponse): void;
  /** Before a request goes through Express: counts it once answered, if it is a public page's view (uncached renders). */
  countWhenAnswered(req: IncomingMessage, res: ServerResponse): void;
};

/** Counts public page views from the request itself, cheapest checks first; null when counting is off. */
export function createPageViewCounter(
  app: Express,
  services: Pick<AppServices, "analytics" | "env">,
): PageViewCounter | null {
  const { analytics } = services;
  if (!analytics.enabled) return null;
  const trustProxy = rememberedTrust(app.get("trust proxy fn") as TrustFunction);
  const siteHost = ownHostOf(new URL(services.env.SITE_URL).host);
  const sessionCookie = `${SESSION_COOKIE}=`;

  function count(req: IncomingMessage, status: number, page: ViewedPage): void {
    if (status !== 200 && status !== 304) return;
    const headers = req.headers;
    const userAgent = headers["user-agent"];
    if (isBotUserAgent(userAgent) || isPrefetch(headers)) return;
    // The owner looking at their own site, signed in to the admin, is not a visitor.
    if (headers.cookie?.includes(sessionCookie)) return;
    const referer = headers.referer;
    const referrer =
      referer && page.navigation === "document" ? referrerHost(referer, [siteHost, ownHostOf(headers.host)]) : null;
    analytics.record({
      path: page.path,
      ip: clientAddress(req, trustProxy),
      userAgent: userAgent!,
      referrerHost: referrer,
    });
  }

  return {
    countAnswered(req, res) {
      const page = viewedPage(req.method, req.url);
      if (page) count(req, res.statusCode, page);
    },
    countWhenAnswered(req, res) {
      // Read before Express rewrites req.url while routing.
      const page = viewedPage(req.method, req.url);
      if (page) res.once("finish", () => count(req, res.statusCode, page));
    },
  };
}
