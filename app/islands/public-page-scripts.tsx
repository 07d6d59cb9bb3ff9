import islandAssets from "virtual:cornerstone/islands";
import { PAGE_VIEW_BEACON_PATH } from "~/analytics/page-views";
import type { IslandName } from "~/islands/islands";
import {
  LARGEST_PAINT_AT_ATTRIBUTE,
  LARGEST_PAINT_TIMING,
  PHOTOS_WAIT_ATTRIBUTE,
} from "~/components/largest-paint-attributes";
import { PAGE_SCRIPT_ATTRIBUTE, pageScriptText } from "~/islands/page-script";
import { EAGERLY_FETCHED_HEAD_LINKS } from "~/components/layout/head-links";
import { SPECULATION_RULES } from "~/components/layout/speculation-rules";

/**
 * All the script a public page has: its one inline script (app/islands/page-script.ts: the other
 * photos wait for the largest paint, then the islands load; the prerender beacon) and the
 * speculation rules, both with the nonce (cached copies carry their hashes: server/page-cache.ts).
 */
export function PublicPageScripts({ islands, nonce }: { islands: readonly IslandName[]; nonce: string | undefined }) {
  const entries = islands.flatMap((name) => islandAssets[name] ?? []);
  const script = pageScriptText({
    photo: `img[elementtiming="${LARGEST_PAINT_TIMING}"]`,
    wait: PHOTOS_WAIT_ATTRIBUTE,
    loadedAt: LARGEST_PAINT_AT_ATTRIBUTE,
    links: EAGERLY_FETCHED_HEAD_LINKS,
    islands: [...new Set(entries.flatMap((entry) => [...entry.imports, entry.file]))],
    beacon: `${PAGE_VIEW_BEACON_PATH}?path=`,
  });
  return (
    <>
      <script nonce={nonce} {...{ [PAGE_SCRIPT_ATTRIBUTE]: "" }} dangerouslySetInnerHTML={{ __html: script }} />
      <script type="speculationrules" nonce={nonce} dangerouslySetInnerHTML={{ __html: SPECULATION_RULES }} />
    </>
  );
}
