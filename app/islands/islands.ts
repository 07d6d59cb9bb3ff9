import type { UIMatch } from "react-router";
import type { ISLAND_NAMES } from "./island-names.generated";

/**
 * One interactive part of a public page: a file `app/islands/<name>.island.ts`, a browser entry of
 * its own (app/islands/vite-plugin.ts). The names come from those files, so a misspelt one in a
 * route's handle or in markIslandMounted fails `tsc`.
 */
export type IslandName = (typeof ISLAND_NAMES)[number];

/**
 * A public route's `handle`: the page is served as HTML and CSS without React Router's client
 * runtime, and these islands are all the script it loads (docs/decisions/0055). Routes without it
 * (the admin) are the full React application.
 */
export type PublicPageHandle = { islands: readonly IslandName[] };

/** Every public page has the header's mobile menu. */
const LAYOUT_ISLANDS: readonly IslandName[] = ["menu"];

/** The islands of the page being rendered, or null when it is the full React application. */
export function publicPageIslands(matches: readonly UIMatch[]): IslandName[] | null {
  const handle = matches.at(-1)?.handle as Partial<PublicPageHandle> | undefined;
  if (!handle?.islands) return null;
  return [...new Set([...LAYOUT_ISLANDS, ...handle.islands])];
}
