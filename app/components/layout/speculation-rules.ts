import { PUBLIC_PAGE_PATHS } from "~/public-pages";

/**
 * Chromium prerenders the public page a visitor is about to open (a pointer resting on its link:
 * eagerness "moderate"). Other browsers ignore the rules and follow the link as usual.
 */
export const SPECULATION_RULES = JSON.stringify({
  prerender: [{ source: "document", where: { href_matches: PUBLIC_PAGE_PATHS }, eagerness: "moderate" }],
});
