import { renderToStaticMarkup } from "react-dom/server";
import type { ReactElement } from "react";
import { MemoryRouter } from "react-router";
import { describe, expect, it } from "vitest";
import { SiteFooter } from "~/components/layout/site-footer";
import { LAYOUT_KEYS, defaultContentMap, sectionKeysInGroup } from "~/content/sections";
import Contact from "./contact";
import Home from "./home";

/**
 * With no review shown and the towns text as built in, the spec's pages are exactly what they were
 * before lists the owner edits existed: the snapshots were written from that code and must not change.
 */
const html = (element: ReactElement) => renderToStaticMarkup(<MemoryRouter>{element}</MemoryRouter>);
const between = (text: string, start: string, end?: string) => {
  const from = text.indexOf(start);
  expect(from).toBeGreaterThanOrEqual(0);
  return end === undefined ? text.slice(from) : text.slice(from, text.indexOf(end, from));
};
const noReviews: Record<string, unknown> = { reviews: [] };

describe("the spec's pages with no review shown and the built-in towns", () => {
  it("/: from the services section to the end", async () => {
    const content = defaultContentMap([...sectionKeysInGroup("homepage"), "contact.name"]);
    const page = html(
      <Home
        {...({
          loaderData: { content, heroImages: [], stoneworkImage: null, landscapingImage: null, ...noReviews },
        } as unknown as Parameters<typeof Home>[0])}
      />,
    );
    await expect(between(page, '<section aria-labelledby="services-title"')).toMatchFileSnapshot(
      "__snapshots__/spec-home.html",
    );
  });

  it("/contact: the About text and the Get In Touch card", async () => {
    const content = defaultContentMap([...sectionKeysInGroup("contact"), ...sectionKeysInGroup("contact_info")]);
    const page = html(
      <Contact
        {...({ loaderData: { content, crossSiteRefused: false, sent: null, ...noReviews } } as unknown as Parameters<
          typeof Contact
        >[0])}
      />,
    );
    await expect(
      between(page, '<div class="mx-auto grid', '<section aria-labelledby="contact-form-title"'),
    ).toMatchFileSnapshot("__snapshots__/spec-contact.html");
  });

  it("the footer", async () => {
    await expect(html(<SiteFooter content={defaultContentMap(LAYOUT_KEYS)} />)).toMatchFileSnapshot(
      "__snapshots__/spec-footer.html",
    );
  });
});
