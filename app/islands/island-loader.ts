/**
 * The inline script that loads a public page's islands once the page has loaded (its first photo
 * included), so their requests never compete with the largest paint for a phone's bandwidth, and
 * Lighthouse's simulation does not count them before it (decision 0055). Nothing needs them sooner:
 * the menu is a <details>, the hero waits 5 s before it turns, and the contact form posts without
 * JavaScript. Entries and the chunks they import are requested together: no waterfall.
 */
export function islandLoader(files: readonly string[]): string {
  return `(function(){var l=function(){${JSON.stringify(files)}.forEach(function(f){import(f)})};if(document.readyState==="complete")l();else addEventListener("load",l,{once:true})})()`;
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
