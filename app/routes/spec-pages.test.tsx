import { renderToStaticMarkup } from "react-dom/server";
import type { ReactElement } from "react";
import { MemoryRouter } from "react-router";
import { describe, expect, it } from "vitest";
import { SiteFooter } from "~/components/layout/site-footer";
import { reviewSite, type Review } from "~/components/reviews-section";
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

const review = (n: number, fields: Partial<Review> = {}): Review => ({
  id: `r${n}`,
  quote: `Quote ${n}`,
  name: `Customer ${n}`,
  town: "",
  service: "",
  month: "",
  link: "",
  ...fields,
});

function home(reviews: Review[]) {
  const content = defaultContentMap([...sectionKeysInGroup("homepage"), "contact.name"]);
  const loaderData = { content, heroImages: [], stoneworkImage: null, landscapingImage: null, reviews };
  return html(<Home {...({ loaderData } as unknown as Parameters<typeof Home>[0])} />);
}

function contact(reviews: Review[], areas?: string) {
  const content = defaultContentMap([...sectionKeysInGroup("contact"), ...sectionKeysInGroup("contact_info")]);
  if (areas) content["contact.areas"] = areas;
  const loaderData = { content, crossSiteRefused: false, sent: null, reviews };
  const page = html(<Contact {...({ loaderData } as unknown as Parameters<typeof Contact>[0])} />);
  return between(page, '<div class="mx-auto grid', '<section aria-labelledby="contact-form-title"');
}

const footer = (areas?: string) =>
  html(<SiteFooter content={{ ...defaultContentMap(LAYOUT_KEYS), ...(areas ? { "contact.areas": areas } : {}) }} />);

describe("the spec's pages with no review shown and the built-in towns", () => {
  it("/: from the services section to the end", async () => {
    await expect(between(home([]), '<section aria-labelledby="services-title"')).toMatchFileSnapshot(
      "__snapshots__/spec-home.html",
    );
  });

  it("/contact: the About text and the Get In Touch card", async () => {
    await expect(contact([])).toMatchFileSnapshot("__snapshots__/spec-contact.html");
  });

  it("the footer", async () => {
    await expect(footer()).toMatchFileSnapshot("__snapshots__/spec-footer.html");
  });
});

describe("what the owner adds", () => {
  it("/ shows 'What customers say' after the services, in the owner's order, as text", () => {
    const page = home([
      review(1, { quote: "<script>alert(1)</script> & more", town: "Waitara", service: "Retaining Walls" }),
      review(2, { link: "https://www.google.com/maps/reviews/abc" }),
      review(3),
    ]);
    const section = between(
      page,
      '<section aria-labelledby="reviews-title"',
      '<section aria-labelledby="about-snippet',
    );
    expect(page.indexOf("reviews-title")).toBeGreaterThan(page.indexOf("services-title"));
    expect(section).toContain(">What customers say</h2>");
    expect(section).toContain("&lt;script&gt;alert(1)&lt;/script&gt; &amp; more");
    expect(section).not.toContain("<script>");
    expect(section).toContain("Customer 1</span>, Waitara, Retaining Walls");
    expect([...section.matchAll(/Customer (\d)/g)].map((match) => match[1])).toEqual(["1", "2", "3"]);
    expect(section).toContain(
      '<a href="https://www.google.com/maps/reviews/abc" rel="nofollow noopener" class="flex min-h-11 items-center font-medium text-brand-700 underline-offset-2 hover:underline">Read it on Google</a>',
    );
    expect(section.match(/<a /g)).toHaveLength(1);
  });

  it("/contact shows the first review beside the Get In Touch card, and the towns once changed", () => {
    const section = contact([review(1), review(2)], "Waitara\nInglewood");
    expect(section).toContain("Quote 1");
    expect(section).not.toContain("Quote 2");
    expect(section.indexOf("Quote 1")).toBeGreaterThan(section.indexOf("get-in-touch-title"));
    expect(section).toContain(">Serving Waitara, Inglewood</li>");
    expect(footer("Waitara\nInglewood")).toContain(">Serving Waitara, Inglewood</li>");
  });

  it("names the review sites, and any other by its host", () => {
    expect(
      [
        "https://g.page/r/CabC/review",
        "https://www.google.co.nz/search?q=x",
        "https://www.builderscrack.co.nz/tradies/123",
        "https://nocowboys.co.nz/businesses/cornerstone",
        "https://m.facebook.com/cornerstone/reviews",
        "https://www.trademe.co.nz/a/123",
        "https://notgoogle.com/x",
        "not an address",
      ].map(reviewSite),
    ).toEqual([
      "Google",
      "Google",
      "Builderscrack",
      "NoCowboys",
      "Facebook",
      "www.trademe.co.nz",
      "notgoogle.com",
      null,
    ]);
  });
});
