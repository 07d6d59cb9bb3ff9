import type { IncomingMessage, ServerResponse } from "node:http";
import type { Express } from "express";
import proxyAddress from "proxy-addr";
import { isBotUserAgent, isPrefetch, ownHostOf, referrerHost, viewedPage, type ViewedPage } from "~/analytics/page-views";
import { SESSION_COOKIE } from "~/auth/auth.server";
import type { AppServices } from "~/services.server";

type TrustFunction = (address: string, hop: number) => boolean;

/** Answers kept for this many (address, hop) pairs; a hard cap, so anonymous traffic never grows memory. */
const TRUST_CACHE_LIMIT = 1000;

/**
 * Express's trust-proxy function, remembered: it parses the address on every
 * call (about 4 µs for "loopback"), and the same few proxies ask every time.
 * proxy-addr then resolves the client address exactly as Express's req.ip.
 */
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

export type PageViewCounter = {
  /** After the cached-page responder answered: counts the view if it is one. */
  countAnswered(req: IncomingMessage, res: ServerResponse): void;
  /** Before a request goes through Express: counts it once answered, if it is a public page's view (uncached renders). */
  countWhenAnswered(req: IncomingMessage, res: ServerResponse): void;
};

/**
 * Feeds public page views to the analytics module from the page request
 * itself (no script, no cookie). Null when counting is off. The checks run
 * cheapest first, so requests that are not page views cost one Set lookup.
 */
export function createPageViewCounter(app: Express, services: Pick<AppServices, "analytics" | "env">): PageViewCounter | null {
  const { analytics } = services;
  if (!analytics.enabled) return null;
  const trustProxy = rememberedTrust(app.get("trust proxy fn") as TrustFunction);
  const siteHost = ownHostOf(new URL(services.env.SITE_URL).host);
  const sessionCookie = `${SESSION_COOKIE}=`;

  /** As Express's req.ip; a direct connection (no X-Forwarded-For, or an untrusted peer) needs no parsing. */
  function clientAddress(req: IncomingMessage): string {
    const peer = req.socket.remoteAddress ?? "";
    if (!req.headers["x-forwarded-for"] || !trustProxy(peer, 0)) return peer;
    return proxyAddress(req, trustProxy) ?? peer;
  }

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
    analytics.record({ path: page.path, ip: clientAddress(req), userAgent: userAgent!, referrerHost: referrer });
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
