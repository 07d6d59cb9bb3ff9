import { ImageOff } from "lucide-react";
import type { ReactNode } from "react";
import { Link } from "react-router";
import { Hero } from "~/components/hero";
import { Paragraphs } from "~/components/page-header";
import { ResponsiveImage } from "~/components/responsive-image";
import { buttonClasses } from "~/components/ui/button";
import { ReviewsSection } from "~/components/reviews-section";
import { readContent } from "~/content/content.server";
import { REVIEWS } from "~/content/lists";
import { itemsShownOn } from "~/content/lists.server";
import { sectionKeysInGroup } from "~/content/sections";
import { loadGallery } from "~/galleries/galleries.server";
import type { GalleryImage } from "~/galleries/gallery";
import { identity } from "~/identity";
import { cn } from "~/lib/cn";
import { pageMeta, siteSeoFrom } from "~/content/seo";
import type { Route } from "./+types/home";
import type { PublicPageHandle } from "~/islands/islands";

export async function loader({ context }: Route.LoaderArgs) {
  const { services, markDegraded: onFallback } = context;
  const [content, hero, traditional, landscaping, reviews] = await Promise.all([
    readContent(services, [...sectionKeysInGroup("homepage"), "contact.name"], { onFallback }),
    loadGallery(services, "homepage", { onFallback }),
    loadGallery(services, "traditional", { limit: 1, onFallback }),
    loadGallery(services, "landscaping", { limit: 1, onFallback }),
    itemsShownOn(services, REVIEWS, "/", { onFallback }),
  ]);
  const first = (result: typeof traditional) => (result.status === "ok" ? (result.images[0] ?? null) : null);
  return {
    content,
    heroImages: hero.status === "ok" ? hero.images : [],
    stoneworkImage: first(traditional),
    landscapingImage: first(landscaping),
    reviews,
  };
}

export const handle: PublicPageHandle = { islands: ["hero"] };

export function meta({ data, matches }: Route.MetaArgs) {
  return pageMeta({
    title: `${identity.businessName} | Stonemason & Hard Landscaping in ${identity.city}`,
    description: data?.content["hero.subtitle"] ?? "",
    path: "/",
    seo: siteSeoFrom(matches),
  });
}

const CARD_SIZES = "(min-width: 1280px) 600px, (min-width: 768px) 46vw, 92vw";

function ServiceCard({ title, to, image }: { title: string; to: string; image: GalleryImage | null }) {
  return (
    <Link
      to={to}
      className="group block overflow-hidden rounded-xl bg-white shadow-sm ring-1 ring-stone-200 transition-shadow hover:shadow-md"
    >
      <div className="aspect-[3/2] overflow-hidden bg-stone-200">
        {image ? (
          <ResponsiveImage
            image={image}
            alt={image.caption.trim() || title}
            sizes={CARD_SIZES}
            imgClassName="h-full object-cover transition-transform duration-300 group-hover:scale-105"
            className="block h-full"
          />
        ) : (
          <div className="flex h-full flex-col items-center justify-center gap-2 text-stone-600">
            <ImageOff aria-hidden="true" className="h-8 w-8" />
            <span>No image available</span>
          </div>
        )}
      </div>
      <div className="flex items-center justify-between p-5">
        <h3 className="font-display text-xl font-bold text-stone-900">{title}</h3>
        <span aria-hidden="true" className="text-brand-700 transition-transform group-hover:translate-x-1">
          →
        </span>
      </div>
    </Link>
  );
}

export default function Home({ loaderData }: Route.ComponentProps) {
  const { content, heroImages, stoneworkImage, landscapingImage, reviews } = loaderData;
  return (
    <>
      <Hero images={heroImages} title={content["hero.title"]} subtitle={content["hero.subtitle"]} />

      <section aria-labelledby="services-title" className="mx-auto max-w-7xl px-4 py-16 sm:px-6 lg:px-8">
        <SectionIntro id="services-title" title={content["services.title"]} text={content["services.description"]} />
        <div className="mt-10 grid gap-6 md:grid-cols-2">
          <ServiceCard title="Stonework" to="/stonework" image={stoneworkImage} />
          <ServiceCard title="Hard Landscaping" to="/landscaping" image={landscapingImage} />
        </div>
      </section>

      {reviews.length ? <ReviewsSection reviews={reviews} /> : null}

      <section aria-labelledby="about-snippet-title" className="bg-white">
        <div className="mx-auto max-w-7xl px-4 py-16 sm:px-6 lg:px-8">
          <SectionIntro
            id="about-snippet-title"
            title={content["about.snippet.title"]}
            text={content["about.snippet.content"]}
            textClassName="leading-8"
          >
            <Link to="/contact" className={buttonClasses("secondary", "lg", "mt-8")}>
              Learn More About {content["contact.name"]}
            </Link>
          </SectionIntro>
        </div>
      </section>
    </>
  );
}

/** A home-page section's heading (its `id` labels the section) and its stored paragraphs. */
function SectionIntro(props: {
  id: string;
  title: string;
  text: string;
  textClassName?: string;
  children?: ReactNode;
}) {
  return (
    <div className="max-w-3xl">
      <h2 id={props.id} className="font-display text-3xl font-bold text-stone-900">
        {props.title}
      </h2>
      <div className={cn("mt-4 space-y-3 text-lg text-stone-700", props.textClassName)}>
        <Paragraphs text={props.text} />
      </div>
      {props.children}
    </div>
  );
}
