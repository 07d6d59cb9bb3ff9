import { CallToAction } from "~/components/call-to-action";
import { GalleryGrid } from "~/components/gallery-grid";
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

      <section aria-labelledby="traditional-title" className="mx-auto max-w-7xl px-4 py-14 sm:px-6 lg:px-8">
        <h2 id="traditional-title" className="font-display text-3xl font-bold">
          Traditional Stonework
        </h2>
        <div className="mt-4 mb-8 max-w-3xl space-y-3 text-lg text-stone-700">
          <Paragraphs text={content["stonework.traditional.description"]} />
        </div>
        {/* On phones this gallery starts within the first screen: its first photo is the largest paint. */}
        <GalleryGrid galleryType="traditional" state={traditional} eagerFirstImage />
      </section>

      <section aria-labelledby="veneer-title" className="mx-auto max-w-7xl px-4 py-14 sm:px-6 lg:px-8">
        <h2 id="veneer-title" className="font-display text-3xl font-bold">
          Modern Veneer Stonework
        </h2>
        <div className="mt-4 mb-8 max-w-3xl space-y-3 text-lg text-stone-700">
          <Paragraphs text={content["stonework.veneer.description"]} />
        </div>
        <GalleryGrid galleryType="veneer" state={veneer} />
      </section>

      <CallToAction
        title={content["stonework.cta.title"]}
        text={content["stonework.cta.text"]}
        phone={content["contact.phone"]}
      />
    </>
  );
}
