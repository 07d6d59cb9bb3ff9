import { CallToAction } from "~/components/call-to-action";
import { GallerySection } from "~/components/gallery-section";
import { PageHeader, Paragraphs } from "~/components/page-header";
import { readContent } from "~/content/content.server";
import { sectionKeysInGroup } from "~/content/sections";
import { loadGallery } from "~/galleries/galleries.server";
import { identity } from "~/identity";
import { pageMeta, siteSeoFrom } from "~/content/seo";
import type { Route } from "./+types/stonework";
import type { PublicPageHandle } from "~/islands/islands";

export async function loader({ context }: Route.LoaderArgs) {
  const { services, markDegraded: onFallback } = context;
  const [content, traditional, veneer] = await Promise.all([
    readContent(services, [...sectionKeysInGroup("stonework"), "contact.phone"], { onFallback }),
    loadGallery(services, "traditional", { onFallback }),
    loadGallery(services, "veneer", { onFallback }),
  ]);
  return { content, traditional, veneer };
}

export const handle: PublicPageHandle = { islands: [] };

export function meta({ data, matches }: Route.MetaArgs) {
  return pageMeta({
    title: `Stonemasonry in ${identity.city} & ${identity.region} | ${identity.businessName}`,
    description: data?.content["stonework.intro"] ?? "",
    path: "/stonework",
    seo: siteSeoFrom(matches),
  });
}

export default function Stonework({ loaderData }: Route.ComponentProps) {
  const { content, traditional, veneer } = loaderData;
  return (
    <>
      <PageHeader title="Professional Stonemasonry">
        <div className="space-y-3">
          <Paragraphs text={content["stonework.intro"]} />
        </div>
      </PageHeader>

      {/* On phones this gallery starts within the first screen: its first photo is the largest paint. */}
      <GallerySection
        id="traditional-title"
        title="Traditional Stonework"
        description={content["stonework.traditional.description"]}
        galleryType="traditional"
        state={traditional}
        eagerFirstImage
      />
      <GallerySection
        id="veneer-title"
        title="Modern Veneer Stonework"
        description={content["stonework.veneer.description"]}
        galleryType="veneer"
        state={veneer}
      />

      <CallToAction
        title={content["stonework.cta.title"]}
        text={content["stonework.cta.text"]}
        phone={content["contact.phone"]}
      />
    </>
  );
}
