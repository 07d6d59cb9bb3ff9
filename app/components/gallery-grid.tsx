import { ImageOff } from "lucide-react";
import { GALLERY_LOAD_ERROR, galleryImageAlt, type GalleryResult, type GalleryType } from "~/galleries/gallery";
import { ResponsiveImage } from "./responsive-image";
import { ErrorNotice } from "./ui/error-notice";

/** Spec §9: six placeholder tiles while a gallery loads. */
export const GALLERY_PLACEHOLDER_COUNT = 6;

export type GalleryState = { status: "loading" } | GalleryResult;

// One column on phones, two from sm, three from lg, inside a max-w-7xl container (px-4, then px-6 from sm, px-8 from lg).
// Gaps: 1rem between columns (app/site.css .gallery-masonry).
export const GRID_SIZES =
  "(min-width: 1280px) 395px, (min-width: 1024px) calc((100vw - 96px) / 3), (min-width: 640px) calc((100vw - 64px) / 2), calc(100vw - 32px)";
const PLACEHOLDER_HEIGHTS = ["h-64", "h-48", "h-72", "h-56", "h-44", "h-60"];

/** `eagerFirstImage`: for a gallery within a phone's first screen, where its first image is the largest paint. */
export function GalleryGrid({
  galleryType,
  state,
  eagerFirstImage = false,
}: {
  galleryType: GalleryType;
  state: GalleryState;
  eagerFirstImage?: boolean;
}) {
  if (state.status === "loading") {
    return (
      <div
        className="gallery-masonry columns-1 sm:columns-2 lg:columns-3"
        aria-busy="true"
        role="status"
        aria-label="Loading gallery"
      >
        {Array.from({ length: GALLERY_PLACEHOLDER_COUNT }, (_, i) => (
          <div
            key={i}
            data-testid="gallery-placeholder"
            className={`mb-4 break-inside-avoid animate-pulse rounded-lg bg-stone-200 ${PLACEHOLDER_HEIGHTS[i]}`}
          />
        ))}
      </div>
    );
  }

  if (state.status === "error") {
    return <ErrorNotice>{GALLERY_LOAD_ERROR}</ErrorNotice>;
  }

  if (state.images.length === 0) {
    return (
      <div className="flex flex-col items-center gap-2 rounded-lg border border-dashed border-stone-300 p-10 text-center text-stone-600">
        <ImageOff aria-hidden="true" className="h-8 w-8" />
        <p>No images available in this gallery.</p>
      </div>
    );
  }

  return (
    <ul className="gallery-masonry columns-1 sm:columns-2 lg:columns-3" data-gallery={galleryType}>
      {state.images.map((image, index) => (
        <li key={image.id} className="mb-4 break-inside-avoid">
          <figure className="overflow-hidden rounded-lg bg-white shadow-sm ring-1 ring-stone-200">
            <ResponsiveImage
              image={image}
              alt={galleryImageAlt(image, galleryType, index)}
              sizes={GRID_SIZES}
              priority={eagerFirstImage && index === 0}
              keepsRatio
            />
            {image.caption.trim() ? (
              // The caption is already the image's alt text; screen readers should hear it once.
              <figcaption aria-hidden="true" className="px-4 py-3 text-sm text-stone-700">
                {image.caption}
              </figcaption>
            ) : null}
          </figure>
        </li>
      ))}
    </ul>
  );
}
