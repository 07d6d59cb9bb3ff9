import { PUBLIC_PAGE_PATHS } from "~/public-pages";

/** Chromium prerenders a public page whose link a pointer rests on ("moderate"); other browsers ignore it. */
export const SPECULATION_RULES = JSON.stringify({
  prerender: [{ source: "document", where: { href_matches: PUBLIC_PAGE_PATHS }, eagerness: "moderate" }],
});
