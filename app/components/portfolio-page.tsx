import type { ContentMap, SectionKey } from "~/content/sections";
import type { GalleryType } from "~/galleries/gallery";
import { CallToAction } from "./call-to-action";
import type { GalleryState } from "./gallery-grid";
import { GallerySection } from "./gallery-section";
import { PageHeader, Paragraphs } from "./page-header";

/** A portfolio page (Stonework, Hard Landscaping): its headings, and which of the owner's texts go where. */
export type Portfolio<K extends SectionKey = SectionKey, T extends GalleryType = GalleryType> = {
  title: string;
  intro: K;
  galleries: readonly {
    galleryType: T;
    title: string;
    /** The heading's id, which labels the gallery's section. */
    headingId: string;
    description: K;
  }[];
  cta: { title: K; text: K; showMessageButton?: boolean };
};

/** The title band and introduction, each gallery under its heading and description, then the call to action. */
export function PortfolioPage<K extends SectionKey, T extends GalleryType>({
  portfolio,
  content,
  galleries,
}: {
  portfolio: Portfolio<K, T>;
  content: ContentMap<K | "contact.phone">;
  galleries: Record<T, GalleryState>;
}) {
  return (
    <>
      <PageHeader title={portfolio.title}>
        <div className="space-y-3">
          <Paragraphs text={content[portfolio.intro]} />
        </div>
      </PageHeader>

      {portfolio.galleries.map((gallery, i) => (
        <GallerySection
          key={gallery.galleryType}
          id={gallery.headingId}
          title={gallery.title}
          description={content[gallery.description]}
          galleryType={gallery.galleryType}
          state={galleries[gallery.galleryType]}
          // On phones the first gallery starts within the first screen: its first photo is the largest paint.
          eagerFirstImage={i === 0}
        />
      ))}

      <CallToAction
        title={content[portfolio.cta.title]}
        text={content[portfolio.cta.text]}
        phone={content["contact.phone"]}
        showMessageButton={portfolio.cta.showMessageButton}
      />
    </>
  );
}
