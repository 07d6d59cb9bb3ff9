export type PageScriptOptions = {
  /** The page's largest-paint photo (`img[elementtiming=…]`). */
  photo: string;
  /** On <html> while the other photos wait (PHOTOS_WAIT_ATTRIBUTE). */
  wait: string;
  /** On <html>: when the photo loaded, in the page's own clock (LARGEST_PAINT_AT_ATTRIBUTE). */
  loadedAt: string;
  /** Added to the head with the other photos: the favicon and the web manifest (head-links.tsx). */
  links: readonly Record<string, string>[];
  /** The islands' files and the chunks they import, loaded together once the page has loaded and the photo painted. */
  islands: readonly string[];
  /** The prerender beacon's URL, to which the page's path is added. */
  beacon: string;
};

/**
 * The public pages' one inline script, in their head (decisions 0055, 0061, 0074). It is sent as its
 * source text (`pageScriptText`), so it may use only its options and the browser's globals.
 *
 * - The other photos wait for the largest-paint photo: <html> carries `wait`, which app/site.css
 *   turns into `display: none` for them (a lazy image without a box is not fetched), so on a slow
 *   link they do not share its bandwidth. It goes, and `links` are added, once the photo has loaded
 *   and Chromium reports it painted (Element Timing); at once without Element Timing, 3 s after the
 *   load at the latest (a photo off screen may never paint); at once when the photo fails, at
 *   DOMContentLoaded when the page has none, and on `load` when it has not loaded by then. Until then
 *   the head holds an empty icon, since a page without one gets /favicon.ico fetched at once.
 *   Without JavaScript nothing waits, and the photo itself never waits for a script.
 * - The islands load once the page has loaded and the photo is on screen (or released as above):
 *   nothing needs them sooner (the menu is a <details>, the hero waits 5 s, the form posts without them).
 * - A prerendered page counts its view once it is shown (decision 0032), and so does one Chromium
 *   showed from a prerender's response as a prefetch.
 */
export function publicPageScript(options: PageScriptOptions): void {
  const d = document;
  const html = d.documentElement;
  const emptyIcon = d.createElement("link");
  emptyIcon.rel = "icon";
  emptyIcon.href = "data:,";
  const append = (tag: string, attributes: Record<string, string>) => {
    const element = d.createElement(tag);
    for (const name in attributes) element.setAttribute(name, attributes[name]!);
    d.head.append(element);
  };
  // The islands wait for two things: the photo (shown) and the window's load.
  let islandsWaitFor = 2;
  const loadIslands = () => {
    if (--islandsWaitFor === 0) for (const src of options.islands) append("script", { type: "module", src });
  };
  let shown = false;
  const show = () => {
    if (shown) return;
    shown = true;
    html.removeAttribute(options.wait);
    emptyIcon.remove();
    options.links.forEach((link) => append("link", link));
    loadIslands();
  };
  let watching = false;
  const photoLoaded = () => {
    if (!html.hasAttribute(options.loadedAt))
      html.setAttribute(options.loadedAt, String(Math.round(performance.now())));
    if (watching) return;
    watching = true;
    if (typeof PerformanceObserver !== "function" || !PerformanceObserver.supportedEntryTypes.includes("element"))
      return show();
    new PerformanceObserver(show).observe({ type: "element", buffered: true });
    setTimeout(show, 3000);
  };
  const photo = () => d.querySelector<HTMLImageElement>(options.photo);
  const settled = (img: HTMLImageElement) => (img.naturalWidth > 0 ? photoLoaded() : show());
  const isPhoto = (event: Event) => event.target instanceof Element && event.target.matches(options.photo);
  // Capturing, on the document: registered before the photo exists.
  d.addEventListener("load", (event) => isPhoto(event) && photoLoaded(), true);
  d.addEventListener("error", (event) => isPhoto(event) && show(), true);
  d.addEventListener("DOMContentLoaded", () => {
    const img = photo();
    if (!img) show();
    else if (img.complete) settled(img);
  });
  addEventListener("load", () => {
    const img = photo();
    if (img?.complete) settled(img);
    else show();
    loadIslands();
  });

  const countView = () => navigator.sendBeacon(options.beacon + encodeURIComponent(location.pathname));
  if ((d as Document & { prerendering?: boolean }).prerendering)
    d.addEventListener("prerenderingchange", countView, { once: true });
  else
    addEventListener(
      "pageshow",
      () => {
        const navigation = performance.getEntriesByType("navigation")[0] as { deliveryType?: string } | undefined;
        if (navigation?.deliveryType === "navigational-prefetch") countView();
      },
      { once: true },
    );

  // Last, once everything above listens: a browser that stopped on an error earlier shows every photo.
  html.setAttribute(options.wait, "");
  d.head.append(emptyIcon);
}

/** Marks the page script's <script>, so tools can read its island files (`islandFilesInPage`). */
export const PAGE_SCRIPT_ATTRIBUTE = "data-page-script";

/** The inline script's text: the function's source, called with its options (`<` escaped: it sits in HTML). */
export function pageScriptText(options: PageScriptOptions): string {
  return `(${publicPageScript})(${JSON.stringify(options).replaceAll("<", "\\u003c")})`;
}

/** The script files a public page's HTML loads: the page script's islands, module scripts and modulepreloads. */
export function islandFilesInPage(html: string): string[] {
  const script = new RegExp(`<script[^>]*${PAGE_SCRIPT_ATTRIBUTE}[^>]*>([\\s\\S]*?)</script>`).exec(html)?.[1];
  // The options are the text after the function's last `)(`, up to the final `)`.
  const islands = script
    ? (JSON.parse(script.slice(script.lastIndexOf(")(") + 2, -1)) as PageScriptOptions).islands
    : [];
  return [
    ...new Set([
      ...islands,
      ...[
        ...html.matchAll(/<script[^>]*\bsrc="([^"]+)"/g),
        ...html.matchAll(/<link rel="modulepreload"[^>]*href="([^"]+)"/g),
      ].map((m) => m[1]!),
    ]),
  ];
}
