/**
 * The inline script that loads a public page's islands once the page has loaded and its largest
 * paint is on screen: after `load`, the high-priority photo decoded, then the next frame. So their
 * requests never compete with that photo for a phone's bandwidth, and Lighthouse's simulation does
 * not count them before it (decision 0055). Nothing needs them sooner: the menu is a <details>, the
 * hero waits 5 s before it turns, and the contact form posts without JavaScript. A hidden page
 * (a prerender, a background tab) draws no frames, so it loads them when shown. Entries and the
 * chunks they import are requested together: no waterfall.
 */
export function islandLoader(files: readonly string[]): string {
  return (
    `(function(){var go=function(){${JSON.stringify(files)}.forEach(function(f){import(f)})};` +
    `var painted=function(){Promise.all([].slice.call(document.images).filter(function(i){return i.fetchPriority==="high"})` +
    `.map(function(i){return i.decode().catch(function(){})})).then(function(){requestAnimationFrame(function(){setTimeout(go)})})};` +
    `if(document.readyState==="complete")painted();else addEventListener("load",painted,{once:true})})()`
  );
}

/** Marks the loader's <script> so tools can find it (`islandFilesInPage`). */
export const ISLAND_LOADER_ATTRIBUTE = "data-islands-loader";

/** The script files a public page's HTML loads: the loader's list, module scripts and modulepreloads. */
export function islandFilesInPage(html: string): string[] {
  const loader = new RegExp(`<script[^>]*${ISLAND_LOADER_ATTRIBUTE}[^>]*>([^<]*)</script>`).exec(html)?.[1] ?? "";
  const listed = /\[[^\]]*\]/.exec(loader)?.[0];
  return [
    ...new Set([
      ...(listed ? (JSON.parse(listed) as string[]) : []),
      ...[...html.matchAll(/<script[^>]*\bsrc="([^"]+)"/g), ...html.matchAll(/<link rel="modulepreload"[^>]*href="([^"]+)"/g)].map((m) => m[1]!),
    ]),
  ];
}
