import islandAssets from "virtual:cornerstone/islands";
import { PAGE_VIEW_BEACON_PATH } from "~/analytics/page-views";
import { ISLAND_LOADER_ATTRIBUTE, islandLoader } from "~/islands/island-loader";
import type { IslandName } from "~/islands/islands";
import { largestPaintFirstScript } from "~/islands/largest-paint-first";
import { EAGERLY_FETCHED_HEAD_LINKS } from "./head-links";
import { SPECULATION_RULES } from "./speculation-rules";

/**
 * A prerendered page is requested before anyone sees it, so its request is not counted
 * (isPrefetch); it counts once, with this beacon, if and when it is shown (decision 0032).
 * When Chromium drops a prerender, it may still show the page from the prerender's response
 * (delivery type "navigational-prefetch", known once the page shows), which was not counted
 * either: that counts too.
 */
export const PRERENDER_BEACON = `(function(){var s=function(){navigator.sendBeacon(${JSON.stringify(
  `${PAGE_VIEW_BEACON_PATH}?path=`,
)}+encodeURIComponent(location.pathname))};if(document.prerendering)document.addEventListener("prerenderingchange",s,{once:true});else addEventListener("pageshow",function(){var n=performance.getEntriesByType("navigation")[0];if(n&&n.deliveryType==="navigational-prefetch")s()},{once:true})})()`;

const LARGEST_PAINT_SCRIPT = largestPaintFirstScript(EAGERLY_FETCHED_HEAD_LINKS);

/**
 * All the script a public page has: the wait of its other photos for the largest paint
 * (app/islands/largest-paint-first.ts), its islands (app/islands/island-loader.ts), the speculation
 * rules and the prerender beacon.
 */
export function PublicPageScripts({ islands, nonce }: { islands: readonly IslandName[]; nonce: string | undefined }) {
  const entries = islands.flatMap((name) => islandAssets[name] ?? []);
  const files = [...new Set(entries.flatMap((entry) => [...entry.imports, entry.file]))];
  return (
    <>
      <script nonce={nonce} dangerouslySetInnerHTML={{ __html: LARGEST_PAINT_SCRIPT }} />
      <script nonce={nonce} dangerouslySetInnerHTML={{ __html: PRERENDER_BEACON }} />
      <script type="speculationrules" nonce={nonce} dangerouslySetInnerHTML={{ __html: SPECULATION_RULES }} />
      <script
        nonce={nonce}
        {...{ [ISLAND_LOADER_ATTRIBUTE]: "" }}
        dangerouslySetInnerHTML={{ __html: islandLoader(files) }}
      />
    </>
  );
}
