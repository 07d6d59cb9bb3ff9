import { readFileSync } from "node:fs";
import type { RouteConfigEntry } from "@react-router/dev/routes";
import { describe, expect, it } from "vitest";
import { PUBLIC_PAGES, PUBLIC_PAGE_PATHS, isPublicPage, publicPageLabel, publicPageOfData } from "./public-pages";
import routes from "./routes";

type RouteOfTable = { path: string; file: string };

/** Every route of app/routes.ts with its full path ("/" for the index), nested routes included. */
function routesOfTable(entries: readonly RouteConfigEntry[], parent = ""): RouteOfTable[] {
  return entries.flatMap((entry) => {
    const path = entry.index ? parent || "/" : entry.path === undefined ? parent : `${parent}/${entry.path}`;
    return [
      ...(entry.path !== undefined || entry.index ? [{ path, file: entry.file }] : []),
      ...routesOfTable(entry.children ?? [], path === "/" ? "" : path),
    ];
  });
}

const DEFAULT_EXPORT = /^export\s+default\b|^export\s*\{[^}]*\bas\s+default\b/m;

/**
 * Why a route of the table is not a public page, or null when it is one. A route is a public page
 * unless it is the owner's area or the JSON API (/admin, /api and under them), the catch-all that
 * answers every other path with the not-found page, or a resource route: a module with no default
 * export (no component), which answers a file such as /sitemap.xml, /robots.txt or
 * /manifest.webmanifest instead of a page. (/healthz is Express's, outside the table.)
 */
function notAPublicPage(route: RouteOfTable): string | null {
  if (/^\/(?:admin|api)(?:\/|$)/.test(route.path)) return "the admin or the API";
  if (route.path.endsWith("*")) return "the catch-all not-found page";
  if (!DEFAULT_EXPORT.test(readFileSync(new URL(route.file, import.meta.url), "utf8"))) return "a resource route";
  return null;
}

const table = routesOfTable(routes);

describe("the list of public pages (app/public-pages.ts)", () => {
  it("lists every public page of app/routes.ts", () => {
    const unlisted = table.filter((route) => notAPublicPage(route) === null && !isPublicPage(route.path));
    expect(unlisted, "public pages in app/routes.ts that app/public-pages.ts does not list").toEqual([]);
  });

  it("lists only public pages of app/routes.ts", () => {
    const pages = new Set(table.filter((route) => notAPublicPage(route) === null).map((route) => route.path));
    expect(
      PUBLIC_PAGE_PATHS.filter((path) => !pages.has(path)),
      "listed, but not a public page of app/routes.ts",
    ).toEqual([]);
    expect(new Set(PUBLIC_PAGE_PATHS).size).toBe(PUBLIC_PAGE_PATHS.length);
  });

  it("sets aside the admin, the catch-all and the resource routes", () => {
    const reasons = Object.fromEntries(table.map((route) => [route.path, notAPublicPage(route)]));
    expect(reasons).toMatchObject({
      "/": null,
      "/contact": null,
      "/admin": "the admin or the API",
      "/sitemap.xml": "a resource route",
      "/robots.txt": "a resource route",
      "/manifest.webmanifest": "a resource route",
      "/*": "the catch-all not-found page",
    });
  });

  it("names the pages as the navigation does, in its order (spec §2)", () => {
    expect(PUBLIC_PAGES).toEqual([
      { path: "/", label: "Home" },
      { path: "/stonework", label: "Stonework" },
      { path: "/landscaping", label: "Hard Landscaping" },
      { path: "/contact", label: "Contact" },
    ]);
    expect([publicPageLabel("/landscaping"), publicPageLabel("/admin")]).toEqual(["Hard Landscaping", undefined]);
  });

  it("knows a public page's client-navigation data, and nothing else", () => {
    expect(
      ["/stonework.data", "/_root.data", "/admin.data", "/stonework", "/no-such-page.data"].map(publicPageOfData),
    ).toEqual(["/stonework", "/", null, null, null]);
  });
});
