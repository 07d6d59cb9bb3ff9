import type { AppLoadContext } from "react-router";
import { readContent } from "~/content/content.server";
import { sectionKeysInGroup, type PageGroup } from "~/content/sections";
import { loadGallery } from "./galleries.server";
import type { GalleryResult, GalleryType } from "./gallery";

/** A failed read shows the fallback and marks the render degraded, so it is never cached. */
export async function loadPortfolio<G extends PageGroup, T extends GalleryType>(
  { services, markDegraded: onFallback }: Pick<AppLoadContext, "services" | "markDegraded">,
  group: G,
  portfolio: { galleries: readonly { galleryType: T }[] },
) {
  const [content, galleries] = await Promise.all([
    readContent(services, [...sectionKeysInGroup(group), "contact.phone"], { onFallback }),
    Promise.all(
      portfolio.galleries.map(
        async ({ galleryType }) => [galleryType, await loadGallery(services, galleryType, { onFallback })] as const,
      ),
    ),
  ]);
  return { content, galleries: Object.fromEntries(galleries) as Record<T, GalleryResult> };
}
