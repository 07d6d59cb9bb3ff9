import type { MetaDescriptor } from "react-router";
import type { ContentMap } from "./sections";
import { identity, splitLines } from "~/identity";

/** What the root loader gives every page's meta: the site's address, contact details and share image. */
export type SiteSeo = {
  siteUrl: string;
  contact: ContentMap<"contact.name" | "contact.phone" | "contact.email" | "contact.address" | "contact.areas">;
  shareImage: { imagePath: string; width: number; height: number; caption: string } | null;
};

/** Meta descriptions read best under about 160 characters. */
function summarise(text: string, max = 160): string {
  const flat = text.replace(/\s+/g, " ").trim();
  if (flat.length <= max) return flat;
  const cut = flat.slice(0, max - 1);
  return `${cut.slice(0, cut.lastIndexOf(" "))}…`;
}

/** Title, description, canonical URL, Open Graph and Twitter tags for a public page. */
export function pageMeta(options: {
  title: string;
  description: string;
  path: string;
  seo: SiteSeo | undefined;
}): MetaDescriptor[] {
  const { title, path, seo } = options;
  const description = summarise(options.description);
  const url = seo ? `${seo.siteUrl}${path === "/" ? "/" : path}` : path;
  const tags: MetaDescriptor[] = [
    { title },
    { name: "description", content: description },
    { tagName: "link", rel: "canonical", href: url },
    { property: "og:type", content: "website" },
    { property: "og:site_name", content: identity.businessName },
    { property: "og:locale", content: "en_NZ" },
    { property: "og:title", content: title },
    { property: "og:description", content: description },
    { property: "og:url", content: url },
    { name: "twitter:card", content: seo?.shareImage ? "summary_large_image" : "summary" },
    { name: "twitter:title", content: title },
    { name: "twitter:description", content: description },
  ];
  const image = seo?.shareImage;
  if (image && seo) {
    const imageUrl = absoluteImageUrl(seo.siteUrl, image.imagePath);
    const alt = image.caption.trim() || `${identity.businessName}, ${identity.trade} in ${identity.region}`;
    tags.push(
      { property: "og:image", content: imageUrl },
      { property: "og:image:width", content: String(image.width) },
      { property: "og:image:height", content: String(image.height) },
      { property: "og:image:alt", content: alt },
      { name: "twitter:image", content: imageUrl },
      { name: "twitter:image:alt", content: alt },
    );
  }
  return tags;
}

/** Image paths are site-relative (/media/…), or absolute when MEDIA_BASE_URL points elsewhere. */
function absoluteImageUrl(siteUrl: string, imagePath: string): string {
  return /^https?:\/\//.test(imagePath) ? imagePath : `${siteUrl}${imagePath}`;
}

/** The root route's SEO data from a meta function's matches. */
export function siteSeoFrom(matches: ReadonlyArray<{ id: string; data?: unknown } | undefined>): SiteSeo | undefined {
  const root = matches.find((match) => match?.id === "root")?.data as { seo?: SiteSeo } | undefined;
  return root?.seo;
}

/** The towns served: a few dozen names at most; anything longer is cut before it is listed. */
const MAX_TOWNS_CHARS = 2000;

/** A postal address is a few short lines; anything longer is cut before it is parsed. */
export const MAX_ADDRESS_CHARS = 300;

const isSeparator = (char: string | undefined) => char !== undefined && (char === "," || /\s/.test(char));

/** One backwards scan: a regular expression here backtracked quadratically on long runs of spaces. */
export function splitPostcode(line: string): { locality: string; postalCode?: string } {
  const postalCode = line.slice(-4);
  let end = line.length - 4;
  if (end < 1 || !/^\d{4}$/.test(postalCode) || !isSeparator(line[end - 1])) return { locality: line };
  while (end > 0 && isSeparator(line[end - 1])) end -= 1;
  return { locality: line.slice(0, end), postalCode };
}

/** "1 Devon Street\nNew Plymouth 4310" → a schema.org PostalAddress. */
export function postalAddress(address: string) {
  const lines = splitLines(address.slice(0, MAX_ADDRESS_CHARS));
  const last = lines.at(-1) ?? identity.city;
  const { locality, postalCode } = splitPostcode(last);
  return {
    "@type": "PostalAddress",
    streetAddress: lines.slice(0, -1).join(", ") || undefined,
    addressLocality: locality,
    postalCode,
    addressRegion: identity.region,
    addressCountry: identity.countryCode,
  };
}

/** schema.org HomeAndConstructionBusiness, always built from the current contact details. */
export function businessJsonLd(seo: SiteSeo) {
  return {
    "@context": "https://schema.org",
    "@type": "HomeAndConstructionBusiness",
    name: identity.businessName,
    legalName: identity.companyName,
    url: `${seo.siteUrl}/`,
    telephone: seo.contact["contact.phone"],
    email: seo.contact["contact.email"],
    founder: { "@type": "Person", name: seo.contact["contact.name"] },
    address: postalAddress(seo.contact["contact.address"]),
    areaServed: [
      { "@type": "AdministrativeArea", name: identity.region },
      ...splitLines(seo.contact["contact.areas"].slice(0, MAX_TOWNS_CHARS)).map((name) => ({ "@type": "City", name })),
    ],
    ...(seo.shareImage ? { image: absoluteImageUrl(seo.siteUrl, seo.shareImage.imagePath) } : {}),
  };
}

/** JSON for a <script> element: "<" escaped so no text can close the element early. */
export function jsonForScript(value: unknown): string {
  return JSON.stringify(value)
    .replace(/</g, "\\u003c")
    .replace(/\u2028/g, "\\u2028")
    .replace(/\u2029/g, "\\u2029");
}
