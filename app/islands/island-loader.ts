/** On the page's largest-paint photo: the loader waits until it is on screen (Element Timing). */
export const LARGEST_PAINT_TIMING = "largest-paint";

/**
 * The inline script that loads a public page's islands once the page has loaded and its largest
 * paint is on screen: after `load`, when Chromium reports the photo marked
 * `elementtiming="largest-paint"` painted (Element Timing; at once when there is none, or in a
 * browser without it). So their requests never compete with that photo for a phone's bandwidth, and
 * Lighthouse's simulation does not count them before it (decision 0055). A photo that fails to
 * decode never paints, and one off screen (a restored scroll position) may not: then they load at
 * once, or after 3 s. Nothing needs them sooner: the menu is a <details>, the hero waits 5 s before
 * it turns, and the contact form posts without JavaScript. Entries and the chunks they import are
 * requested together: no waterfall.
 */
export function islandLoader(files: readonly string[]): string {
  return (
    `(function(){var done=false,go=function(){if(done)return;done=true;${JSON.stringify(files)}.forEach(function(f){import(f)})};` +
    `var painted=function(){var photos=[].slice.call(document.querySelectorAll('img[elementtiming="${LARGEST_PAINT_TIMING}"]'));` +
    `if(!photos.length||typeof PerformanceObserver!=="function"||PerformanceObserver.supportedEntryTypes.indexOf("element")<0)return go();` +
    `new PerformanceObserver(go).observe({type:"element",buffered:true});` +
    `Promise.all(photos.map(function(p){return p.decode()})).catch(go);setTimeout(go,3000)};` +
    `if(document.readyState==="complete")painted();else addEventListener("load",painted,{once:true})})()`
  );
}

/** Marks the loader's <script> so tools can find it (`islandFilesInPage`). */
export const ISLAND_LOADER_ATTRIBUTE = "data-islands-loader";

/** The script files a public page's HTML loads: the loader's list, module scripts and modulepreloads. */
export function islandFilesInPage(html: string): string[] {
  const loader = new RegExp(`<script[^>]*${ISLAND_LOADER_ATTRIBUTE}[^>]*>([\\s\\S]*?)</script>`).exec(html)?.[1] ?? "";
  // The loader's first array is its file list.
  const listed = /\[[^\]]*\]/.exec(loader)?.[0];
  return [
    ...new Set([
      ...(listed ? (JSON.parse(listed) as string[]) : []),
      ...[
        ...html.matchAll(/<script[^>]*\bsrc="([^"]+)"/g),
        ...html.matchAll(/<link rel="modulepreload"[^>]*href="([^"]+)"/g),
      ].map((m) => m[1]!),
    ]),
  ];
}
