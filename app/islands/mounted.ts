import type { IslandName } from "./islands";

/**
 * Called by each island once it listens: when every island the page lists (`<html data-islands>`)
 * has, the page is marked hydrated, as the full application marks it (browser tests wait for it).
 */
export function markIslandMounted(name: IslandName): void {
  const root = document.documentElement;
  const mounted = new Set((root.dataset.islandsMounted ?? "").split(" ").filter(Boolean)).add(name);
  root.dataset.islandsMounted = [...mounted].join(" ");
  const expected = (root.dataset.islands ?? "").split(" ").filter(Boolean);
  if (expected.every((island) => mounted.has(island))) root.dataset.hydrated = "true";
}
