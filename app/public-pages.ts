/**
 * The public pages, each once: the main navigation (in this order, with these labels: spec §2
 * "Shared layout"), the sitemap, the page cache, the page-view counter and its labels, and the
 * speculation rules all read this list. Adding a public page is its line in app/routes.ts, its
 * route module, and one line here (app/public-pages.test.ts fails when a page route is missing).
 * Plain data with no imports, so the browser's code and the server's can both read it.
 */
export const PUBLIC_PAGES = [
  { path: "/", label: "Home" },
  { path: "/stonework", label: "Stonework" },
  { path: "/landscaping", label: "Hard Landscaping" },
  { path: "/contact", label: "Contact" },
] as const satisfies readonly PublicPage[];

export type PublicPage = {
  /** The page's path, as in the address bar. */
  path: string;
  /** Its name in the navigation and in the owner's analytics. */
  label: string;
};

const LABELS: ReadonlyMap<string, string> = new Map(PUBLIC_PAGES.map((page) => [page.path, page.label]));

/** The public pages' paths, in the navigation's order. */
export const PUBLIC_PAGE_PATHS: readonly string[] = PUBLIC_PAGES.map((page) => page.path);

/** Whether `path` (no query string) is a public page. */
export function isPublicPage(path: string): boolean {
  return LABELS.has(path);
}

/** A public page's label ("/landscaping" → "Hard Landscaping"), or undefined for any other path. */
export function publicPageLabel(path: string): string | undefined {
  return LABELS.get(path);
}

/**
 * The public page whose client-navigation data `path` asks for: React Router fetches a page's
 * loader data from `<path>.data`, and the home page's from `/_root.data`. Null for anything else.
 */
export function publicPageOfData(path: string): string | null {
  if (!path.endsWith(".data")) return null;
  const page = path === "/_root.data" ? "/" : path.slice(0, -".data".length);
  return LABELS.has(page) ? page : null;
}
