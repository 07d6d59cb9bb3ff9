/**
 * The page script's options: the largest-paint photo's selector; <html>'s attributes while the other
 * photos wait and for when the photo loaded; the links (favicon, manifest) and the islands' files added
 * after it; the prerender beacon's URL, to which the page's path is added.
 */
export type PageScriptOptions = {
  photo: string;
  wait: string;
  loadedAt: string;
  links: readonly Record<string, string>[];
  islands: readonly string[];
  beacon: string;
};

/**
 * The public pages' one inline script (decisions 0055, 0061, 0074), sent as its source text
 * (`pageScriptText`): it may use only its options and the browser's globals.
 * - The other photos wait for the largest-paint photo (app/site.css hides them while <html> has
 *   `wait`: a lazy image without a box is not fetched), and so do `links`: until the photo has loaded
 *   and painted (Element Timing); at once without Element Timing, when it fails, when the page has
 *   none or it has not loaded by `load`; 3 s after its load at the latest (one off screen may never
 *   paint). Meanwhile an empty icon, or the browser fetches /favicon.ico. Without JavaScript nothing waits.
 * - The islands load once the photos are released and the window has loaded.
 * - A prerendered page, or one shown from a prerender's response, counts its view when shown (decision 0032).
 */
export function publicPageScript(options: PageScriptOptions): void {
  const d = document;
  const html = d.documentElement;
  const emptyIcon = Object.assign(d.createElement("link"), { rel: "icon", href: "data:," });
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
  const navigation = () => performance.getEntriesByType("navigation")[0] as { deliveryType?: string } | undefined;
  if ((d as Document & { prerendering?: boolean }).prerendering)
    d.addEventListener("prerenderingchange", countView, { once: true });
  else
    addEventListener("pageshow", () => navigation()?.deliveryType === "navigational-prefetch" && countView(), {
      once: true,
    });

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

/** The script files a public page loads: its page script's islands (public pages have no other script file). */
export function islandFilesInPage(html: string): string[] {
  const script = new RegExp(`<script[^>]*${PAGE_SCRIPT_ATTRIBUTE}[^>]*>([\\s\\S]*?)</script>`).exec(html)?.[1];
  // The options are the text after the function's last `)(`, up to the final `)`.
  return script
    ? (JSON.parse(script.slice(script.lastIndexOf(")(") + 2, -1)) as PageScriptOptions).islands.slice()
    : [];
}
