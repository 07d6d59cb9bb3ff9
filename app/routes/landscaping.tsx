import { CallToAction } from "~/components/call-to-action";
import { GallerySection } from "~/components/gallery-section";
import { PageHeader, Paragraphs } from "~/components/page-header";
import { readContent } from "~/content/content.server";
import { sectionKeysInGroup } from "~/content/sections";
import { loadGallery } from "~/galleries/galleries.server";
import { identity } from "~/identity";
import { pageMeta, siteSeoFrom } from "~/content/seo";
import type { Route } from "./+types/landscaping";
import type { PublicPageHandle } from "~/islands/islands";

export async function loader({ context }: Route.LoaderArgs) {
  const { services, markDegraded: onFallback } = context;
  const [content, landscaping] = await Promise.all([
    readContent(services, [...sectionKeysInGroup("landscaping"), "contact.phone"], { onFallback }),
    loadGallery(services, "landscaping", { onFallback }),
  ]);
  return { content, landscaping };
}

export const handle: PublicPageHandle = { islands: [] };

export function meta({ data, matches }: Route.MetaArgs) {
  return pageMeta({
    title: `Hard Landscaping in ${identity.city} | ${identity.businessName}`,
    description: data?.content["landscaping.intro"] ?? "",
    path: "/landscaping",
    seo: siteSeoFrom(matches),
  });
}

export default function Landscaping({ loaderData }: Route.ComponentProps) {
  const { content, landscaping } = loaderData;
  return (
    <>
      <PageHeader title="Hard Landscaping">
        <div className="space-y-3">
          <Paragraphs text={content["landscaping.intro"]} />
        </div>
      </PageHeader>

      {/* On phones this gallery starts within the first screen: its first photo is the largest paint. */}
      <GallerySection
        id="projects-title"
        title="Recent Projects"
        description={content["landscaping.gallery.description"]}
        galleryType="landscaping"
        state={landscaping}
        eagerFirstImage
      />

      <CallToAction
        title={content["landscaping.cta.title"]}
        text={content["landscaping.cta.text"]}
        phone={content["contact.phone"]}
        showMessageButton
      />
    </>
  );
}
