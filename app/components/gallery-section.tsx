import { GalleryGrid, type GalleryState } from "./gallery-grid";
import { Paragraphs } from "./page-header";
import type { GalleryType } from "~/galleries/gallery";

/** A portfolio page's gallery: its heading, the owner's description, then the photos. */
export function GallerySection({
  id,
  title,
  description,
  galleryType,
  state,
  eagerFirstImage,
}: {
  /** The heading's id, which labels the section. */
  id: string;
  title: string;
  description: string;
  galleryType: GalleryType;
  state: GalleryState;
  /** The gallery starts within a phone's first screen: its first photo is the largest paint. */
  eagerFirstImage?: boolean;
}) {
  return (
    <section aria-labelledby={id} className="mx-auto max-w-7xl px-4 py-14 sm:px-6 lg:px-8">
      <h2 id={id} className="font-display text-3xl font-bold">
        {title}
      </h2>
      <div className="mt-4 mb-8 max-w-3xl space-y-3 text-lg text-stone-700">
        <Paragraphs text={description} />
      </div>
      <GalleryGrid galleryType={galleryType} state={state} eagerFirstImage={eagerFirstImage} />
    </section>
  );
}
