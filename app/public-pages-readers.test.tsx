import { render, screen, within } from "@testing-library/react";
import { MemoryRouter } from "react-router";
import { describe, expect, it, vi } from "vitest";
import { viewedPage } from "~/analytics/page-views";
import { SPECULATION_RULES } from "~/components/layout/speculation-rules";
import { SiteHeader } from "~/components/layout/site-header";
import type * as PublicPages from "~/public-pages";
import { loader as sitemapLoader } from "~/routes/sitemap";
import { cacheKeyFor } from "../server/page-cache";

/** A page that is only in the list, not in any reader: each reader must take it from the list. */
const ADDED = vi.hoisted(() => ({ path: "/testimonials", label: "Testimonials" }));

vi.mock("~/public-pages", async (importOriginal) => {
  const actual = await importOriginal<typeof PublicPages>();
  const pages = [...actual.PUBLIC_PAGES, ADDED];
  const labels = new Map(pages.map((page) => [page.path, page.label]));
  return {
    PUBLIC_PAGES: pages,
    PUBLIC_PAGE_PATHS: pages.map((page) => page.path),
    isPublicPage: (path: string) => labels.has(path),
    publicPageLabel: (path: string) => labels.get(path),
    publicPageOfData: (path: string) =>
      actual.publicPageOfData(path) ?? (path === `${ADDED.path}.data` ? ADDED.path : null),
  };
});

describe("a page added to app/public-pages.ts", () => {
  it("is in the main navigation, on wide screens and in the phone menu", () => {
    render(
      <MemoryRouter initialEntries={["/testimonials"]}>
        <SiteHeader />
      </MemoryRouter>,
    );
    const navs = screen.getAllByRole("navigation", { name: "Main", hidden: true });
    expect(navs).toHaveLength(2);
    for (const nav of navs) {
      const link = within(nav).getByRole("link", { name: "Testimonials", hidden: true });
      expect(link).toHaveAttribute("href", "/testimonials");
      expect(link).toHaveAttribute("aria-current", "page");
    }
  });

  it("is in the sitemap", async () => {
    const env = { SITE_URL: "https://stone.example.nz" };
    const response = sitemapLoader({ context: { services: { env } } } as unknown as Parameters<
      typeof sitemapLoader
    >[0]);
    expect(await response.text()).toContain("<loc>https://stone.example.nz/testimonials</loc>");
  });

  it("is cached, with its client-navigation data", () => {
    expect([cacheKeyFor("GET", "/testimonials"), cacheKeyFor("HEAD", "/testimonials.data")]).toEqual([
      "/testimonials",
      "/testimonials.data",
    ]);
  });

  it("counts as a page view", () => {
    expect(viewedPage("GET", "/testimonials")).toEqual({ path: "/testimonials", navigation: "document" });
    expect(viewedPage("POST", "/api/page-views/shown?path=%2Ftestimonials")).toEqual({
      path: "/testimonials",
      navigation: "prerender-shown",
    });
  });

  it("is prerendered by the speculation rules", () => {
    expect(JSON.parse(SPECULATION_RULES).prerender[0].where.href_matches).toContain("/testimonials");
  });
});
