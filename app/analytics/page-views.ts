import { isbot } from "isbot";
import { isPublicPage, publicPageOfData } from "~/public-pages";

/**
 * What counts as a page view (docs/decisions/0031): a GET of a public page or its `.data`, answered 200 or 304,
 * not from a crawler, a prefetch or the owner. It runs on the request path, so only string checks and lookups.
 */

export type ViewedPage = { path: string; navigation: "document" | "data" | "prerender-shown" };

/** A prerendered page reports itself here once shown (`?path=/stonework`), as its request was not counted. */
export const PAGE_VIEW_BEACON_PATH = "/api/page-views/shown";

/** The public page a request asks for (a document, its client-navigation data, or a prerender's beacon), or null. */
export function viewedPage(method: string | undefined, url: string | undefined): ViewedPage | null {
  if (!url) return null;
  const query = url.indexOf("?");
  const path = query === -1 ? url : url.slice(0, query);
  if (method === "POST" && path === PAGE_VIEW_BEACON_PATH && query !== -1) {
    const shown = new URLSearchParams(url.slice(query + 1)).get("path");
    return shown !== null && isPublicPage(shown) ? { path: shown, navigation: "prerender-shown" } : null;
  }
  if (method !== "GET") return null;
  if (isPublicPage(path)) return { path, navigation: "document" };
  const page = publicPageOfData(path);
  return page === null ? null : { path: page, navigation: "data" };
}

/** Prefetches (a `<link rel=prefetch>`, a speculation rule) fetch a page nobody may look at. */
export function isPrefetch(headers: { [name: string]: string | string[] | undefined }): boolean {
  const purpose = headers["sec-purpose"] ?? headers["purpose"] ?? headers["x-purpose"] ?? headers["x-moz"];
  return typeof purpose === "string" && /prefetch|preview/i.test(purpose);
}

/** User agents longer than this are not browsers; they are not counted (and not matched against patterns). */
const MAX_USER_AGENT_LENGTH = 512;
/** isbot's patterns take a few microseconds; answers are remembered for this many distinct user agents. */
const BOT_CACHE_LIMIT = 1000;
const botAnswers = new Map<string, boolean>();

/** Known crawlers and scripts (Googlebot, bingbot, curl, python-requests, headless browsers…), and no user agent at all. */
export function isBotUserAgent(userAgent: string | undefined): boolean {
  if (!userAgent || userAgent.length > MAX_USER_AGENT_LENGTH) return true;
  let answer = botAnswers.get(userAgent);
  if (answer === undefined) {
    answer = isbot(userAgent);
    // A hard cap: random user agents from anonymous traffic never grow memory.
    if (botAnswers.size >= BOT_CACHE_LIMIT) botAnswers.clear();
    botAnswers.set(userAgent, answer);
  }
  return answer;
}

const HOST_NAME = /^[a-z0-9.-]{1,253}$/;

/** "example.co.nz:8080" → "example.co.nz"; IPv6 literals and junk → null. */
function hostName(value: string): string | null {
  const colon = value.indexOf(":");
  const host = (colon === -1 ? value : value.slice(0, colon)).toLowerCase();
  return HOST_NAME.test(host) ? host : null;
}

/** The linking page's host ("google.com", no "www."), or null for none, this site, or not a plain host name. */
export function referrerHost(
  referer: string | undefined,
  ownHosts: readonly (string | null | undefined)[],
): string | null {
  if (!referer) return null;
  const schemeEnd = referer.indexOf("://");
  if (schemeEnd < 1 || schemeEnd > 32) return null;
  let start = schemeEnd + 3;
  let end = start;
  while (end < referer.length) {
    const char = referer.charCodeAt(end);
    // Ends at "/", "?" or "#".
    if (char === 47 || char === 63 || char === 35) break;
    end++;
  }
  const userInfo = referer.lastIndexOf("@", end);
  if (userInfo >= start) start = userInfo + 1;
  const host = hostName(referer.slice(start, end));
  if (!host || ownHosts.includes(host)) return null;
  return host.startsWith("www.") ? host.slice(4) : host;
}

/** The host name of a Host header or a URL's host, for telling this site's own links apart. */
export function ownHostOf(hostHeader: string | undefined): string | null {
  return hostHeader ? hostName(hostHeader) : null;
}
